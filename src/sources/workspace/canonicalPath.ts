// Where a path really is, said once for every check that asks "is this inside
// the workspace?". A repository is untrusted: a link (the file's own, or a
// folder's on the way) can point anywhere, so checks compare real paths. A path
// that cannot be resolved whole (not there yet, a dangling link, a link loop,
// no permission) is judged by where it would be: a dangling link by its
// target, anything else by its nearest folder that does resolve, real, with the
// rest of the path after it. So a missing file under a linked folder, or a link
// to a file not there yet, lands where the link goes, not where its name suggests.

import fs from 'node:fs';
import path from 'node:path';

/** Links followed by hand past a dangling one, at most (Linux's own limit before ELOOP). */
const MAX_LINKS = 40;

/** The path absolute, with every symlink resolved as far as the file system allows (never throws). */
export function canonicalPath(file: string): string {
  return resolveFrom(path.resolve(file), MAX_LINKS);
}

function resolveFrom(absolute: string, linksLeft: number): string {
  let head = absolute;
  const rest: string[] = [];
  for (;;) {
    try {
      const real = fs.realpathSync.native(head);
      return rest.length === 0 ? real : path.join(real, ...rest.reverse());
    } catch {
      // A dangling link is judged by where its target would be, not by where the link sits.
      const target = linksLeft > 0 ? linkTarget(head) : undefined;
      if (target !== undefined) {
        return resolveFrom(path.join(path.resolve(path.dirname(head), target), ...rest.reverse()), linksLeft - 1);
      }
      const parent = path.dirname(head);
      // Not even the root resolves (no permission up there): the absolute path is all there is.
      if (parent === head) return absolute;
      rest.push(path.basename(head));
      head = parent;
    }
  }
}

function linkTarget(file: string): string | undefined {
  try {
    return fs.lstatSync(file, { throwIfNoEntry: false })?.isSymbolicLink() ? fs.readlinkSync(file) : undefined;
  } catch {
    return undefined;
  }
}

/** Whether `abs` lies strictly below `root` (both absolute; compare canonical paths for a safety check). */
export function isInside(root: string, abs: string): boolean {
  const rel = path.relative(root, abs);
  // By segments: `..notes` is a name inside, `..` and `../x` lead out.
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
}
