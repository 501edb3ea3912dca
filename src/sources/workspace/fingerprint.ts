// Cheap, synchronous fingerprints: a handful of stat calls that tell whether
// what a memoized result depends on may have changed, without running git.

import fs from 'node:fs';
import path from 'node:path';
import { readTextIfFile } from './syncRead.ts';

/** `mtime:size` for a path, `-` when it does not exist. */
export function statStamp(file: string): string {
  try {
    // throwIfNoEntry: a missing file is common here, and building the exception costs more than the stat.
    const s = fs.statSync(file, { throwIfNoEntry: false });
    return s ? `${s.mtimeMs}:${s.size}` : '-';
  } catch {
    return '-';
  }
}

export function statFingerprint(files: Iterable<string>): string {
  let out = '';
  for (const file of files) out += `${file}=${statStamp(file)};`;
  return out;
}

export interface RepoLocation {
  /** The work tree's top directory. */
  topLevel: string;
  /** Where HEAD and index live (`.git`, or the worktree's own dir). */
  gitDir: string;
  /** Where refs and packed-refs live (same as gitDir except for linked worktrees). */
  commonDir: string;
}

/** Finds the repository that contains `dir` by walking up to `/`; undefined when there is none. */
export function locateRepo(dir: string): RepoLocation | undefined {
  let current = path.resolve(dir);
  for (;;) {
    const dotGit = path.join(current, '.git');
    let stat: fs.Stats | undefined;
    try {
      stat = fs.statSync(dotGit, { throwIfNoEntry: false });
    } catch {
      stat = undefined;
    }
    if (stat?.isDirectory() && fs.existsSync(path.join(dotGit, 'HEAD'))) {
      return { topLevel: current, gitDir: dotGit, commonDir: dotGit };
    }
    if (stat?.isFile()) {
      // A linked worktree or submodule: `.git` is a file saying `gitdir: <path>`.
      const match = /^gitdir:\s*(.+)$/m.exec(readTextIfFile(dotGit, { maxBytes: 4096 }) ?? '');
      if (match?.[1]) {
        const gitDir = path.resolve(current, match[1].trim());
        // No commondir file: the gitdir holds everything.
        const common = readTextIfFile(path.join(gitDir, 'commondir'), { maxBytes: 4096 })?.trim();
        const commonDir = common ? path.resolve(gitDir, common) : gitDir;
        return { topLevel: current, gitDir, commonDir };
      }
    }
    const parent = path.dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}

function readSmall(file: string): string {
  return readTextIfFile(file, { maxBytes: 4096 }) ?? '';
}

/**
 * What git's answers depend on, outside the work tree's files: HEAD (and the
 * ref it points at), the index, packed refs and the last fetch (ahead/behind).
 */
export function gitMetaFingerprint(repo: RepoLocation): string {
  const head = readSmall(path.join(repo.gitDir, 'HEAD')).trim();
  const ref = head.startsWith('ref: ') ? head.slice(5) : undefined;
  const files = [
    path.join(repo.gitDir, 'index'),
    path.join(repo.commonDir, 'packed-refs'),
    path.join(repo.commonDir, 'FETCH_HEAD'),
    path.join(repo.commonDir, 'refs', 'remotes', 'origin', 'HEAD'),
  ];
  if (ref) {
    files.push(path.join(repo.commonDir, ref));
    const branch = ref.replace(/^refs\/heads\//, '');
    files.push(path.join(repo.commonDir, 'refs', 'remotes', 'origin', branch));
  }
  return `${head}|${statFingerprint(files)}`;
}
