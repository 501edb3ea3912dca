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
  /** File names (sorted) by folder (`''` for the root): the tree is built from this without re-splitting paths. */
  byDir: Map<string, string[]>;
  /** Whether a path (relative, `/`-separated) would be skipped by the walk's rules. */
  isIgnored(relativePath: string, isDir: boolean): boolean;
}

/** Groups sorted paths by folder; one map lookup per change of folder. */
export function groupByDir(files: readonly string[]): Map<string, string[]> {
  const byDir = new Map<string, string[]>();
  let lastDir: string | undefined;
  let names: string[] = [];
  for (const file of files) {
    const cut = file.lastIndexOf('/');
    const dir = cut === -1 ? '' : file.slice(0, cut);
    if (dir !== lastDir) {
      let known = byDir.get(dir);
      if (!known) {
        known = [];
        byDir.set(dir, known);
      }
      names = known;
      lastDir = dir;
    }
    names.push(file.slice(cut + 1));
  }
  return byDir;
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
  const byDir = groupByDir(files);
  return { files, dirs, truncated, byDir, isIgnored: (rel, isDir) => ignoredBy(allRules, rel, isDir) };
}

/**
 * The same result from a ready-made file list (`git ls-files -co --exclude-standard`,
 * which applies .gitignore, .git/info/exclude and core.excludesFile exactly as git does).
 * Default-ignored directories are dropped too, even when tracked.
 */
export function walkResultFromList(root: string, listed: readonly string[], maxFiles = 100_000): WalkResult {
  const files: string[] = [];
  // Folder → its file names, or null when the folder is default-ignored; each folder is judged once.
  const byDirOrSkip = new Map<string, string[] | null>([['', []]]);
  const namesOf = (dir: string): string[] | null => {
    const known = byDirOrSkip.get(dir);
    if (known !== undefined) return known;
    const cut = dir.lastIndexOf('/');
    const parent = cut === -1 ? '' : dir.slice(0, cut);
    const keep = namesOf(parent) !== null && !DEFAULT_IGNORED_DIRS.has(dir.slice(cut + 1));
    const names = keep ? [] : null;
    byDirOrSkip.set(dir, names);
    return names;
  };
  let truncated = false;
  let lastDir: string | undefined;
  let names: string[] | null = null;
  const gitignores: string[] = [];
  for (const file of listed) {
    const cut = file.lastIndexOf('/');
    const dir = cut === -1 ? '' : file.slice(0, cut);
    if (dir !== lastDir) {
      names = namesOf(dir);
      lastDir = dir;
    }
    if (names === null) continue;
    if (files.length >= maxFiles) {
      truncated = true;
      break;
    }
    files.push(file);
    const name = file.slice(cut + 1);
    names.push(name);
    if (name === '.gitignore') gitignores.push(file);
  }
  const byDir = new Map<string, string[]>();
  for (const [dir, list] of byDirOrSkip) if (list !== null) byDir.set(dir, list);
  const dirs = [...byDir.keys()];
  const rules: Rules[] = [];
  for (const file of gitignores) {
    try {
      const base = file === '.gitignore' ? '' : file.slice(0, -'/.gitignore'.length);
      const text = readTextIfFile(path.join(root, file), { maxBytes: IGNORE_FILE_BYTES });
      if (text !== undefined) rules.push({ base, matcher: ignore().add(text) });
    } catch {
      // Listed but unreadable: git already applied it.
    }
  }
  if (sortTail(files)) for (const list of byDir.values()) sortTail(list);
  return {
    files,
    dirs: dirs.sort(),
    truncated,
    byDir,
    isIgnored: (rel, isDir) => ignoredBy(rules, rel, isDir),
  };
}

/**
 * git lists tracked files sorted and untracked ones after them: sort that short
 * tail and merge it in, instead of sorting 20,000 paths. Sorts in place; says
 * whether anything was out of order.
 */
export function sortTail(list: string[]): boolean {
  let cut = 1;
  while (cut < list.length && (list[cut - 1] ?? '') <= (list[cut] ?? '')) cut++;
  if (cut >= list.length) return false;
  const tail = list.slice(cut).sort();
  const head = list.slice(0, cut);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < head.length && j < tail.length) {
    list[k++] = (head[i] ?? '') <= (tail[j] ?? '') ? (head[i++] ?? '') : (tail[j++] ?? '');
  }
  while (i < head.length) list[k++] = head[i++] ?? '';
  while (j < tail.length) list[k++] = tail[j++] ?? '';
  return true;
}
