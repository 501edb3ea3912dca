// Masks a long token whole, whatever its length. Rules read a value up to a
// cap (`{16,4000}`, a JWT payload's `{8,8000}`) so that no pattern runs
// unbounded; a token longer than its rule's cap was masked only up to the cap
// and the rest was forwarded (issue 26). A finding that long, followed
// directly by more of a token's characters, stopped at a cap, not at the
// token's end: it is extended to the end of that run. One pass over the
// characters after each finding, each character looked at once.

import type { RedactionFinding } from '../shared/types.ts';

/** Shorter findings end where their pattern said: only a value this long can have stopped at a cap. */
export const LONG_FINDING_CHARS = 256;

/** Characters of base64, base64url, JWT segments, %-escapes and opaque tokens. */
function isTokenCode(c: number): boolean {
  return (
    (c >= 48 && c <= 57) ||
    (c >= 65 && c <= 90) ||
    (c >= 97 && c <= 122) ||
    c === 45 || // -
    c === 95 || // _
    c === 43 || // +
    c === 47 || // /
    c === 61 || // =
    c === 46 || // .
    c === 126 || // ~
    c === 37 // %
  );
}

/**
 * `merged` sorted and disjoint (mergeFindings' output); returns the same findings with each long one
 * reaching the end of its token run, still sorted and disjoint (a finding that reaches the next merges with it).
 */
export function extendToWholeTokens(text: string, merged: RedactionFinding[]): RedactionFinding[] {
  const out: RedactionFinding[] = [];
  for (const finding of merged) {
    let end = finding.end;
    if (end - finding.start >= LONG_FINDING_CHARS) {
      while (end < text.length && isTokenCode(text.charCodeAt(end))) end++;
    }
    const last = out.at(-1);
    if (last && finding.start <= last.end) last.end = Math.max(last.end, end);
    else out.push(end === finding.end ? finding : { ...finding, end });
  }
  return out;
}
