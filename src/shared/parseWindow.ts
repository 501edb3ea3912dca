// The part of a message that the parsers read (stack traces, path mentions,
// the auto mode's error check). They are linear, but a multi-megabyte paste
// would still hold the event loop for seconds; a question's
// trace and the files it names sit at its start or its end, so the head and
// the tail are enough. The message itself is forwarded whole; only what is
// parsed for context is bounded.

/** Characters read from each end of a longer text. */
export const PARSE_EDGE_CHARS = 64 * 1024;

/** `text` when short; else its first and last PARSE_EDGE_CHARS, cut at line breaks, joined by one. */
export function parseWindow(text: string, edge = PARSE_EDGE_CHARS): string {
  if (text.length <= 2 * edge) return text;
  // Searched within the slices: a search over the whole text would be the cost this avoids.
  const head = text.slice(0, edge);
  const headEnd = head.lastIndexOf('\n');
  const tail = text.slice(text.length - edge);
  const tailStart = tail.indexOf('\n');
  return `${headEnd > 0 ? head.slice(0, headEnd) : head}\n${tailStart >= 0 ? tail.slice(tailStart + 1) : tail}`;
}
