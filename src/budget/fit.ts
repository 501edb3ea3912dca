// The budget arithmetic, plus the fitting steps re-exported from their files
// so the pipeline can import the whole stage from one place.

export { type FitContextInput, type FitContextResult, fenceTokens, fitContext } from './contextFit.ts';
export {
  droppedMessagesMarker,
  type FitConversationInput,
  type FitConversationResult,
  fitConversation,
  type HistoryOverflow,
} from './conversation.ts';
export { type PlanChoice, type PlanWithDowngradeInput, planWithDowngrade, smallestUsefulContext } from './downgrade.ts';

export const DEFAULT_SAFETY_RATIO = 0.75;
export const DEFAULT_REPLY_RESERVE = 1024;

export interface BudgetInput {
  window: number;
  safetyRatio?: number | undefined;
  /** The request's max_tokens / max_completion_tokens, if any. */
  maxTokens?: number | null | undefined;
}

export interface Budget {
  window: number;
  safetyRatio: number;
  /** Tokens kept for the reply. */
  reserve: number;
  /** Tokens the prompt (conversation + context) may use. */
  usable: number;
  /** Set when the requested max tokens was larger than half the safe window and the reserve was capped. */
  reserveCappedFrom?: number | undefined;
}

/**
 * usable = floor(window × safetyRatio) − reserve, where reserve is the
 * request's max tokens, else 1,024. A reserve larger than half the safe window
 * (a client asking max_tokens 8192 of an 8,192 window) is capped there: the
 * reply may then stop with finish_reason "length", visibly, instead of every
 * request failing.
 */
export function computeBudget(input: BudgetInput): Budget {
  const safetyRatio = input.safetyRatio ?? DEFAULT_SAFETY_RATIO;
  if (!(safetyRatio > 0 && safetyRatio <= 1)) throw new RangeError(`safetyRatio must be in (0, 1], got ${safetyRatio}`);
  if (!(input.window > 0)) throw new RangeError(`window must be positive, got ${input.window}`);
  const safe = Math.floor(input.window * safetyRatio);
  const asked = input.maxTokens ?? DEFAULT_REPLY_RESERVE;
  const reserve = Math.min(asked, Math.floor(safe / 2));
  const budget: Budget = { window: input.window, safetyRatio, reserve, usable: safe - reserve };
  if (reserve < asked) budget.reserveCappedFrom = asked;
  return budget;
}

/** The sizes num_ctx is rounded up to, so Ollama does not reload the model for every new size. */
export const NUM_CTX_STEPS = [2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144, 524288, 1048576] as const;
/** Extra room over the estimate for the model's own tokenizer counting more than ours. */
export const NUM_CTX_HEADROOM = 0.1;

export interface NumCtxInput {
  promptTokens: number;
  reserve: number;
  /** The model's maximum context (its window, or a configured smaller one). */
  modelMax: number;
  headroom?: number | undefined;
}

/** ≥ prompt × (1 + headroom) + reserve, rounded up to the next fixed step, never above the model's maximum. */
export function chooseNumCtx(input: NumCtxInput): number {
  const needed = Math.ceil(input.promptTokens * (1 + (input.headroom ?? NUM_CTX_HEADROOM))) + input.reserve;
  const step = NUM_CTX_STEPS.find((size) => size >= needed) ?? needed;
  return Math.max(1, Math.min(step, Math.floor(input.modelMax)));
}
