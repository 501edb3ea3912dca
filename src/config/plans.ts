// Mode plans are data (rules/modes/*.json), validated at start-up so that a bad
// plan fails the boot, not a request. The result is frozen: plans are immutable.

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { MODE_NAMES, type ModeName, type Plan } from '../shared/types.ts';
import { describeIssues } from '../shared/zodIssues.ts';

const planSchema = z
  .object({
    mode: z.enum(MODE_NAMES),
    description: z.string().min(1),
    entries: z.array(
      z
        .object({
          items: z
            .string()
            .regex(/^[a-z][a-z-]*(\.[\w./@-]*)?$/, 'an item key or key prefix such as "git." or "git.status"'),
          weight: z.number().positive(),
          cap: z.number().int().positive(),
        })
        .strict(),
    ),
  })
  .strict();

export const DEFAULT_MODES_DIR = fileURLToPath(new URL('../../rules/modes/', import.meta.url));

export function loadPlans(dir: string = DEFAULT_MODES_DIR): Readonly<Record<ModeName, Plan>> {
  const plans: Partial<Record<ModeName, Plan>> = {};
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.json'))) {
    const full = path.join(dir, file);
    let data: unknown;
    try {
      data = JSON.parse(readFileSync(full, 'utf8'));
    } catch (error) {
      throw new Error(`mode plan ${full} is not valid JSON: ${(error as Error).message}`);
    }
    const parsed = planSchema.safeParse(data);
    if (!parsed.success) {
      throw new Error(`mode plan ${full}: ${describeIssues(parsed.error, 'plan', 1)}`);
    }
    if (`${parsed.data.mode}.json` !== file) throw new Error(`mode plan ${full} declares mode "${parsed.data.mode}"`);
    plans[parsed.data.mode] = deepFreeze(parsed.data);
  }
  const missing = MODE_NAMES.filter((mode) => !plans[mode]);
  if (missing.length > 0) throw new Error(`mode plans missing in ${dir}: ${missing.join(', ')}`);
  return Object.freeze(plans as Record<ModeName, Plan>);
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
