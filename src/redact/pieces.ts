// Where a large text is cut for scanning in pieces. One scan of a
// multi-megabyte base64 blob is seconds of synchronous regex work; in pieces of PIECE_CHARS, with
// the event loop free between them, other requests wait one piece at most.
//
// Pieces overlap by OVERLAP_CHARS, so any match of up to that length (context
// included: a key name before its value, a PEM block's BEGIN and END lines)
// lies whole inside at least one piece; a match cut at a piece's edge is
// found whole in its neighbour and the two ranges merge. A cut prefers a line
// break near its target, so line-anchored rules see whole lines; a line longer
// than the search distance (minified code, a blob) is cut where it must be,
// which can only add matches (a `^` at a cut), never lose one shorter than
// the overlap.

export const PIECE_CHARS = 64 * 1024;
/** Longer than any secret with its context: an RSA-4096 PEM block is ~3.3K characters. */
export const OVERLAP_CHARS = 8 * 1024;
/** Texts up to this length are scanned whole, as before. */
export const WHOLE_SCAN_MAX = 2 * PIECE_CHARS;
const LINE_SEARCH = 4 * 1024;

export interface Piece {
  start: number;
  end: number;
}

/** Just after the last line break in [target - LINE_SEARCH, target), else target. */
function cutBefore(text: string, target: number): number {
  // Searched in a slice: lastIndexOf on the whole text would run back to its start on a text without breaks.
  const from = Math.max(0, target - LINE_SEARCH);
  const newline = text.slice(from, target).lastIndexOf('\n');
  return newline >= 0 ? from + newline + 1 : target;
}

/** Just after the first line break in [target, target + LINE_SEARCH), else target. */
function cutAfter(text: string, target: number): number {
  const newline = text.slice(target, target + LINE_SEARCH).indexOf('\n');
  return newline >= 0 ? target + newline + 1 : target;
}

/** Overlapping pieces covering `text`, in order. */
export function pieces(text: string): Piece[] {
  const out: Piece[] = [];
  let start = 0;
  while (start < text.length) {
    if (text.length - start <= PIECE_CHARS + OVERLAP_CHARS) {
      out.push({ start, end: text.length });
      break;
    }
    const next = cutBefore(text, start + PIECE_CHARS);
    // At least OVERLAP_CHARS past the next piece's start: the guarantee above needs it.
    out.push({ start, end: Math.min(text.length, cutAfter(text, next + OVERLAP_CHARS)) });
    start = next;
  }
  return out;
}
