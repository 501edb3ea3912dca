// The rule files as validated and read (loadRules.ts parseRuleFiles), kept
// next to the compiled code: `npm run build` writes it (writeDerivedRules.ts),
// and a start-up whose rule files are the ones it was written from takes it
// instead of validating every file and reading every pattern again. Any other
// rule files (edited since, another directory, the sources run through tsx)
// are loaded the full way.

import { fileURLToPath } from 'node:url';
import type { ParsedRuleFile, RuleFs } from './loadRules.ts';

export const DERIVED_RULES_FILE = fileURLToPath(new URL('./derivedRules.json', import.meta.url));

export interface DerivedRules {
  key: string;
  files: ParsedRuleFile[];
}

/** The file's content, or undefined when there is none (or it cannot be read: then it is not used). */
export function readDerivedRules(fs: RuleFs): DerivedRules | undefined {
  try {
    const parsed = JSON.parse(fs.readFile(DERIVED_RULES_FILE)) as DerivedRules;
    return typeof parsed.key === 'string' && Array.isArray(parsed.files) ? parsed : undefined;
  } catch {
    return undefined;
  }
}
