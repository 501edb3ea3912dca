// The machinery every trimming strategy shares: choose which lines to keep
// (in ranges: a line, a diff hunk, a file header), replace each run of dropped
// lines by one visible marker line, and make sure the result really fits.

import type { TokenCounter } from './tokenCounter.ts';

/** The marker that stands where lines were cut. ASCII digits, one line. */
export function trimMarker(lines: number): string {
  return `… [${lines} ${lines === 1 ? 'line' : 'lines'} trimmed]`;
}

/** A contiguous range of line indices, both ends included. */
export interface LineRange {
  start: number;
  end: number;
}

export interface Selection {
  kept: boolean[];
  /** Ranges in the order they were kept, so the verifier can give back the last ones first. */
  order: LineRange[];
}

export interface SelectOptions {
  costs: number[];
  budget: number;
  markerCost: number;
  /** Stop at the first range that does not fit (keeps a head or tail contiguous). */
  stopAtFirstMiss?: boolean;
}

/** Change in the number of dropped runs (markers) when a range joins the kept lines. */
function gapDelta(kept: boolean[], range: LineRange): number {
  const left = range.start > 0 && !kept[range.start - 1] ? 1 : 0;
  const right = range.end < kept.length - 1 && !kept[range.end + 1] ? 1 : 0;
  return left + right - 1;
}

export function emptySelection(lineCount: number): Selection {
  return { kept: new Array<boolean>(lineCount).fill(false), order: [] };
}

export function countGaps(kept: boolean[]): number {
  let gaps = 0;
  for (let i = 0; i < kept.length; i++) if (!kept[i] && (i === 0 || kept[i - 1])) gaps++;
  return gaps;
}

export function selectionCost(selection: Selection, costs: number[], markerCost: number): number {
  let total = countGaps(selection.kept) * markerCost;
  selection.kept.forEach((keep, i) => {
    if (keep) total += costs[i] ?? 0;
  });
  return total;
}

/** Greedily adds ranges (in the given priority order) while the estimated cost stays within budget. */
export function addRanges(selection: Selection, ranges: LineRange[], options: SelectOptions): void {
  const { costs, budget, markerCost } = options;
  let cost = selectionCost(selection, costs, markerCost);
  for (const range of ranges) {
    if (selection.kept[range.start]) continue;
    let rangeCost = 0;
    for (let i = range.start; i <= range.end; i++) rangeCost += costs[i] ?? 0;
    const next = cost + rangeCost + gapDelta(selection.kept, range) * markerCost;
    if (next > budget) {
      if (options.stopAtFirstMiss) return;
      continue;
    }
    for (let i = range.start; i <= range.end; i++) selection.kept[i] = true;
    selection.order.push(range);
    cost = next;
  }
}

export function renderSelection(
  lines: string[],
  kept: boolean[],
  indentOf: (line: string) => string = () => '',
): { text: string; trimmedLines: number } {
  const out: string[] = [];
  let trimmedLines = 0;
  let i = 0;
  while (i < lines.length) {
    if (kept[i]) {
      out.push(lines[i] ?? '');
      i++;
      continue;
    }
    const start = i;
    while (i < lines.length && !kept[i]) i++;
    trimmedLines += i - start;
    out.push(`${indentOf(lines[start] ?? '')}${trimMarker(i - start)}`);
  }
  return { text: out.join('\n'), trimmedLines };
}

export interface FittedText {
  text: string;
  trimmedLines: number;
  tokens: number;
}

/**
 * Renders the selection and counts it for real; per-line estimates are not
 * exactly additive, so while the text is over budget the last kept ranges are
 * given back (at least as many estimated tokens as the overshoot). Returns null
 * when nothing could be kept.
 */
export function verifySelection(
  lines: string[],
  selection: Selection,
  costs: number[],
  budget: number,
  counter: TokenCounter,
  indentOf?: (line: string) => string,
): FittedText | null {
  for (;;) {
    if (selection.order.length === 0) return null;
    const rendered = renderSelection(lines, selection.kept, indentOf);
    const tokens = counter.count(rendered.text);
    if (tokens <= budget) return { ...rendered, tokens };
    let given = 0;
    while (given < tokens - budget && selection.order.length > 0) {
      const last = selection.order.pop();
      if (!last) break;
      for (let i = last.start; i <= last.end; i++) {
        selection.kept[i] = false;
        given += costs[i] ?? 0;
      }
    }
  }
}

/** Splits into lines, ignoring one trailing newline (it would only add an empty line). */
export function splitLines(text: string): string[] {
  return (text.endsWith('\n') ? text.slice(0, -1) : text).split('\n');
}

/** Per-line costs plus the cost of the widest marker this text could need. */
export function lineCosts(lines: string[], counter: TokenCounter): { costs: number[]; markerCost: number } {
  const costs = counter.countLines(lines.join('\n'));
  const markerCost = counter.count(`${trimMarker(lines.length)}\n`);
  return { costs, markerCost };
}
