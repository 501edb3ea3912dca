// The downgrade ladder: requested mode → quick → off. A mode is kept when the
// conversation plus its *smallest useful context* fits; otherwise the next,
// lighter mode is tried.
//
// Smallest useful context of a plan, over the items actually collected: for
// each entry that matched at least one item, its highest-priority item (fence
// included), but never more than a quarter of the entry's cap (a quarter of a
// file still orients the model; less rarely does). Entries with nothing
// collected cost nothing, so a deep request in a repository without a tree or
// instruction files is not downgraded for sources it does not have.
//
// The limit is 80% of the window (the rule), or the usable budget when
// that is tighter (always, with the default 0.75 safety ratio and a reserve):
// a context that cannot fit the usable budget is no use either.

import type { ContextItem, ModeName, Plan } from '../shared/types.ts';
import { entryMatches, fenceTokens } from './contextFit.ts';
import type { TokenCounter } from './tokenCounter.ts';

export const DOWNGRADE_WINDOW_SHARE = 0.8;
/** Share of an entry's cap that counts as its minimum useful size. */
export const MIN_USEFUL_CAP_SHARE = 0.25;

export interface PlanWithDowngradeInput {
  requested: Plan;
  plans: Record<ModeName, Plan>;
  items: ContextItem[];
  conversationTokens: number;
  window: number;
  usable: number;
  counter: TokenCounter;
}

export interface PlanChoice {
  plan: Plan;
  modeUsed: ModeName;
  downgradedFrom?: ModeName | undefined;
  /** One readable ASCII sentence with the numbers (fit for a header). */
  reason?: string | undefined;
}

export function smallestUsefulContext(plan: Plan, items: ContextItem[], counter: TokenCounter): number {
  let total = 0;
  for (const entry of plan.entries) {
    let best: ContextItem | undefined;
    for (const item of items) {
      if (entryMatches(entry, item.key) && (best === undefined || item.priority > best.priority)) best = item;
    }
    if (best === undefined) continue;
    const whole = counter.count(best.text) + fenceTokens(best, counter);
    total += Math.min(whole, Math.ceil(entry.cap * MIN_USEFUL_CAP_SHARE));
  }
  return total;
}

export function downgradeLimit(window: number, usable: number): number {
  return Math.max(0, Math.min(Math.floor(window * DOWNGRADE_WINDOW_SHARE), usable));
}

export function planWithDowngrade(input: PlanWithDowngradeInput): PlanChoice {
  const { requested, plans, items, conversationTokens, window, usable, counter } = input;
  const limit = downgradeLimit(window, usable);
  const ladder: ModeName[] = [requested.mode];
  if (requested.mode !== 'quick' && requested.mode !== 'off') ladder.push('quick');
  if (requested.mode !== 'off') ladder.push('off');

  const sentences: string[] = [];
  for (const mode of ladder) {
    const plan = mode === requested.mode ? requested : plans[mode];
    const needed = smallestUsefulContext(plan, items, counter);
    if (mode === 'off' || conversationTokens + needed <= limit) {
      if (mode === requested.mode) return { plan, modeUsed: mode };
      const target = mode === 'off' ? 'sending no context (off)' : `re-planned in ${mode} mode`;
      return {
        plan,
        modeUsed: mode,
        downgradedFrom: requested.mode,
        reason: `${sentences.join(', and ')}; ${target}.`,
      };
    }
    sentences.push(
      sentences.length === 0
        ? `The conversation (~${conversationTokens} tokens) plus the smallest useful ${mode} context (~${needed} tokens) exceeds the ${limit}-token limit for this model's ${window}-token window`
        : `even the smallest ${mode} context (~${needed} tokens) does not fit`,
    );
  }
  // Unreachable: 'off' always fits (it has no entries).
  return { plan: plans.off, modeUsed: 'off', downgradedFrom: requested.mode };
}
