// Our rules' scanner: the keyword pass (keywordIndex.ts), then each rule whose
// keywords occur (scanRules.ts). One optimisation is switchable: bench/redact
// measures what it buys, and the differential test compares the scanner with
// it against one without (the keyword filter, then a whole-text search).
// Turning it off may only cost time, never change a mask. Others that did not
// pay (line windows, grouped hit lists, the pass's compressed table) are gone:
// bench/redact/README.md has their figures.

import type { KeptValue, RedactionFinding } from '../shared/types.ts';
import type { CompiledRule } from './compiledRule.ts';
import { GATE_ANCHORS } from './gateAnchors.ts';
import { KeywordIndex } from './keywordIndex.ts';
import { type Deadline, scanRules } from './scanRules.ts';

export const OPTIMISATIONS = [
  /** A rule whose matches start with known literals is tried only where they occur (matchStarts.ts). */
  'matchStarts',
] as const;
export type Optimisation = (typeof OPTIMISATIONS)[number];

export interface ScanOutcome {
  findings: RedactionFinding[];
  /** Candidates our rules left alone, and why (classifyValue.ts). */
  kept: KeptValue[];
  /** Where the secretlint guard's gate anchors start (their lines are where it looks); undefined when none occurs. */
  anchorStarts: number[] | undefined;
}

export interface Scanner {
  scan(text: string, path: string | undefined, deadline: Deadline): ScanOutcome;
  /**
   * The regex each rule searches with (its sticky form where its match starts are known, its global form
   * otherwise): what a warm-up compiles. The `d` form runs only at an accepted match and is left to compile then.
   */
  readonly searchRegexes: readonly RegExp[];
}

/** The scanner for `rules`, with every optimisation but those in `without`. */
export function createScanner(rules: readonly CompiledRule[], without: readonly Optimisation[] = []): Scanner {
  const startsOf = (rule: CompiledRule) => (without.includes('matchStarts') ? undefined : rule.starts);
  const keywords = new KeywordIndex([
    ...rules.flatMap((rule) => rule.keywords),
    ...GATE_ANCHORS,
    ...rules.flatMap((rule) => startsOf(rule) ?? []),
  ]);
  const keywordIds = rules.map((rule) => rule.keywords.map((k) => keywords.idOf(k)));
  // Hit lists: list r for rule r's start literals, list rules.length for the gate anchors (the
  // secretlint guard looks only at their lines).
  const lists: number[][] = Array.from({ length: keywords.size }, () => []);
  rules.forEach((rule, r) => {
    for (const literal of new Set(startsOf(rule))) lists[keywords.idOf(literal)]!.push(r);
  });
  for (const anchor of GATE_ANCHORS) lists[keywords.idOf(anchor)]!.push(rules.length);
  const plan = { starts: lists.map((l) => (l.length > 0 ? l : undefined)), listCount: rules.length + 1 };
  const withStarts = Uint8Array.from(rules, (rule) => (startsOf(rule) ? 1 : 0));
  return {
    // A getter: the sticky forms are made on first use (a one-shot command never needs most of them).
    get searchRegexes() {
      return rules.map((rule, r) => (withStarts[r] === 1 ? rule.sticky : rule.regex));
    },
    scan(text, path, deadline) {
      const keywordScan = keywords.scan(text, plan);
      const kept: KeptValue[] = [];
      const findings = scanRules(text, keywordScan, path, rules, keywordIds, withStarts, deadline, kept);
      return { findings, kept, anchorStarts: keywordScan.starts[rules.length] };
    },
  };
}
