// The last step of `npm run build` (scripts/build.ts): the new compiled tree, built in a folder of its own,
// moves into dist/ one file at a time, each by a rename. dist/ itself is never deleted and no file in it is
// ever missing or half written, so a `ctxproxy` already running from it (or started meanwhile) still finds
// every module it imports later, lazily. The old build deleted dist/ first; `npx ctxproxy` runs `prepare`
// the first time it is used in a checkout, and a command started just before then failed with "Cannot find
// module dist/cli/auditCommand.js" (docs/development.md).

import { mkdirSync, readdirSync, readFileSync, renameSync, rmdirSync, rmSync, statSync, unlinkSync } from 'node:fs';
import path from 'node:path';

/** Every file under `root`, as paths relative to it; and every folder, deepest first. */
function listTree(root: string): { files: string[]; folders: string[] } {
  const files: string[] = [];
  const folders: string[] = [];
  const visit = (relative: string): void => {
    for (const entry of readdirSync(path.join(root, relative), { withFileTypes: true })) {
      const child = path.join(relative, entry.name);
      if (entry.isDirectory()) {
        visit(child);
        folders.push(child);
      } else files.push(child);
    }
  };
  visit('');
  return { files, folders };
}

function sameBytes(a: string, b: string): boolean {
  try {
    if (statSync(b).size !== statSync(a).size) return false;
    return readFileSync(a).equals(readFileSync(b));
  } catch {
    return false;
  }
}

/**
 * Makes `to` hold exactly the files of `from`, moving them over (same file system): a file whose bytes are
 * the same is left as it is, a new or changed one is renamed over the old, and only then are the files the
 * new tree no longer has removed. `last` (a path relative to both) is moved in at the very end, whatever its
 * bytes, so its time says when the whole tree was in place. `from` is left empty of files.
 */
export function replaceTree(from: string, to: string, last?: string): void {
  const next = listTree(from);
  const keep = new Set(next.files);
  mkdirSync(to, { recursive: true });
  const move = (file: string): void => {
    const target = path.join(to, file);
    mkdirSync(path.dirname(target), { recursive: true });
    // A folder where a file now goes (the sources changed shape): nothing can import through it any more.
    if (statSync(target, { throwIfNoEntry: false })?.isDirectory()) rmSync(target, { recursive: true });
    renameSync(path.join(from, file), target);
  };
  for (const file of next.files) {
    if (file === last) continue;
    if (sameBytes(path.join(from, file), path.join(to, file))) unlinkSync(path.join(from, file));
    else move(file);
  }
  const old = listTree(to);
  for (const file of old.files) if (!keep.has(file)) unlinkSync(path.join(to, file));
  const folders = new Set(next.folders);
  for (const folder of old.folders) {
    if (folders.has(folder)) continue;
    try {
      rmdirSync(path.join(to, folder));
    } catch {
      // not empty: it holds a file of the new tree's folders, or became one
    }
  }
  if (last !== undefined && keep.has(last)) move(last);
}
