// The pathspecs retrieval gives `git grep`, as a test on a path, so an index
// search covers the same files. Only the forms retrieval writes are known
// (`.`, `:(glob)…`, `:(literal)…`, `:(exclude,glob)…`); anything else returns
// undefined and the search goes to git grep, which knows them all.

const escapeRegExp = (text: string) => text.replace(/[.+^${}()|[\]\\]/g, '\\$&');

/** git's glob magic: `**\/` any folders (or none), `*` and `?` within one name. */
export function globRegExp(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const char = glob.charAt(i);
    if (glob.startsWith('**/', i)) {
      out += '(?:.*/)?';
      i += 2;
    } else if (glob.startsWith('/**', i) && i + 3 === glob.length) {
      out += '/.*';
      i += 2;
    } else if (char === '*') out += '[^/]*';
    else if (char === '?') out += '[^/]';
    else out += escapeRegExp(char);
  }
  return new RegExp(`^${out}$`);
}

/** Whether a path is inside a literal pathspec (the path itself, or a folder of it). */
function literal(spec: string): (rel: string) => boolean {
  const bare = spec.replace(/\/+$/, '');
  return (rel) => rel === bare || rel.startsWith(`${bare}/`);
}

export function pathspecFilter(specs: readonly string[] | undefined): ((rel: string) => boolean) | undefined {
  if (!specs || specs.length === 0) return () => true;
  const include: ((rel: string) => boolean)[] = [];
  const exclude: ((rel: string) => boolean)[] = [];
  for (const spec of specs) {
    if (spec === '.' || spec === ':/') include.push(() => true);
    else if (spec.startsWith(':(glob)')) {
      const re = globRegExp(spec.slice(7));
      include.push((rel) => re.test(rel));
    } else if (spec.startsWith(':(literal)')) include.push(literal(spec.slice(10)));
    else if (spec.startsWith(':(exclude,glob)')) {
      const re = globRegExp(spec.slice(15));
      exclude.push((rel) => re.test(rel));
    } else if (spec.startsWith(':')) return undefined;
    else if (/[*?[]/.test(spec)) return undefined;
    else include.push(literal(spec));
  }
  return (rel) => include.some((test) => test(rel)) && !exclude.some((test) => test(rel));
}
