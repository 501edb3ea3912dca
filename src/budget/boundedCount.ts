// Bounded-cost token counts. gpt-tokenizer's byte-pair merge is quadratic in
// the length of one pre-tokenizer piece (a run of letters, of punctuation or
// of whitespace: a long run of one letter takes seconds), and even linear
// counting is slow on random letters or base64. gpt-tokenizer 4.0 has no
// option for either, so every count here does a bounded amount of work:
//
// - runs longer than LONG_RUN characters are counted in LONG_RUN-sized chunks
//   (merges across a chunk edge are lost: within 1 % on random letters);
// - texts longer than EXACT_MAX_CHARS are not counted whole: SAMPLES windows
//   spread over the text are, and their tokens per character scale to the
//   whole length (rounded up, plus a small margin, since a short count would
//   make the model's window too small).
//
// Either way the count is an estimate, and `isEstimatedCount` says so (the
// budget report carries it). Worst case per call: a few thousand characters
// tokenized, whatever the input.
//
// `piecewiseCount` is the exact alternative for long texts when the caller can
// wait: it counts in pieces cut at line breaks (the token counter's `prepare`
// does, in the CPU pool for long texts, within a budget of characters).

/** Runs of one pre-tokenizer class longer than this are chunked. */
export const LONG_RUN = 128;
/** Texts up to this length are counted (with long runs chunked); longer ones are sampled. */
export const EXACT_MAX_CHARS = 4_096;
const SAMPLES = 8;
const SAMPLE_CHARS = 512;
/** Sampled counts are scaled up by this margin: an undercount costs more than an overcount. */
const SAMPLE_MARGIN = 1.05;

/** The pieces cl100k's pre-tokenizer never splits: letters, punctuation, whitespace. */
const longRun = new RegExp(`\\p{L}{${LONG_RUN + 1},}|[^\\s\\p{L}\\p{N}]{${LONG_RUN + 1},}|\\s{${LONG_RUN + 1},}`, 'gu');

function hasLongRun(text: string): boolean {
  longRun.lastIndex = 0;
  return longRun.test(text);
}

/** True when `boundedCount` gives an estimate for this text rather than the tokenizer's exact count. */
export function isEstimatedCount(text: string): boolean {
  return text.length > EXACT_MAX_CHARS || hasLongRun(text);
}

/** Counts `text` with `exact`, never handing it a long run whole. */
function chunkedCount(text: string, exact: (text: string) => number): number {
  let total = 0;
  let from = 0;
  longRun.lastIndex = 0;
  for (let match = longRun.exec(text); match !== null; match = longRun.exec(text)) {
    if (match.index > from) total += exact(text.slice(from, match.index));
    const run = match[0];
    for (let i = 0; i < run.length; i += LONG_RUN) total += exact(run.slice(i, i + LONG_RUN));
    from = match.index + run.length;
  }
  if (from < text.length) total += exact(text.slice(from));
  return total;
}

/** Token count of `text` with bounded work; `exact` is the tokenizer (cl100k). */
export function boundedCount(text: string, exact: (text: string) => number): number {
  if (text.length === 0) return 0;
  if (text.length <= EXACT_MAX_CHARS) return chunkedCount(text, exact);
  let sampledChars = 0;
  let sampledTokens = 0;
  const step = (text.length - SAMPLE_CHARS) / (SAMPLES - 1);
  for (let k = 0; k < SAMPLES; k++) {
    const start = Math.floor(k * step);
    const sample = text.slice(start, start + SAMPLE_CHARS);
    sampledChars += sample.length;
    sampledTokens += chunkedCount(sample, exact);
  }
  return Math.ceil((sampledTokens / sampledChars) * text.length * SAMPLE_MARGIN);
}

/** Where the next piece ends: after a line break close before `target`, else at `target` (then the count is an estimate). */
function pieceEnd(text: string, start: number): { end: number; atBreak: boolean } {
  const target = start + EXACT_MAX_CHARS;
  if (target >= text.length) return { end: text.length, atBreak: true };
  const window = text.slice(start + EXACT_MAX_CHARS / 2, target);
  const newline = window.lastIndexOf('\n');
  return newline >= 0
    ? { end: start + EXACT_MAX_CHARS / 2 + newline + 1, atBreak: true }
    : { end: target, atBreak: false };
}

/**
 * The count of a long text in pieces of at most EXACT_MAX_CHARS cut at line
 * breaks (a line break ends a pre-tokenizer piece, so the sum is the count);
 * `estimated` when a piece had to be cut inside a line or held a long run.
 */
export function piecewiseCount(text: string, exact: (text: string) => number): { count: number; estimated: boolean } {
  let count = 0;
  let estimated = false;
  for (let start = 0; start < text.length; ) {
    const { end, atBreak } = pieceEnd(text, start);
    const piece = text.slice(start, end);
    if (!atBreak || hasLongRun(piece)) estimated = true;
    count += chunkedCount(piece, exact);
    start = end;
  }
  return { count, estimated };
}
