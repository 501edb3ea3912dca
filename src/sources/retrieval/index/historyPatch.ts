// One commit as `git show` prints it for the history index (header, then a
// patch with no context lines), read into paths and hunks. The parse is
// linear in the text and keeps no line longer than the text it was given
// (which the caller has already cut to its byte limit).

/** `git show` arguments for indexing one commit: its id, time and message, then its changed lines only. */
export function commitShowArgs(sha: string): string[] {
  return [
    'show',
    '--format=%H%x00%ct%x00%B%x00',
    '--unified=0',
    '--no-color',
    '--no-ext-diff',
    '--no-textconv',
    // A merge's changes are its parents' commits, indexed on their own: the merge keeps its message.
    '--diff-merges=off',
    // Paths as the workspace names them (a workspace below the repository's top sees its own part).
    '--relative',
    sha,
    '--',
  ];
}

/** The paths a commit changed, without its patch (a tree comparison: cheap however large the commit). */
export function commitPathsArgs(sha: string): string[] {
  return ['show', '--format=', '--name-only', '-z', '--no-color', '--diff-merges=off', '--relative', sha, '--'];
}

export interface ParsedHunk {
  rel: string;
  /** First line of the hunk in the commit's version of the file (1-based; 0 for a deletion at the top). */
  start: number;
  lines: number;
  added: string[];
  removed: string[];
}

export interface ParsedCommit {
  sha: string;
  time: number;
  message: string;
  paths: string[];
  hunks: ParsedHunk[];
}

const HUNK = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/;

/** Undefined when the header is not there (the output was cut before it ended, or git printed nothing). */
export function parseCommit(text: string): ParsedCommit | undefined {
  const first = text.indexOf('\0');
  const second = first < 0 ? -1 : text.indexOf('\0', first + 1);
  const third = second < 0 ? -1 : text.indexOf('\0', second + 1);
  if (third < 0) return undefined;
  const sha = text.slice(0, first).trim();
  const time = Number(text.slice(first + 1, second));
  if (!/^[0-9a-f]{40,64}$/.test(sha) || !Number.isFinite(time)) return undefined;
  const out: ParsedCommit = { sha, time, message: text.slice(second + 1, third), paths: [], hunks: [] };
  let rel = '';
  let hunk: ParsedHunk | undefined;
  const seen = new Set<string>();
  const addPath = (name: string | undefined) => {
    if (!name) return;
    rel = name;
    if (!seen.has(name)) {
      seen.add(name);
      out.paths.push(name);
    }
  };
  let at = third + 1;
  while (at < text.length) {
    const end = text.indexOf('\n', at);
    const line = text.slice(at, end === -1 ? text.length : end);
    at = end === -1 ? text.length : end + 1;
    if (hunk && (line.startsWith('+') || line.startsWith('-'))) {
      (line.startsWith('+') ? hunk.added : hunk.removed).push(line.slice(1));
      continue;
    }
    if (line.startsWith('diff --git ')) {
      hunk = undefined;
      addPath(samePath(line.slice('diff --git '.length)));
    } else if (line.startsWith('+++ ') || line.startsWith('--- ')) {
      const name = sidePath(line.slice(4));
      if (name) addPath(name);
    } else if (line.startsWith('rename to ') || line.startsWith('copy to ')) {
      addPath(unquote(line.slice(line.indexOf(' to ') + 4)));
    } else if (line.startsWith('Binary files ')) {
      const named = / and (.+) differ$/.exec(line)?.[1];
      const name = named === '/dev/null' ? undefined : sidePath(named ?? '');
      if (name) addPath(name);
    } else {
      const m = HUNK.exec(line);
      if (m && rel !== '') {
        hunk = { rel, start: Number(m[1]), lines: m[2] === undefined ? 1 : Number(m[2]), added: [], removed: [] };
        out.hunks.push(hunk);
      }
    }
  }
  return out;
}

/** `a/PATH b/PATH` (a path that stayed): PATH; undefined when the two differ or are quoted. */
function samePath(rest: string): string | undefined {
  if (rest.startsWith('"')) return undefined;
  const n = (rest.length - 5) / 2;
  if (!Number.isInteger(n) || n <= 0) return undefined;
  const name = rest.slice(2, 2 + n);
  return rest === `a/${name} b/${name}` ? name : undefined;
}

/** `a/PATH` or `b/PATH` of a `---`/`+++` line (git adds a tab after a path with spaces); not /dev/null. */
function sidePath(raw: string): string | undefined {
  const name = unquote(raw.replace(/\t$/, ''));
  if (name === '/dev/null' || name === undefined) return undefined;
  return name.startsWith('a/') || name.startsWith('b/') ? name.slice(2) : undefined;
}

const ESCAPES: Record<string, string> = {
  n: '\n',
  t: '\t',
  '"': '"',
  '\\': '\\',
  a: '\x07',
  b: '\b',
  f: '\f',
  v: '\v',
  r: '\r',
};

/** A path as git quotes one with special characters (`"a\"b"`); octal escapes (non-ASCII bytes) decoded as UTF-8. */
function unquote(raw: string): string | undefined {
  if (!raw.startsWith('"')) return raw;
  if (!raw.endsWith('"') || raw.length < 2) return undefined;
  const bytes: number[] = [];
  const body = raw.slice(1, -1);
  for (let i = 0; i < body.length; i++) {
    const c = body[i] as string;
    if (c !== '\\') {
      for (const b of Buffer.from(c, 'utf8')) bytes.push(b);
      continue;
    }
    const next = body[i + 1] ?? '';
    if (/[0-7]/.test(next)) {
      bytes.push(Number.parseInt(body.slice(i + 1, i + 4), 8));
      i += 3;
    } else {
      for (const b of Buffer.from(ESCAPES[next] ?? next, 'utf8')) bytes.push(b);
      i += 1;
    }
  }
  return Buffer.from(bytes).toString('utf8');
}
