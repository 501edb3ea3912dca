// Diffs are trimmed whole hunks at a time: a half hunk misleads more than a
// missing one. Every file's header (`diff --git`, `index`, `---`, `+++`) is
// kept first so the model still sees which files changed (the files the
// question names first); then the hunks that mention the question's terms, or
// belong to a file it names; then the other hunks in order, each taken only
// if it fits whole (a later, smaller hunk may still fit). Files and hunks are
// the segments the diff's source set on the item: it rendered the diff, so
// nothing here parses it again.

import type { Segment } from '../shared/types.ts';
import { addRanges, emptySelection, type LineRange, type Selection } from './lineSelection.ts';

interface DiffFile {
  header: LineRange | null;
  hunks: LineRange[];
}

/** The files of a diff from its source's segments: a header starts a file, hunks follow it. */
function filesOf(segments: readonly Segment[], lineCount: number): DiffFile[] {
  const files: DiffFile[] = [];
  for (const segment of segments) {
    // Within the lines, whatever the segments say: they come with the item.
    if (segment.start > segment.end || segment.start >= lineCount) continue;
    const range = { start: Math.max(0, segment.start), end: Math.min(segment.end, lineCount - 1) };
    const file = files.at(-1);
    if (segment.kind === 'header' || file === undefined) {
      files.push(segment.kind === 'header' ? { header: range, hunks: [] } : { header: null, hunks: [range] });
    } else file.hunks.push(range);
  }
  return files;
}

function mentions(lines: string[], range: LineRange, matches: (text: string) => boolean): boolean {
  for (let i = range.start; i <= range.end; i++) if (matches(lines[i] ?? '')) return true;
  return false;
}

export function selectDiffLines(
  lines: string[],
  segments: readonly Segment[],
  costs: number[],
  budget: number,
  markerCost: number,
  matches: (text: string) => boolean = () => false,
): Selection {
  const files = filesOf(segments, lines.length);
  const selection = emptySelection(lines.length);
  const named = files.filter((file) => file.header !== null && mentions(lines, file.header, matches));
  const byRelevance = [...named, ...files.filter((file) => !named.includes(file))];
  const headers = byRelevance.flatMap((file) => (file.header ? [file.header] : []));
  addRanges(selection, headers, { costs, budget, markerCost, stopAtFirstMiss: true });
  // Hunks only under a header that made it: an orphan hunk names no file.
  const hunks = files.flatMap((file) => (file.header === null || selection.kept[file.header.start] ? file.hunks : []));
  const first = new Set([
    ...named.flatMap((file) => file.hunks),
    ...hunks.filter((hunk) => mentions(lines, hunk, matches)),
  ]);
  const ordered = [...hunks.filter((hunk) => first.has(hunk)), ...hunks.filter((hunk) => !first.has(hunk))];
  addRanges(selection, ordered, { costs, budget, markerCost });
  return selection;
}
