// Relevance to the question, for ranking items and choosing lines. An item
// that mentions one of the question's terms ranks first, changed code (diffs,
// changed and untracked files) next, the rest last. Inside an item, the lines
// that mention a term are kept with the block around them: the function or
// class they sit in, found by indentation (a real parser is the sources' job;
// the budget sees text), the definitions of a term before its other uses.

import type { ContextItem } from '../shared/types.ts';
import type { LineRange } from './lineSelection.ts';

export const NAMED_TIER = 2;
export const CHANGED_TIER = 1;
export const OTHER_TIER = 0;

/** Matching lines looked at per item, at most: a term on every line of a paste says nothing more. */
const MAX_MATCHES = 24;
/** The longest block kept around a match; a longer one keeps its head and the match's neighbourhood. */
const MAX_BLOCK_LINES = 200;

export type Matcher = (text: string) => boolean;

export function itemTier(item: ContextItem, matches: Matcher): number {
  if (matches(item.key) || (item.path !== undefined && matches(item.path)) || matches(item.text)) return NAMED_TIER;
  if (item.kind === 'diff' || item.key.startsWith('files.changed.') || item.key.startsWith('git.untracked.')) {
    return CHANGED_TIER;
  }
  return OTHER_TIER;
}

const indentOf = (line: string) => line.length - line.trimStart().length;
const isBlank = (line: string | undefined) => line === undefined || line.trim() === '';
const CLOSER = /^\s*(?:[}\])]+[;,)]*|end\b.*)\s*$/;
const DEFINES = /\b(?:function|def|class|fn|func|interface|type|struct|enum|trait|impl|const|let|var|val|module)\b/;

function nextNonBlank(lines: string[], from: number): number {
  for (let i = from; i < lines.length; i++) if (!isBlank(lines[i])) return i;
  return -1;
}

/** The block a line belongs to: the nearest less-indented line above it, through its end. */
export function enclosingBlock(lines: string[], at: number): LineRange {
  const line = lines[at] ?? '';
  const next = nextNonBlank(lines, at + 1);
  // A line that opens a block (the next line is indented deeper) is its own start.
  let start = at;
  if (!(next >= 0 && indentOf(lines[next] ?? '') > indentOf(line))) {
    for (let i = at - 1; i >= 0; i--) {
      if (!isBlank(lines[i]) && indentOf(lines[i] ?? '') < indentOf(line)) {
        start = i;
        break;
      }
    }
  }
  const depth = indentOf(lines[start] ?? '');
  let end = lines.length - 1;
  for (let i = start + 1; i < lines.length; i++) {
    if (isBlank(lines[i]) || indentOf(lines[i] ?? '') > depth) continue;
    end = CLOSER.test(lines[i] ?? '') ? i : i - 1;
    break;
  }
  // Decorators, doc comments and annotations just above belong to the definition.
  while (start > 0 && /^\s*(?:@|\/\/\/|\/\*\*|\*|#\[)/.test(lines[start - 1] ?? '')) start--;
  while (end > start && isBlank(lines[end])) end--;
  return { start, end };
}

/**
 * Ranges to keep first, best first: for each matching line (definitions of a
 * term before other mentions), its enclosing block when that is not too long,
 * then the matching line alone (when the block does not fit, the line still does).
 */
export function relevantRanges(lines: string[], matches: Matcher): LineRange[] {
  const hits: number[] = [];
  for (let i = 0; i < lines.length && hits.length < MAX_MATCHES; i++) if (matches(lines[i] ?? '')) hits.push(i);
  const ordered = [
    ...hits.filter((i) => DEFINES.test(lines[i] ?? '')),
    ...hits.filter((i) => !DEFINES.test(lines[i] ?? '')),
  ];
  const ranges: LineRange[] = [];
  for (const i of ordered) {
    const block = enclosingBlock(lines, i);
    if (block.end - block.start < MAX_BLOCK_LINES) ranges.push(block);
    else ranges.push({ start: block.start, end: block.start });
    ranges.push({ start: i, end: i });
  }
  return ranges;
}
