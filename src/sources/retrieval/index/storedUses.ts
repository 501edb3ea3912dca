// "Who uses, calls or imports X" and "which tests exercise X" from the symbol
// index's stored uses (symbolTables.ts): the files and lines tree-sitter saw
// the name at, as hits with their text read again now through the guard. A
// line that no longer holds the name (the file changed since it was parsed)
// is left out: the stored row only says where to look.

import path from 'node:path';
import type { ReferenceKind } from '../../symbols/extract.ts';
import type { SymbolTables } from '../../symbols/symbolTables.ts';
import { FileGuard, workspaceZone } from '../../workspace/guard.ts';
import { isTestPath } from '../regions.ts';
import type { GrepHit } from '../search.ts';

export interface UseHit extends GrepHit {
  kind: ReferenceKind;
}

export interface UsesLimits {
  /** Stored uses read per name, at most. */
  perName: number;
  /** Files read again, at most (a name used everywhere is cut, in path order). */
  files: number;
  maxFileBytes: number;
}

export const defaultUsesLimits: UsesLimits = { perName: 400, files: 120, maxFileBytes: 2 * 1024 * 1024 };

/** A hit line is cut to this (minified or data lines are not what a use listing shows). */
const MAX_LINE_CHARS = 400;

export function storedUses(
  tables: Pick<SymbolTables, 'uses'>,
  read: { root: string; isNeverRead: (rel: string) => boolean; allowedRoots: readonly string[] },
  names: readonly string[],
  options: { kinds?: readonly ReferenceKind[]; testsOnly?: boolean } = {},
  limits: UsesLimits = defaultUsesLimits,
): UseHit[] {
  const byFile = new Map<string, { line: number; kind: ReferenceKind; name: string }[]>();
  for (const name of names) {
    for (const use of tables.uses(name, options.kinds, limits.perName)) {
      if (read.isNeverRead(use.rel) || (options.testsOnly && !isTestPath(use.rel))) continue;
      const list = byFile.get(use.rel) ?? [];
      if (list.length === 0 && byFile.size >= limits.files) continue;
      list.push({ ...use, name });
      byFile.set(use.rel, list);
    }
  }
  const guard = new FileGuard(read.isNeverRead);
  const zone = workspaceZone(read.root, read.allowedRoots);
  const hits: UseHit[] = [];
  for (const [rel, uses] of byFile) {
    const got = guard.read(path.join(read.root, rel), zone, [rel], {
      maxBytes: limits.maxFileBytes,
      skipLarger: true,
    });
    if (got.text === undefined) continue;
    const lines = got.text.split('\n');
    for (const use of uses) {
      const text = lines[use.line - 1];
      if (text === undefined || !holdsWord(text, use.name)) continue;
      hits.push({ rel, line: use.line, text: text.slice(0, MAX_LINE_CHARS), kind: use.kind });
    }
  }
  return hits;
}

/** Whether `name` occurs in `line` as a whole identifier. */
function holdsWord(line: string, name: string): boolean {
  for (let at = line.indexOf(name); at !== -1; at = line.indexOf(name, at + 1)) {
    const before = line.charAt(at - 1);
    const after = line.charAt(at + name.length);
    if (!/[\w$]/.test(before) && !/[\w$]/.test(after)) return true;
  }
  return false;
}
