// Turns findings into the redacted text: merge what overlaps, replace exactly
// the secret's characters, leave every other byte as it was.

import type { RedactionFinding } from '../shared/types.ts';

function overlaps(a: RedactionFinding, b: RedactionFinding): boolean {
  return a.start < b.end && b.start < a.end;
}

/**
 * secretlint's ranges are often wider than the secret (a whole URL, a whole
 * PEM block with its markers). Where one of our rules already covers that
 * spot, ours is the precise one; secretlint's range is kept only where it
 * found something we did not.
 */
export function combineFindings(ours: RedactionFinding[], guard: RedactionFinding[]): RedactionFinding[] {
  const extra = guard.filter((g) => !ours.some((o) => overlaps(o, g)));
  return [...ours, ...extra];
}

/**
 * Sorted, with overlapping findings merged into one. The merged mask is named
 * after the most specific rule in it (lowest `rank`), else the earliest, widest.
 */
export function mergeFindings(
  findings: RedactionFinding[],
  rank: (ruleId: string) => number = () => 0,
): RedactionFinding[] {
  const sorted = [...findings].sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: RedactionFinding[] = [];
  for (const finding of sorted) {
    const last = merged.at(-1);
    if (last && finding.start < last.end) {
      last.end = Math.max(last.end, finding.end);
      if (rank(finding.ruleId) < rank(last.ruleId)) last.ruleId = finding.ruleId;
    } else {
      merged.push({ ...finding });
    }
  }
  return merged;
}

/** `merged` must be sorted and disjoint (the output of mergeFindings). */
export function applyMasks(
  text: string,
  merged: RedactionFinding[],
  placeholderFor: (ruleId: string) => string,
): string {
  if (merged.length === 0) return text;
  const parts: string[] = [];
  let at = 0;
  for (const finding of merged) {
    parts.push(text.slice(at, finding.start), placeholderFor(finding.ruleId));
    at = finding.end;
  }
  parts.push(text.slice(at));
  return parts.join('');
}
