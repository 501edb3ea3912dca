// Cutting text at line boundaries, always saying what was cut and how to get it.

export interface Capped {
  text: string;
  truncated: boolean;
}

/** Keeps whole lines from the top while they fit in `maxChars`, then a tail line naming the command for the rest. */
export function capHead(text: string, maxChars: number, command: string): Capped {
  if (text.length <= maxChars) return { text, truncated: false };
  // Walked with indexOf rather than split: a diff of a million short lines would be a million strings.
  let keptEnd = 0;
  let size = 0;
  let from = 0;
  for (;;) {
    const newline = text.indexOf('\n', from);
    const lineEnd = newline === -1 ? text.length : newline;
    if (size + (lineEnd - from) + 1 > maxChars) break;
    size += lineEnd - from + 1;
    keptEnd = lineEnd;
    if (newline === -1) break; // not reached: the whole text is longer than maxChars
    from = newline + 1;
  }
  // The loop ends at the first line that does not fit (the whole text does not): the lines not kept are
  // that one, starting at `from`, and one more after each line break past it (as split would count them).
  let more = 1;
  for (let at = text.indexOf('\n', from); at !== -1; at = text.indexOf('\n', at + 1)) more++;
  return { text: `${text.slice(0, keptEnd)}\n… ${more} more lines; run \`${command}\` to see all`, truncated: true };
}

/** Keeps the first `maxLines` lines (code: the head matters). */
export function headLines(text: string, maxLines: number, hint: string): Capped {
  // Walked with indexOf rather than split (here and in tailLines): a file of short lines would be
  // hundreds of thousands of strings, on the event loop, to keep a few hundred.
  let end = -1;
  for (let kept = 0; kept < maxLines; kept++) {
    end = text.indexOf('\n', end + 1);
    if (end === -1) return { text, truncated: false };
  }
  const rest = 1 + breaksIn(text, end + 1, text.length);
  return { text: `${text.slice(0, Math.max(end, 0))}\n… ${rest} more lines (${hint})`, truncated: true };
}

/** Keeps the last `maxLines` lines (logs and test output: the end holds the failure). */
export function tailLines(text: string, maxLines: number, hint: string): Capped {
  let start = text.length;
  for (let kept = 0; kept < maxLines; kept++) {
    start = start > 0 ? text.lastIndexOf('\n', start - 1) : -1;
    if (start === -1) return { text, truncated: false };
  }
  const cut = 1 + breaksIn(text, 0, start);
  return { text: `… ${cut} earlier lines (${hint})\n${text.slice(start + 1)}`, truncated: true };
}

/** Line breaks in text[from, to). */
function breaksIn(text: string, from: number, to: number): number {
  let count = 0;
  for (let at = text.indexOf('\n', from); at !== -1 && at < to; at = text.indexOf('\n', at + 1)) count++;
  return count;
}

/**
 * The lines around the first line holding one of `needles` (`context` on each side, 1-based `start`-`end`), with
 * a line above and below saying how many were left out; undefined when no line holds one.
 */
export function linesAround(
  text: string,
  needles: readonly string[],
  context: number,
): (Capped & { start: number; end: number }) | undefined {
  const found = needles.map((needle) => text.indexOf(needle)).filter((at) => at >= 0);
  if (found.length === 0) return undefined;
  const at = Math.min(...found);
  const lines = text.split('\n');
  const line = breaksIn(text, 0, at);
  const start = Math.max(0, line - context);
  const end = Math.min(lines.length - 1, line + context);
  const before = start > 0 ? [`… ${start} earlier lines`] : [];
  const after = end < lines.length - 1 ? [`… ${lines.length - 1 - end} more lines`] : [];
  return {
    text: [...before, ...lines.slice(start, end + 1), ...after].join('\n'),
    truncated: before.length + after.length > 0,
    start: start + 1,
    end: end + 1,
  };
}
