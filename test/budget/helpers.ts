// Shared fixtures for the budget tests: a deterministic counter (one token per
// whitespace-separated word, so budgets are exact and additive), item builders,
// and the real mode plans from rules/modes/.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createTokenCounter, type TokenCounter } from '../../src/budget/index.ts';
import { type ContextItem, MODE_NAMES, type ModeName, type Plan } from '../../src/shared/types.ts';

export function words(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

export function wordCounter(ratio = 1): TokenCounter {
  return createTokenCounter({ estimate: words, ratio });
}

export function item(key: string, text: string, overrides: Partial<ContextItem> = {}): ContextItem {
  return {
    key,
    source: key.split('.')[0] ?? key,
    title: 't',
    text,
    priority: 0,
    kind: 'text',
    ...overrides,
  };
}

/** `count` lines of `wordsPerLine` words each: `L1 x`, `L2 x` … */
export function numberedLines(count: number, wordsPerLine = 2, prefix = 'L'): string {
  return Array.from({ length: count }, (_, i) =>
    [`${prefix}${i + 1}`, ...Array(wordsPerLine - 1).fill('x')].join(' '),
  ).join('\n');
}

/** Fence cost with the word counter: `<context`, `source="…"`, `title="t">`, `</context>`. */
export const FENCE = 4;

export function loadPlans(): Record<ModeName, Plan> {
  const plans = {} as Record<ModeName, Plan>;
  for (const mode of MODE_NAMES) {
    const file = fileURLToPath(new URL(`../../rules/modes/${mode}.json`, import.meta.url));
    plans[mode] = JSON.parse(readFileSync(file, 'utf8')) as Plan;
  }
  return plans;
}
