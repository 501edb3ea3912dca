// Every rule proves itself on its own examples (rules/redaction/*.json
// `examples`): each `secret` text is caught by the rule, each `keep` text is
// not. Run through the real scanner, with every other rule loaded beside it,
// so that the keyword pass, the scan plan and the line windows take part.

import type { RedactionFinding } from '../shared/types.ts';
import type { CompiledRule, RuleExample } from './compiledRule.ts';
import { acceptsValue } from './validators.ts';

export type ExampleScan = (text: string, path: string | undefined) => readonly RedactionFinding[];

/** Failure lines name the example only by its start: enough to find it in the file. */
function clip(example: RuleExample): string {
  const text = example.text.length > 60 ? `${example.text.slice(0, 60)}…` : example.text;
  return JSON.stringify(text) + (example.path ? ` at ${example.path}` : '');
}

/** One line per example its rule gets wrong, naming the file, the rule and the example. */
export function exampleFailures(rules: readonly CompiledRule[], scan: ExampleScan): string[] {
  const failures: string[] = [];
  for (const rule of rules) {
    const mine = (example: RuleExample) => scan(example.text, example.path).some((f) => f.ruleId === rule.id);
    rule.examples.secret.forEach((example, i) => {
      if (!mine(example)) {
        failures.push(`${rule.where}.examples.secret[${i}]: not masked as [REDACTED:${rule.id}]: ${clip(example)}`);
      }
    });
    rule.examples.keep.forEach((example, i) => {
      if (mine(example)) {
        failures.push(
          `${rule.where}.examples.keep[${i}]: masked as [REDACTED:${rule.id}], must stay: ${clip(example)}`,
        );
      }
    });
  }
  return failures;
}

/**
 * Each rule scanned alone on its `keep` examples (issue 26 point 4): a keep example must stay because the
 * rule itself leaves it, not because another rule took the spot first. `scanAlone(rule)` gives a scan
 * with only that rule loaded. One line per keep example the rule masks on its own.
 */
export function keepAloneFailures(
  rules: readonly CompiledRule[],
  scanAlone: (rule: CompiledRule) => ExampleScan,
): string[] {
  const failures: string[] = [];
  for (const rule of rules) {
    if (rule.examples.keep.length === 0) continue;
    const scan = scanAlone(rule);
    rule.examples.keep.forEach((example, i) => {
      if (scan(example.text, example.path).some((f) => f.ruleId === rule.id)) {
        failures.push(
          `${rule.where}.examples.keep[${i}]: masked as [REDACTED:${rule.id}] when the rule runs alone (another rule hides it): ${clip(example)}`,
        );
      }
    });
  }
  return failures;
}

/**
 * The part of the examples check that start-up can afford: each `secret` example holds one of its
 * rule's keywords, applies to the rule's paths, and the rule's own pattern finds a value there that its
 * validators accept. Without the other rules, so a `keep` example (which may be left alone only because
 * a more specific rule takes the spot) is judged by the tests alone. One line per failing example.
 */
export function ownPatternFailures(rules: readonly CompiledRule[]): string[] {
  const failures: string[] = [];
  for (const rule of rules) {
    rule.examples.secret.forEach((example, i) => {
      const problem = ownPatternProblem(rule, example);
      if (problem) failures.push(`${rule.where}.examples.secret[${i}]: ${problem}: ${clip(example)}`);
    });
  }
  return failures;
}

function ownPatternProblem(rule: CompiledRule, example: RuleExample): string | undefined {
  if (rule.appliesToPath && !rule.appliesToPath(example.path)) return "its path is not among the rule's paths";
  const lower = example.text.toLowerCase();
  if (!rule.keywords.some((keyword) => lower.includes(keyword))) return "holds none of the rule's keywords";
  const regex = new RegExp(rule.regex.source, rule.regex.flags);
  for (const match of example.text.matchAll(regex)) {
    for (const group of rule.valueGroups) {
      const value = typeof group === 'number' ? match[group] : match.groups?.[group];
      if (value === undefined) continue;
      const context = { bare: group === 'bare' || group === 'bq', envStyle: group === 'envval' };
      if (value.length > 0 && acceptsValue(value, rule.validators, context)) return undefined;
      break;
    }
  }
  return "the rule's own pattern finds no value its validators accept";
}
