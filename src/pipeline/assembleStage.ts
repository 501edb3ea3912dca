// Stage 5, assemble: the exact request the upstream gets. planTurn already
// placed the context (a carried block is budgeted where it sits, so placing and
// budgeting go together there; the fences themselves are in assemble.ts); this
// stage accounts each part as sent and sets the upstream's own fields.

import { isFunctionTool } from '../shared/chatRequest.ts';
import type { ChatMessage } from '../shared/types.ts';
import { upstreamParams } from './cleanRequest.ts';
import { locateParts } from './contextParts.ts';
import type { Assembled, PipelineDeps, Prepared } from './types.ts';

export async function assemble(
  { input, selected, budgeted }: Omit<Prepared, 'assembled'>,
  deps: PipelineDeps,
): Promise<Assembled> {
  const { budget, messages } = budgeted.turn;
  const parts = locateParts(messages, budgeted.turn.parts, (text) => deps.tokenCounter.count(text));
  // The roles as the model receives them, here and not in the adapters, so the snapshot records
  // exactly that (`developer` is `system`: the role local chat templates know, on either upstream kind).
  const forwarded = messages.map(asModelRole);
  const numCtx = deps.upstream.kind === 'ollama' ? stickyNumCtx(deps, selected.model, budget.numCtx) : undefined;
  return {
    request: {
      model: selected.model,
      messages: forwarded,
      // admit() already left hosted tools out; the filter only narrows the type.
      tools: input.request.tools?.filter(isFunctionTool),
      params: withOutputLimit(upstreamParams(input.request, deps.upstream.kind), budget.outputLimit),
      numCtx,
      think: budget.modeUsed === 'quick' ? false : undefined,
    },
    modeUsed: budget.modeUsed,
    parts,
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
