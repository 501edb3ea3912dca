// Diffs are trimmed whole hunks at a time: a half hunk misleads more than a
// missing one. Every file's header (`diff --git`, `index`, `---`, `+++`) is
// kept first so the model still sees which files changed (the files the
// question names first); then the hunks that mention the question's terms, or
// belong to a file it names; then the other hunks in order, each taken only
// if it fits whole (a later, smaller hunk may still fit).

import { addRanges, emptySelection, type LineRange, type Selection } from './lineSelection.ts';

export interface DiffFile {
  header: LineRange | null;
  hunks: LineRange[];
}

/** Splits a unified diff into files (at `diff --git`) and hunks (at `@@`). */
export function parseDiff(lines: string[]): DiffFile[] {
  const files: DiffFile[] = [];
  let file: DiffFile | null = null;
  let hunk: LineRange | null = null;
  lines.forEach((line, i) => {
    if (line.startsWith('diff --git ') || file === null) {
      file = { header: { start: i, end: i }, hunks: [] };
      files.push(file);
      hunk = null;
      if (line.startsWith('@@')) {
        file.header = null;
        hunk = { start: i, end: i };
        file.hunks.push(hunk);
      }
      return;
    }
    if (line.startsWith('@@')) {
      hunk = { start: i, end: i };
      file.hunks.push(hunk);
    } else if (hunk !== null) hunk.end = i;
    else if (file.header !== null) file.header.end = i;
  });
  return files;
}

function mentions(lines: string[], range: LineRange, matches: (text: string) => boolean): boolean {
  for (let i = range.start; i <= range.end; i++) if (matches(lines[i] ?? '')) return true;
  return false;
}

export function selectDiffLines(
  lines: string[],
  costs: number[],
  budget: number,
  markerCost: number,
  matches: (text: string) => boolean = () => false,
): Selection {
  const files = parseDiff(lines);
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
