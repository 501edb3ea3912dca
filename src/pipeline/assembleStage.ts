// Stage 5, assemble: the exact request the upstream gets. planTurn already
// placed the context (a carried block is budgeted where it sits, so placing and
// budgeting go together there; the fences themselves are in assemble.ts); this
// stage accounts each part as sent, counts the request it sends (sentFigures.ts)
// and sets the upstream's own fields.

import { countedTexts } from '../budget/index.ts';
import { isFunctionTool } from '../shared/chatRequest.ts';
import type { ChatMessage } from '../shared/types.ts';
import { upstreamParams } from './cleanRequest.ts';
import { locateParts } from './contextParts.ts';
import { sentFigures } from './sentFigures.ts';
import type { Assembled, PipelineDeps, Prepared } from './types.ts';

export async function assemble(
  { input, selected, budgeted }: Omit<Prepared, 'assembled'>,
  deps: PipelineDeps,
): Promise<Assembled> {
  const { budget, messages } = budgeted.turn;
  // The roles as the model receives them, here and not in the adapters, so the snapshot records
  // exactly that (`developer` is `system`: the role local chat templates know, on either upstream kind).
  const forwarded = messages.map(asModelRole);
  // admit() already left hosted tools out; the filter only narrows the type.
  const tools = input.request.tools?.filter(isFunctionTool);
  // One counter for every figure of the snapshot: the estimator at ratio 1, with what is sent counted
  // ahead (exactly, before a synchronous count could cache an estimate of a long text).
  const pending = budgeted.turn.parts.map((part) => part.text);
  const counter = await deps.tokenCounter
    .withRatio(1)
    .prepare([...countedTexts(forwarded, tools), ...pending], input.signal);
  const located = locateParts(messages, budgeted.turn.parts, (text) => counter.count(text));
  const parts = located.map((found) => found.part);
  const figures = sentFigures(forwarded, tools, located, counter, budgeted.ratio);
  const numCtx = deps.upstream.kind === 'ollama' ? stickyNumCtx(deps, selected.model, budget.numCtx) : undefined;
  return {
    request: {
      model: selected.model,
      messages: forwarded,
      tools,
      params: withOutputLimit(upstreamParams(input.request, deps.upstream.kind), budget.outputLimit),
      numCtx,
      think: budget.modeUsed === 'quick' ? false : undefined,
    },
    modeUsed: budget.modeUsed,
    parts,
    figures,
  };
}

/** The client's max tokens, lowered to what the window leaves after the prompt (the budget's outputLimit). */
function withOutputLimit(params: Record<string, unknown>, limit: number | undefined): Record<string, unknown> {
  if (limit === undefined) return params;
  const limited = { ...params };
  for (const key of ['max_tokens', 'max_completion_tokens']) {
    if (typeof limited[key] === 'number' && (limited[key] as number) > limit) limited[key] = limit;
  }
  return limited;
}

function asModelRole(message: ChatMessage): ChatMessage {
  return message.role === 'developer' ? { ...message, role: 'system' } : message;
}

/**
 * Ollama reloads a model whenever num_ctx changes. Once a model ran with a
 * window, later smaller requests keep that window (never above the model's
 * maximum, which the budget already respected), so the model stays loaded.
 */
function stickyNumCtx(deps: PipelineDeps, model: string, numCtx: number): number {
  const loaded = deps.loadedNumCtx;
  if (!loaded) return numCtx;
  const chosen = Math.max(numCtx, loaded.get(model) ?? 0);
  loaded.set(model, chosen);
  return chosen;
}
