// A rule as the scanner runs it: compiled from its file by loadRules.ts, read by
// the scanner and by the example checks (ruleExamples.ts), which loadRules.ts
// also calls. Its own module so neither of those two imports the other for it.

import type { RedactionRuleSpec, ValidatorSpec } from './ruleSchema.ts';

export interface CompiledRule {
  id: string;
  /** Global, without indices: finds the matches (most are rejected by the validators). */
  regex: RegExp;
  /** The same pattern, sticky and with indices: run once at an accepted match's start to place its value. */
  indices: RegExp;
  /** The same pattern, sticky: tried only where a match can start, when `starts` says where. */
  sticky: RegExp;
  /** Lower-cased literals every match starts with (matchStarts.ts), if known. */
  starts: string[] | undefined;
  /** Capturing groups outside any lookaround: their text lies in the match's own text. */
  consumed: Set<number | string>;
  /** Lower-cased pre-filter strings. */
  keywords: string[];
  placeholder: string;
  appliesToPath: ((path: string | undefined) => boolean) | undefined;
  valueGroups: (number | string)[];
  validators: ValidatorSpec[];
  shape: RedactionRuleSpec['shape'];
  generic: boolean;
  /**
   * Values its validators accept are classified too (classifyValue.ts), and only literals masked: set
   * for rules that judge references (`not-reference`), the keyword-style ones that find a value by its key,
   * and for base64 values judged by what they decode to (`base64-decoded-not-placeholder`).
   */
  classifies: boolean;
  /** Where the rule is defined (`file: rules[i] (id)`), for messages. */
  where: string;
  examples: { secret: RuleExample[]; keep: RuleExample[] };
}

export interface RuleExample {
  text: string;
  path: string | undefined;
}
