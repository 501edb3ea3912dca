// Directory trees are collapsed by depth before they are cut: the deepest
// level goes first (one marker per hidden run, indented where the hidden
// lines were), then the next, until the tree fits. If even the top level does
// not fit, its head is kept and the rest becomes one marker.

import { addRanges, countGaps, emptySelection, type LineRange, type Selection } from './lineSelection.ts';

/** Indentation and box-drawing prefix (`│   ├── `, `|-- `, spaces, tabs). */
const PREFIX = /^(?:[ \t│┃|]|[├└┣┗`+][─━-]*[ ]?)*/;

export function treeIndent(line: string): string {
  return PREFIX.exec(line)?.[0] ?? '';
}

/** Depth of each line: the rank of its prefix width among the widths present. */
export function treeDepths(lines: string[]): number[] {
  const widths = lines.map((line) => treeIndent(line).length);
  const levels = [...new Set(widths)].sort((a, b) => a - b);
  return widths.map((width) => levels.indexOf(width));
}

function keptCost(kept: boolean[], costs: number[], markerCost: number): number {
  let total = countGaps(kept) * markerCost;
  kept.forEach((keep, i) => {
    if (keep) total += costs[i] ?? 0;
  });
  return total;
}

export function selectTreeLines(lines: string[], costs: number[], budget: number, markerCost: number): Selection {
  const depths = treeDepths(lines);
  const deepest = Math.max(0, ...depths);
  for (let depth = deepest; depth >= 0; depth--) {
    const kept = depths.map((d) => d <= depth);
    if (keptCost(kept, costs, markerCost) <= budget) {
      // One range per kept line so the verifier can give back the last ones.
      const order: LineRange[] = [];
      kept.forEach((keep, i) => {
        if (keep) order.push({ start: i, end: i });
      });
      return { kept, order };
    }
  }
  const selection = emptySelection(lines.length);
  const topLevel = depths.flatMap((d, i) => (d === 0 ? [{ start: i, end: i }] : []));
  addRanges(selection, topLevel, { costs, budget, markerCost, stopAtFirstMiss: true });
  return selection;
}
