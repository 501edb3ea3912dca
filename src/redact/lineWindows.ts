// Where a keyword-style rule needs to look: the lines around its keywords'
// hits, merged into windows, or the whole text when they would cover most of it.

/** One-line windows closer than this many characters are scanned as one. */
const JOIN_GAP = 256;

export interface Span {
  start: number;
  end: number;
}

/**
 * The lines around each hit (`ends`: sorted), merged: the hit's own line only for a rule whose
 * matches stay on one line (`oneLine`), else the previous, the hit's and the
 * next line. Undefined when that is most of the text anyway. Windows start and
 * end at line breaks, so a one-line regex finds the same there as in the text.
 */
export function lineWindows(text: string, ends: ArrayLike<number>, oneLine: boolean): Span[] | undefined {
  const windows: Span[] = [];
  let last: Span | undefined;
  let covered = 0;
  const half = text.length / 2;
  // The end of the previous hit's line: further hits on that line add nothing, and a long
  // line (bundled JS) with many hits must not be searched for its end once per hit.
  let previousLineEnd = -1;
  for (let h = 0; h < ends.length; h++) {
    const end = ends[h]!;
    if (end <= previousLineEnd) continue;
    const lineEnd = text.indexOf('\n', end);
    previousLineEnd = lineEnd === -1 ? text.length : lineEnd;
    // A hit on a line before the window's last one adds nothing: its next line is inside already.
    if (last && lineEnd !== -1 && lineEnd < last.end) continue;
    // The line break before the hit, searched for by hand: lastIndexOf is a runtime call, and lines are short.
    let lineStart = end - 1;
    while (lineStart >= 0 && text.charCodeAt(lineStart) !== 10) lineStart--;
    let start: number;
    let stop: number;
    if (oneLine) {
      start = lineStart + 1;
      stop = lineEnd === -1 ? text.length : lineEnd;
    } else {
      start = lineStart <= 0 ? 0 : text.lastIndexOf('\n', lineStart - 1) + 1;
      const nextEnd = lineEnd === -1 ? -1 : text.indexOf('\n', lineEnd + 1);
      stop = lineEnd === -1 || nextEnd === -1 ? text.length : nextEnd;
    }
    // Adjacent lines join one window (fewer regex runs; the line break between them stays inside);
    // for a one-line rule, so do lines a few short lines apart: one regex run costs about as much
    // as scanning a few hundred characters, and the lines between are whole lines.
    if (last && start <= last.end + (oneLine ? JOIN_GAP : 1)) {
      covered += Math.max(0, stop - last.end);
      last.end = Math.max(last.end, stop);
    } else {
      last = { start, end: stop };
      windows.push(last);
      covered += stop - start;
    }
    // Coverage only grows: once it is most of the text, the rule scans the whole text (4 in 10 groups).
    if (covered > half) return undefined;
  }
  return windows;
}

/**
 * The sorted hit positions of several keywords (`lists[id]`, each in text order):
 * one keyword's list as it is, several joined and sorted; `null` when one of
 * them was too frequent to list, undefined when none occurs.
 */
export function joinedHits(
  lists: readonly (number[] | null | undefined)[],
  ids: readonly number[],
): ArrayLike<number> | null | undefined {
  let hits: number[] | undefined;
  let joined = false;
  for (let k = 0; k < ids.length; k++) {
    const list = lists[ids[k]!];
    if (list === null) return null;
    if (list === undefined) continue;
    if (hits === undefined) hits = list;
    else {
      if (!joined) hits = hits.slice();
      joined = true;
      for (let h = 0; h < list.length; h++) hits.push(list[h]!);
    }
  }
  // Numerically, natively: a typed array needs no comparator call per step.
  return joined ? new Int32Array(hits!).sort() : hits;
}
