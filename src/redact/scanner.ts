// Our rules' scanner, composed from its parts: the keyword pass (keywordIndex.ts),
// the scan plan (scanPlan.ts) and the rules' run (scanRules.ts). Each
// optimisation can be turned off: bench/redact measures what each one buys,
// and the differential test compares the scanner with all of them against
// one without any. Turning one off may only cost time, never change a mask.

import type { RedactionFinding } from '../shared/types.ts';
import { GATE_ANCHORS } from './gateAnchors.ts';
import { KeywordIndex } from './keywordIndex.ts';
import type { CompiledRule } from './loadRules.ts';
import { scanPlan } from './scanPlan.ts';
import { type Deadline, scanRules } from './scanRules.ts';

export const OPTIMISATIONS = [
  /** A rule whose matches start with known literals is tried only where they occur (matchStarts.ts). */
  'matchStarts',
  /** A `line` rule whose matches stay on one line scans only its keywords' own lines (lineLocal.ts). */
  'lineLocal',
  /** A `line` rule scans only the lines around its keywords' hits (lineWindows.ts). */
  'lineWindows',
  /** Rules with the same keywords share one list of hits (scanPlan.ts). */
  'scanPlan',
  /** The keyword pass handles a keyword whose positions no rule lists once per scan. */
  'quietStates',
  /** The keyword pass's table has one column per class of characters, not per character. */
  'charClasses',
] as const;
export type Optimisation = (typeof OPTIMISATIONS)[number];

export interface ScanOutcome {
  findings: RedactionFinding[];
  /**
   * Where the secretlint guard's gate anchors end (its lines are where it looks): null when they
   * are too many to list, undefined when none occurs (secretlint then cannot report).
   */
  anchorEnds: number[] | null | undefined;
}

export interface Scanner {
  scan(text: string, path: string | undefined, deadline: Deadline): ScanOutcome;
}

/** The scanner for `rules`, with every optimisation but those in `without`. */
export function createScanner(rules: readonly CompiledRule[], without: readonly Optimisation[] = []): Scanner {
  const on = (optimisation: Optimisation) => !without.includes(optimisation);
  const startsOf = (rule: CompiledRule) => (on('matchStarts') ? rule.starts : undefined);
  const keywords = new KeywordIndex(
    [...rules.flatMap((rule) => rule.keywords), ...GATE_ANCHORS, ...rules.flatMap((rule) => startsOf(rule) ?? [])],
    { classes: on('charClasses'), quiet: on('quietStates') },
  );
  const anchorIds = GATE_ANCHORS.map((anchor) => keywords.idOf(anchor));
  // The gate anchors' hits are listed like a line rule's keywords (one more entry, after the rules'),
  // so that the secretlint guard searches only their lines.
  const { plan, groups } = scanPlan(
    [...rules.map((rule) => rule.keywords.map((k) => keywords.idOf(k))), anchorIds],
    [...rules.map((rule) => on('lineWindows') && rule.scope === 'line'), true],
    rules.map((rule) => startsOf(rule)?.map((literal) => keywords.idOf(literal))),
    keywords.size,
    on('scanPlan'),
  );
  const oneLine = Uint8Array.from(rules, (rule) => (on('lineLocal') && rule.oneLine ? 1 : 0));
  const ruleGroups = { ...groups, oneLine };
  const gateGroup = groups.window[rules.length]!;
  return {
    scan(text, path, deadline) {
      const keywordScan = keywords.scan(text, plan);
      const findings = scanRules(text, keywordScan, path, rules, ruleGroups, deadline);
      return { findings, anchorEnds: keywordScan.ends[gateGroup] };
    },
  };
}
