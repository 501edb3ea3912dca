// secretlint's recommended preset as a second guard behind our own rules.
// Only ranges and rule ids are kept: its message text contains the secret.

import { lintSource } from '@secretlint/core';
import { rules as recommendedRules } from '@secretlint/secretlint-rule-preset-recommend';
import type { SecretLintCoreConfig } from '@secretlint/types';
import type { RedactionFinding } from '../shared/types.ts';
import { isPlaceholder, isReference } from './validators.ts';

/**
 * `filter-comments` lets file content switch detection off with
 * `secretlint-disable` comments; a file must not be able to do that.
 */
const DISABLED_RULES = new Set(['@secretlint/secretlint-rule-filter-comments']);

export const secretlintConfig: SecretLintCoreConfig = {
  rules: recommendedRules
    .filter((rule) => !DISABLED_RULES.has(rule.meta.id))
    .map((rule) => ({ id: rule.meta.id, rule })),
};

/**
 * A text that none of this matches cannot produce a secretlint finding: each
 * alternative is a string every rule of the preset needs (aws secret key,
 * GCP JSON, npm, slack, basic auth, OpenAI, Anthropic, Linear, private key,
 * SendGrid, Shopify, GitHub, 1Password, database URLs). Saves the call.
 */
const SECRETLINT_GATE =
  /secret|private_key|private key|x-oauth-basic|_authtoken|npm_|xox|xapp|hooks\.slack|:\/\/[^\s/@]*:[^\s/@]*@|sk-|lin_api_|sg\.|shp(?:pa|ca|at|ss)_|gh[pousr]_|github_pat_|ops_ey|mongodb|mysql|postgres/i;

export function mayHaveSecretlintFinding(text: string): boolean {
  return SECRETLINT_GATE.test(text);
}

/** secretlint's AWS rule reports from the key name, not the value: re-anchor on the 40-character value. */
function reanchor(ruleId: string, text: string, start: number, end: number): [number, number] {
  if (ruleId === '@secretlint/secretlint-rule-aws') {
    const span = text.slice(start, Math.min(text.length, end + 80));
    const value = /[=:>]\s*["']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/.exec(span);
    if (value?.[1]) {
      const at = start + value.index + value[0].length - 40;
      return [at, at + 40];
    }
  }
  return [start, end];
}

export async function secretlintFindings(text: string, path: string | undefined): Promise<RedactionFinding[]> {
  const ext = path?.match(/\.[A-Za-z0-9]+$/)?.[0];
  const result = await lintSource({
    source: {
      content: text,
      filePath: path ?? 'stdin.txt',
      ...(ext ? { ext } : {}),
      contentType: 'text',
    },
    options: { config: secretlintConfig, maskSecrets: true, noPhysicFilePath: path === undefined },
  });
  const findings: RedactionFinding[] = [];
  for (const message of result.messages) {
    const [start, end] = reanchor(message.ruleId, text, message.range[0], message.range[1]);
    // The same placeholder judgement as our rules: `ghp_xxxx…` in a README stays.
    const value = text.slice(start, end);
    if (isPlaceholder(value) || isReference(value)) continue;
    findings.push({ ruleId: shortRuleId(message.ruleId), start, end });
  }
  return findings;
}

/** `@secretlint/secretlint-rule-aws` → `secretlint-aws`. */
function shortRuleId(ruleId: string): string {
  return ruleId.replace(/^@secretlint\/secretlint-rule-/, 'secretlint-');
}
