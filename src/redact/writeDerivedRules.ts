// Run by `npm run build` on the compiled code: writes derivedRules.json beside
// it for the shipped rules. A rule file that does not load writes nothing
// (start-up then reports it, naming the file and rule).

import { writeFileSync } from 'node:fs';
import { DEFAULT_RULES_DIR } from './createRedactor.ts';
import { DERIVED_RULES_FILE } from './derivedRules.ts';
import { parseRuleFiles, realRuleFs } from './loadRules.ts';

try {
  writeFileSync(DERIVED_RULES_FILE, JSON.stringify(parseRuleFiles(DEFAULT_RULES_DIR, realRuleFs)));
} catch (error) {
  console.error(`derived rules not written: ${(error as Error).message}`);
}
