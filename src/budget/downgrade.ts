// The downgrade ladder, one rung at a time:
//
// 1. the requested mode, when the whole conversation plus its smallest useful
//    context fits the limit;
// 2. quick, when the whole conversation plus quick's smallest useful context
//    fits (no turn is ever dropped to keep a mode heavier than quick);
// 3. quick, with the oldest turns left out (one marker where they were) until
//    quick's essentials fit: instruction files, the branch, named files;
// 4. off, only when the latest turn alone leaves no room for them; then the
//    conversation only has to fit the usable budget, as in off mode.
//
// Smallest useful context of a plan, over the items actually collected: for
// each entry that matched at least one item, its highest-priority item (fence
// included), but never more than a quarter of the entry's cap (a quarter of a
// file still orients the model; less rarely does). Entries with nothing
// collected cost nothing, so a deep request in a repository without a tree or
// instruction files is not downgraded for sources it does not have.
//
// The limit is 80% of the window (the issue's rule), or the usable budget when
// that is tighter (always, with the default 0.75 safety ratio and a reserve):
// a context that cannot fit the usable budget is no use either.

import { ContextLengthError } from '../shared/errors.ts';
import type { ChatMessage, ContextItem, ModeName, Plan, ToolDefinition } from '../shared/types.ts';
import { entryMatches, fenceTokens } from './contextFit.ts';
import { type FitConversationResult, fitConversation, type HistoryOverflow } from './conversation.ts';
import type { TokenCounter } from './tokenCounter.ts';

export const DOWNGRADE_WINDOW_SHARE = 0.8;
/** Share of an entry's cap that counts as its minimum useful size. */
export const MIN_USEFUL_CAP_SHARE = 0.25;

export interface PlanWithDowngradeInput {
  /** The client's messages (redacted, context not yet assembled). */
  messages: ChatMessage[];
  tools?: ToolDefinition[] | undefined;
  requested: Plan;
  plans: Record<ModeName, Plan>;
  items: ContextItem[];
  window: number;
  usable: number;
  counter: TokenCounter;
  overflow?: HistoryOverflow | undefined;
  /** Tokens the assembler adds once around a non-empty context block. */
  blockOverhead?: number | undefined;
}

export interface PlanChoice {
  plan: Plan;
  modeUsed: ModeName;
  /** The conversation to forward (oldest turns replaced by a marker when rung 3 or 4 dropped any). */
  conversation: FitConversationResult;
  downgradedFrom?: ModeName | undefined;
  /** One readable ASCII sentence with the numbers (fit for a header). */
  reason?: string | undefined;
  /** Set when turns were dropped to keep quick's essentials (rung 3), with the numbers. */
  droppedForContext?: { quickTokens: number; limit: number } | undefined;
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
  const { requested, plans, items, window, usable, counter, messages, tools } = input;
  const overflow = input.overflow ?? 'drop-oldest';
  const fitTo = (budget: number) => fitConversation({ messages, tools, usable: budget, counter, overflow, window });
  if (requested.mode === 'off') return { plan: requested, modeUsed: 'off', conversation: fitTo(usable) };

  const limit = downgradeLimit(window, usable);
  const overhead = input.blockOverhead ?? 0;
  const needOf = (plan: Plan) => {
    const needed = smallestUsefulContext(plan, items, counter);
    return needed > 0 ? needed + overhead : 0;
  };
  const tokens = counter.countMessages(messages, tools);
  const whole: FitConversationResult = { messages, droppedMessages: 0, tokens };
  const needed = needOf(requested);
  if (tokens + needed <= limit) return { plan: requested, modeUsed: requested.mode, conversation: whole };

  const from = requested.mode === 'quick' ? undefined : requested.mode;
  const quick = plans.quick;
  const quickNeeded = from === undefined ? needed : needOf(quick);
  const over = `The conversation (~${tokens} tokens) plus the smallest useful ${requested.mode} context (~${needed} tokens) exceeds the ${limit}-token limit for this model's ${window}-token window`;
  // Rung 2: the whole conversation with quick's context.
  if (from !== undefined && tokens + quickNeeded <= limit) {
    return {
      plan: quick,
      modeUsed: 'quick',
      conversation: whole,
      downgradedFrom: from,
      reason: `${over}; re-planned in quick mode.`,
    };
  }
  // Rung 3: the oldest turns go so that quick's essentials fit.
  const dropped = overflow === 'drop-oldest' ? tryFit(() => fitTo(limit - quickNeeded)) : undefined;
  if (dropped !== undefined) {
    const n = dropped.droppedMessages;
    const left = `the ${n === 1 ? 'oldest message' : `${n} oldest messages`} left out to keep`;
    const reason =
      from === undefined
        ? `${over}; ${left} it.`
        : `${over}; re-planned in quick mode and ${left} its ~${quickNeeded}-token context.`;
    return {
      plan: quick,
      modeUsed: 'quick',
      conversation: dropped,
      downgradedFrom: from,
      reason,
      droppedForContext: { quickTokens: quickNeeded, limit },
    };
  }
  // Rung 4: the latest turn alone leaves no room (or turns may not be dropped); fitConversation throws
  // ContextLengthError when it does not fit even without context.
  const conversation = fitTo(usable);
  const why =
    overflow === 'drop-oldest'
      ? `even the latest turn with the smallest quick context (~${quickNeeded} tokens) does not fit`
      : `even the smallest quick context (~${quickNeeded} tokens) does not fit, and historyOverflow "error" keeps every turn`;
  return {
    plan: plans.off,
    modeUsed: 'off',
    conversation,
    downgradedFrom: requested.mode,
    reason: `${over}, and ${why}; sending no context (off).`,
  };
}

function tryFit(fit: () => FitConversationResult): FitConversationResult | undefined {
  try {
    return fit();
  } catch (error) {
    if (error instanceof ContextLengthError) return undefined;
    throw error;
  }
}
