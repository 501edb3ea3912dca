// Paths named in the conversation (plain paths, `@path` mentions and paths
// inside code blocks, as the question analysis found them: shared/question.ts)
// resolved against the workspace; only the ones that exist (and stay inside it)
// count as named files.

import fs from 'node:fs';
import path from 'node:path';
import type { QuestionPath } from '../shared/question.ts';
import { canonicalPath, isInside } from './workspace/canonicalPath.ts';

export interface ResolvedMention {
  /** Workspace-relative path with `/` separators. */
  rel: string;
  abs: string;
  /** True when the user named it in prose or with `@`; false when it only appeared inside a code block. */
  explicit: boolean;
}

export interface MentionResult {
  inside: ResolvedMention[];
  /** Named paths that exist but resolve outside the workspace (also through symlinks). */
  outside: string[];
}

export function resolveCandidate(workspace: string, home: string, token: string): string {
  if (token.startsWith('~/')) return path.join(home, token.slice(2));
  return path.resolve(workspace, token);
}

/**
 * Existing files named in the text (the workspace given as a real path);
 * directories are ignored. Synchronous on
 * purpose: a handful of stat calls cost microseconds, a thread-pool round trip
 * each would cost more than the whole warm request.
 */
export function namedFiles(workspace: string, home: string, named: readonly QuestionPath[]): MentionResult {
  // Callers pass the workspace as a real path already (Workspaces resolves it once).
  const realWorkspace = workspace;
  const lstat = (file: string) => fs.lstatSync(file, { throwIfNoEntry: false });
  const byRel = new Map<string, ResolvedMention>();
  const outside: string[] = [];
  const explicit = new Set(named.filter((n) => n.explicit).map((n) => n.token));
  for (const token of new Set(named.map((n) => n.token))) {
    const abs = resolveCandidate(realWorkspace, home, token);
    let isFile = false;
    let linked = false;
    try {
      const own = lstat(abs);
      linked = own?.isSymbolicLink() ?? false;
      isFile = (linked ? fs.statSync(abs, { throwIfNoEntry: false }) : own)?.isFile() ?? false;
    } catch {
      continue;
    }
    if (!isFile) continue;
    // Only a symlink (the file or a folder on its way) can lead outside; resolve only then.
    const real = linked || hasLinkedParent(realWorkspace, abs) ? canonicalPath(abs) : abs;
    if (!isInside(realWorkspace, abs) || !isInside(realWorkspace, real)) {
      outside.push(token);
      continue;
    }
    const rel = path.relative(realWorkspace, abs).split(path.sep).join('/');
    const known = byRel.get(rel);
    if (known) known.explicit ||= explicit.has(token);
    else byRel.set(rel, { rel, abs, explicit: explicit.has(token) });
  }
  const inside = [...byRel.values()].sort((a, b) => a.rel.localeCompare(b.rel));
  return { inside, outside: outside.sort() };
}

/** Whether a folder between `root` and `file` is a symlink. */
function hasLinkedParent(root: string, file: string): boolean {
  if (!isInside(root, file)) return true;
  let dir = path.dirname(file);
  while (dir !== root && dir.length > root.length) {
    if (fs.lstatSync(dir, { throwIfNoEntry: false })?.isSymbolicLink()) return true;
    dir = path.dirname(dir);
  }
  return false;
}
