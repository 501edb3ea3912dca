// Where a keyword-style rule needs to look: the lines around its keywords'
// hits, merged into windows, or the whole text when they would cover most of it.

/** One-line windows closer than this many characters are scanned as one. */
const JOIN_GAP = 256;

/** How far back the line start is searched for character by character before lastIndexOf takes over. */
const BY_HAND_CHARS = 256;

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
    // The line break before the hit, searched for by hand: lastIndexOf is a runtime call, and lines are
    // short. A long line (a blob, minified code) is left to lastIndexOf, which is far faster per character:
    // every keyword group with a hit on a 64K-character line walked it back by hand, 50 ms a piece.
    let lineStart = end - 1;
    const byHand = Math.max(-1, end - 1 - BY_HAND_CHARS);
    while (lineStart > byHand && text.charCodeAt(lineStart) !== 10) lineStart--;
    if (lineStart === byHand && lineStart >= 0) lineStart = text.lastIndexOf('\n', lineStart);
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
