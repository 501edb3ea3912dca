// Run by `npm run build` on the compiled code. First it checks every shipped
// rule against its own examples (each `secret` caught under the rule's id, each
// `keep` left alone, no pattern that matches the empty string): a rule file
// that fails stops the build (and so `npm ci`) with one line per failure naming
// the file and the rule. Start-up skips that check for the shipped rules (it
// compiles every pattern); the build and the tests run it. Then it writes
// derivedRules.json beside the compiled code for a faster start.

import { writeFileSync } from 'node:fs';
import { createRedactor, DEFAULT_RULES_DIR } from './createRedactor.ts';
import { DERIVED_RULES_FILE } from './derivedRules.ts';
import { parseRuleFiles, RuleLoadError, realRuleFs } from './loadRules.ts';

try {
  await createRedactor({ checkExamples: true, secretlint: false });
} catch (error) {
  const lines = error instanceof RuleLoadError ? error.message.split('\n') : [(error as Error).message];
  for (const line of lines) console.error(`ctxproxy build: ${line}`);
  process.exit(1);
}

try {
  writeFileSync(DERIVED_RULES_FILE, JSON.stringify(parseRuleFiles(DEFAULT_RULES_DIR, realRuleFs)));
} catch (error) {
  console.error(`derived rules not written: ${(error as Error).message}`);
}
