// Stage 4, budget: fit this turn to the model's window. The conversation is
// found by the client's history as sent (conversationPrefix.ts); planTurn
// decides what the turn carries (the frozen block, an update, or a fresh block)
// and budgets it, downgrading the mode when it would not fit.

import { budgetRequest, countedTexts, termsOf } from '../budget/index.ts';
import { isFunctionTool } from '../shared/chatRequest.ts';
import type { ModeName, Plan } from '../shared/types.ts';
import { findState, historyKeysOffLoop, newConversationId } from './conversationPrefix.ts';
import { planTurn } from './planTurn.ts';
import { withoutRepeats } from './repeats.ts';
import type { Budgeted, PipelineDeps, Prepared } from './types.ts';

export async function budget(
  {
    input,
    snapshotId,
    selected,
    collected,
    redacted,
  }: Pick<Prepared, 'input' | 'snapshotId' | 'selected' | 'collected' | 'redacted'>,
  deps: PipelineDeps,
): Promise<Budgeted> {
  const tools = input.request.tools?.filter(isFunctionTool);
  const keys = await historyKeysOffLoop(selected.workspace, input.request.messages);
  // Each piece of context once: not what the client already sent, not a region another item holds.
  const { items, repeats } = withoutRepeats(redacted.items, redacted.messages);
  for (const repeat of repeats) {
    const report = collected.reports.find((r) => r.source === repeat.source);
    // A new list: a source's memoized answer may share its own with later requests.
    if (report) report.skipped = [...report.skipped, { path: repeat.key, reason: `left out: ${repeat.reason}` }];
  }
  const ratio = deps.calibration?.get(selected.model)?.ratio ?? 1;
  // Counted ahead (in the CPU pool when there is much new text), so the synchronous budget below only looks counts up.
  const counter = await deps.tokenCounter
    .withRatio(ratio)
    .prepare(
      [...countedTexts(redacted.messages, tools), ...items.map(({ text, hash }) => (hash ? { text, hash } : text))],
      input.signal,
    );
  const turn = planTurn({
    messages: redacted.messages,
    items,
    plan: selected.plan,
    plans: deps.plans,
    found: findState(deps.conversations, keys, input.request.messages),
    count: (text) => deps.tokenCounter.count(text),
    snapshotId,
    newConversationId: () => newConversationId(keys, snapshotId ?? input.requestId),
    budget: (messages, items) =>
      budgetRequest({
        messages,
        tools,
        items,
        requested: selected.plan,
        plans: deps.plans as Record<ModeName, Plan>,
        window: collected.window.tokens,
        maxTokens: input.request.max_completion_tokens ?? input.request.max_tokens,
        safetyRatio: deps.settings.safetyRatio,
        historyOverflow: deps.settings.historyOverflow,
        counter,
        terms: collected.question ? termsOf(collected.question) : undefined,
      }),
  });
  return { turn, keys, ratio };
}
