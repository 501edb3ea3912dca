// Walks the work tree honouring .gitignore files (at every level) and default
// ignores. Shared by the tree and stats sources and by the work-tree watcher.

import fs from 'node:fs/promises';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { readTextIfFile } from './syncRead.ts';

/** `.gitignore` files are read up to this size. */
export const IGNORE_FILE_BYTES = 1024 * 1024;

/** Directories nobody wants listed: dependencies, build output, VCS and tool caches. */
export const DEFAULT_IGNORED_DIRS = new Set([
  '.git',
  '.hg',
  '.svn',
  'node_modules',
  'bower_components',
  'dist',
  'build',
  'out',
  'target',
  '.venv',
  'venv',
  '__pycache__',
  '.mypy_cache',
  '.pytest_cache',
  '.tox',
  '.next',
  '.nuxt',
  '.turbo',
  '.cache',
  '.gradle',
  '.idea',
  'coverage',
  '.ctxproxy',
]);

export interface WalkResult {
  /** Workspace-relative file paths with `/` separators, sorted. */
  files: string[];
  /** Workspace-relative directories (`''` is the root). */
  dirs: string[];
  /** True when the walk stopped at the file limit. */
  truncated: boolean;
  /** How many files each folder holds directly (`''` for the root), for every folder of `dirs`. */
  fileCounts: ReadonlyMap<string, number>;
  /**
   * A folder's own file names, sorted; worked out on first ask (the tree lists a
   * few folders of a large repository, not all of them).
   */
  namesIn(dir: string): readonly string[];
  /** Whether a path (relative, `/`-separated) would be skipped by the walk's rules. */
  isIgnored(relativePath: string, isDir: boolean): boolean;
}

/** Full paths by folder, in list order; one map lookup per change of folder. */
function pathsByDir(files: readonly string[]): Map<string, string[]> {
  const byDir = new Map<string, string[]>();
  let lastDir: string | undefined;
  let paths: string[] = [];
  for (const file of files) {
    const cut = file.lastIndexOf('/');
    const dir = cut === -1 ? '' : file.slice(0, cut);
    if (dir !== lastDir) {
      lastDir = dir;
      let known = byDir.get(dir);
      if (!known) {
        known = [];
        byDir.set(dir, known);
      }
      paths = known;
    }
    paths.push(file);
  }
  return byDir;
}

/** The names of a folder's files from their full paths, sorted (git lists untracked files after tracked ones). */
function namesOf(dir: string, paths: readonly string[]): string[] {
  const names = dir === '' ? paths.slice() : paths.map((file) => file.slice(dir.length + 1));
  sortTail(names);
  return names;
}

/** A walk result whose folder views come from the full paths of each folder's files, names made on demand. */
function walkResult(
  fields: Pick<WalkResult, 'files' | 'dirs' | 'truncated' | 'isIgnored'>,
  paths: ReadonlyMap<string, readonly string[]>,
): WalkResult {
  const fileCounts = new Map<string, number>();
  for (const [dir, list] of paths) fileCounts.set(dir, list.length);
  const names = new Map<string, readonly string[]>();
  const namesIn = (dir: string): readonly string[] => {
    let known = names.get(dir);
    if (known === undefined) {
      known = namesOf(dir, paths.get(dir) ?? []);
      names.set(dir, known);
    }
    return known;
  };
  return { ...fields, fileCounts, namesIn };
}

interface Rules {
  base: string;
  matcher: Ignore;
}

async function loadGitignore(root: string, dirRel: string): Promise<Rules | undefined> {
  try {
    // Bounded, regular files only: a committed `.gitignore -> /dev/zero` must not hang the walk.
    const text = readTextIfFile(path.join(root, dirRel, '.gitignore'), { maxBytes: IGNORE_FILE_BYTES });
    if (text === undefined) return undefined;
    return { base: dirRel, matcher: ignore().add(text) };
  } catch {
    return undefined;
  }
}

function ignoredBy(rules: readonly Rules[], rel: string, isDir: boolean): boolean {
  const name = rel.slice(rel.lastIndexOf('/') + 1);
  if (isDir && DEFAULT_IGNORED_DIRS.has(name)) return true;
  for (const { base, matcher } of rules) {
    if (base !== '' && !rel.startsWith(`${base}/`)) continue;
    const inner = base === '' ? rel : rel.slice(base.length + 1);
    if (matcher.ignores(isDir ? `${inner}/` : inner)) return true;
  }
  return false;
}

export async function walkWorkTree(root: string, options: { maxFiles?: number } = {}): Promise<WalkResult> {
  const maxFiles = options.maxFiles ?? 100_000;
  const files: string[] = [];
  const dirs: string[] = [];
  const allRules: Rules[] = [];
  let truncated = false;

  const visit = async (dirRel: string, inherited: readonly Rules[]): Promise<void> => {
    if (files.length >= maxFiles) {
      truncated = true;
      return;
    }
    dirs.push(dirRel);
    const own = await loadGitignore(root, dirRel);
    const rules = own ? [...inherited, own] : inherited;
    if (own) allRules.push(own);
    let entries: import('node:fs').Dirent[];
    try {
      entries = await fs.readdir(path.join(root, dirRel), { withFileTypes: true });
    } catch {
      return;
    }
    const subdirs: string[] = [];
    for (const entry of entries) {
      const rel = dirRel === '' ? entry.name : `${dirRel}/${entry.name}`;
      const isDir = entry.isDirectory();
      if (ignoredBy(rules, rel, isDir)) continue;
      if (isDir) subdirs.push(rel);
      else if (files.length < maxFiles) files.push(rel);
      else truncated = true;
    }
    await Promise.all(subdirs.map((sub) => visit(sub, rules)));
  };

  await visit('', []);
  files.sort();
  dirs.sort();
  return walkResult(
    { files, dirs, truncated, isIgnored: (rel, isDir) => ignoredBy(allRules, rel, isDir) },
    pathsByDir(files),
  );
}

/**
 * The same result from a ready-made file list (`git ls-files -co --exclude-standard`,
 * which applies .gitignore, .git/info/exclude and core.excludesFile exactly as git does).
 * Default-ignored directories are dropped too, even when tracked. On the cold
 * path of every request in a repository, so it walks the list once, looks a
 * folder up only where the folder changes, and leaves names and ignore rules to
 * whoever asks for them.
 */
export function walkResultFromList(root: string, listed: readonly string[], maxFiles = 100_000): WalkResult {
  const files: string[] = [];
  // Folder → the full paths of its files, or null when the folder is default-ignored; each folder judged once.
  const byDirOrSkip = new Map<string, string[] | null>([['', []]]);
  const pathsIn = (dir: string): string[] | null => {
    const known = byDirOrSkip.get(dir);
    if (known !== undefined) return known;
    const cut = dir.lastIndexOf('/');
    const parent = cut === -1 ? '' : dir.slice(0, cut);
    const keep = pathsIn(parent) !== null && !DEFAULT_IGNORED_DIRS.has(dir.slice(cut + 1));
    const paths = keep ? [] : null;
    byDirOrSkip.set(dir, paths);
    return paths;
  };
  let truncated = false;
  let lastDir: string | undefined;
  let paths: string[] | null = null;
  const gitignores: string[] = [];
  for (const file of listed) {
    const cut = file.lastIndexOf('/');
    const dir = cut === -1 ? '' : file.slice(0, cut);
    if (dir !== lastDir) {
      lastDir = dir;
      paths = pathsIn(dir);
    }
    if (paths === null) continue;
    if (files.length >= maxFiles) {
      truncated = true;
      break;
    }
    files.push(file);
    paths.push(file);
    if (file.length - cut === GITIGNORE.length + 1 && file.endsWith(GITIGNORE)) gitignores.push(file);
  }
  const kept = new Map<string, string[]>();
  for (const [folder, list] of byDirOrSkip) if (list !== null) kept.set(folder, list);
  sortTail(files);
  let rules: Rules[] | undefined;
  const isIgnored = (rel: string, isDir: boolean) => {
    // Only the work-tree watcher asks, on a change after the request: the rules are read then.
    rules ??= gitignoreRules(root, gitignores);
    return ignoredBy(rules, rel, isDir);
  };
  return walkResult({ files, dirs: [...kept.keys()].sort(), truncated, isIgnored }, kept);
}

const GITIGNORE = '.gitignore';

function gitignoreRules(root: string, files: readonly string[]): Rules[] {
  const rules: Rules[] = [];
  for (const file of files) {
    try {
      const base = file === GITIGNORE ? '' : file.slice(0, -'/.gitignore'.length);
      const text = readTextIfFile(path.join(root, file), { maxBytes: IGNORE_FILE_BYTES });
      if (text !== undefined) rules.push({ base, matcher: ignore().add(text) });
    } catch {
      // Listed but unreadable: git already applied it.
    }
  }
  return rules;
}

/**
 * git lists tracked files sorted and untracked ones after them: sort that short
 * tail and insert it into the head (a binary search per tail entry, the head
 * moved up in blocks), instead of sorting the whole listing. Sorts in place.
 */
export function sortTail(list: string[]): void {
  let cut = 1;
  while (cut < list.length && (list[cut - 1] ?? '') <= (list[cut] ?? '')) cut++;
  if (cut >= list.length) return;
  const tail = list.slice(cut).sort();
  // From the largest tail entry down: the head entries above it move to the end, then it goes below them.
  let end = list.length;
  let headEnd = cut;
  for (let t = tail.length - 1; t >= 0; t--) {
    const entry = tail[t] ?? '';
    // The first head entry greater than `entry` (equal ones stay before it, as a stable merge keeps them).
    let low = 0;
    let high = headEnd;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((list[mid] ?? '') <= entry) low = mid + 1;
      else high = mid;
    }
    list.copyWithin(end - (headEnd - low), low, headEnd);
    end -= headEnd - low;
    headEnd = low;
    list[--end] = entry;
  }
}
