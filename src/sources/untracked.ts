// New files the user has not added yet: their names (inside untracked folders
// too, which `git status` shows only as `dir/`) and the head of each small text
// file. Names come from git (ignored files never appear); contents come through
// the file guard, so a never-read name is listed but never opened.

import path from 'node:path';
import type { ContextItem, SkippedPath } from '../shared/types.ts';
import { capHead, headLines } from './cap.ts';
import { machineWrittenName, machineWrittenText } from './git/diffText.ts';
import { parseStatus, type StatusSnapshot } from './git/statusParse.ts';
import { FileGuard, workspaceZone } from './workspace/guard.ts';

export interface UntrackedOptions {
  /** Names listed at most (the rest are counted). */
  maxListed: number;
  /** Files whose head is shown at most. */
  maxHeads: number;
  /** Only files up to this size get a head. */
  headMaxBytes: number;
  headLines: number;
  headChars: number;
}

export const defaultUntrackedOptions: UntrackedOptions = {
  maxListed: 100,
  maxHeads: 8,
  headMaxBytes: 16 * 1024,
  headLines: 30,
  headChars: 2_000,
};

/** Workspace-relative untracked entries of a status (folders end in `/`), those outside the workspace left out. */
export function untrackedEntries(snapshot: StatusSnapshot): string[] {
  return snapshot.shortLines
    .filter((line) => line.startsWith('?? '))
    .map((line) => line.slice(3))
    .filter((rel) => !rel.startsWith('../'));
}

/**
 * The arguments that list every file inside the untracked folders (git stops at
 * the folder by default). Literal pathspecs: a folder name is never pathspec magic.
 */
export function expandArgs(dirs: readonly string[]): string[] {
  return [
    '--literal-pathspecs',
    'status',
    '--ignore-submodules=all',
    '--porcelain=v1',
    '-z',
    '--untracked-files=all',
    '--',
    ...dirs,
  ];
}

/** The full list: untracked files at the top plus the files inside untracked folders (from `expandArgs`' output). */
export function untrackedFiles(entries: readonly string[], expanded: string, topLevel: string, root: string): string[] {
  const files = entries.filter((rel) => !rel.endsWith('/'));
  if (expanded !== '') files.push(...untrackedEntries(parseStatus(expanded, topLevel, root)));
  return [...new Set(files.filter((rel) => !rel.endsWith('/')))].sort();
}

function looksBinary(text: string): boolean {
  return text.includes('\0');
}

export interface UntrackedResult {
  items: ContextItem[];
  skipped: SkippedPath[];
}

export function untrackedItems(
  root: string,
  files: readonly string[],
  deps: { isNeverRead: (rel: string) => boolean; allowedRoots: readonly string[] },
  options: UntrackedOptions = defaultUntrackedOptions,
): UntrackedResult {
  if (files.length === 0) return { items: [], skipped: [] };
  const listed = files.slice(0, options.maxListed);
  const more = files.length - listed.length;
  const list = [`${files.length} untracked file(s):`, ...listed];
  if (more > 0) list.push(`… ${more} more; run \`git status --untracked-files=all\``);
  const items: ContextItem[] = [
    {
      key: 'git.untracked',
      source: 'git',
      title: 'untracked files',
      text: list.join('\n'),
      priority: 62,
      kind: 'text',
      why: 'files new in the work tree, not yet in git',
    },
  ];
  const skipped: SkippedPath[] = [];
  const guard = new FileGuard(deps.isNeverRead);
  const zone = workspaceZone(root, deps.allowedRoots);
  let heads = 0;
  for (const rel of listed) {
    if (heads >= options.maxHeads) break;
    // Lockfiles and generated output: the name says enough.
    if (machineWrittenName(rel)) continue;
    const read = guard.read(path.join(root, rel), zone, [rel], {
      maxBytes: options.headMaxBytes,
      skipLarger: true,
    });
    if (read.refused) {
      skipped.push({ path: rel, reason: read.refused });
      continue;
    }
    // Missing (gone since the status) or larger than the head limit: the name alone is listed.
    if (read.text === undefined || looksBinary(read.text) || machineWrittenText(read.text)) continue;
    heads++;
    const cut = headLines(read.text, options.headLines, `${rel}, untracked`);
    const capped = capHead(cut.text, options.headChars, `cat ${rel}`);
    items.push({
      key: `git.untracked.${rel}`,
      source: 'git',
      title: `${rel} (untracked)`,
      text: capped.text,
      priority: 61,
      kind: 'code',
      path: rel,
      why: 'new in the work tree, not yet in git',
      ...(cut.truncated || capped.truncated ? { truncated: true } : {}),
    });
  }
  // Every file under its own fence, its path in the title: the list would only repeat them.
  if (heads === files.length) return { items: items.slice(1), skipped };
  return { items, skipped };
}
