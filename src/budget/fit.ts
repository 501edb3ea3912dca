// The budget arithmetic, plus the fitting steps re-exported from their files
// so the pipeline can import the whole stage from one place.

export { fitContext } from './contextFit.ts';
export { droppedMessagesMarker, fitConversation } from './conversation.ts';
export { planWithDowngrade, smallestUsefulContext } from './downgrade.ts';

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
  /** Tokens kept for the reply while the prompt is fitted: the client's max tokens, at most 1,024. */
  reserve: number;
  /** Tokens the prompt (conversation + context) may use. */
  usable: number;
  /** The client's max tokens: a ceiling for the reply (see outputLimit), not room taken from the prompt. */
  asked?: number | undefined;
}

/**
 * usable = floor(window × safetyRatio) − reserve, where reserve is the
 * request's max tokens but never more than 1,024 (nor half the safe window):
 * the reply reserve is a ceiling, not a claim on the window. A client asking
 * max_tokens 32768 of a 32,768 window (Qwen Code does, opencode asks 32000)
 * gets its prompt fitted first; the reply then gets what is left (outputLimit).
 */
export function computeBudget(input: BudgetInput): Budget {
  const safetyRatio = input.safetyRatio ?? DEFAULT_SAFETY_RATIO;
  if (!(safetyRatio > 0 && safetyRatio <= 1)) throw new RangeError(`safetyRatio must be in (0, 1], got ${safetyRatio}`);
  if (!(input.window > 0)) throw new RangeError(`window must be positive, got ${input.window}`);
  const safe = Math.floor(input.window * safetyRatio);
  const asked = input.maxTokens ?? undefined;
  const reserve = Math.min(asked ?? DEFAULT_REPLY_RESERVE, DEFAULT_REPLY_RESERVE, Math.floor(safe / 2));
  const budget: Budget = { window: input.window, safetyRatio, reserve, usable: safe - reserve };
  if (asked !== undefined) budget.asked = asked;
  return budget;
}

export interface OutputLimitInput {
  /** The client's max tokens; undefined: no limit is set (the upstream stops at the end of num_ctx). */
  asked: number | undefined;
  /** The estimated prompt, the larger of the calibrated and the raw count. */
  promptTokens: number;
  numCtx: number;
  headroom?: number | undefined;
}

/**
 * The reply's limit to send upstream (num_predict / max_tokens): what num_ctx leaves after the prompt
 * and its headroom, never more than the client asked, never below 1.
 */
export function outputLimit(input: OutputLimitInput): number | undefined {
  if (input.asked === undefined) return undefined;
  const prompt = Math.ceil(input.promptTokens * (1 + (input.headroom ?? NUM_CTX_HEADROOM)));
  return Math.max(1, Math.min(input.asked, Math.floor(input.numCtx) - prompt));
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
