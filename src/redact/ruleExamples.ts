// Every rule proves itself on its own examples (rules/redaction/*.json
// `examples`): each `secret` text is caught by the rule, each `keep` text is
// not. Run through the real scanner, with every other rule loaded beside it,
// so that the keyword pass, the scan plan and the line windows take part.

import type { RedactionFinding } from '../shared/types.ts';
import type { CompiledRule, RuleExample } from './loadRules.ts';

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
