// A raw prompt (/v1/completions) is the client's own text, sent as it is: it is
// never cut. When it cannot fit the model's window with room for the reply, the
// answer is a 400 with the numbers; when it fits, num_ctx is made large enough
// for it, since Ollama would otherwise cut the prompt's start to its default
// window without a word. The window the model is loaded with is kept when it is
// large enough (a new num_ctx reloads the model, and autocomplete wants speed).

import { ProxyError } from '../shared/errors.ts';
import { chooseNumCtx, DEFAULT_REPLY_RESERVE, NUM_CTX_HEADROOM } from './fit.ts';

/** Below this, Ollama's own default window holds the prompt (its smallest default, older versions'). */
const OLLAMA_DEFAULT_NUM_CTX = 2048;

export interface PromptFitInput {
  /** The prompt and the suffix, counted. */
  promptTokens: number;
  /** Characters of the same, for the "shorten by" figure. */
  promptChars: number;
  window: number;
  /** The client's max_tokens, if any. */
  maxTokens?: number | undefined;
  /** The num_ctx the model is loaded with in this process, if any. */
  loaded?: number | undefined;
}

/** The num_ctx to send (undefined: Ollama's default holds it); throws a 400 context_length_exceeded when it cannot fit. */
export function fitPrompt(input: PromptFitInput): number | undefined {
  const reserve = Math.min(input.maxTokens ?? DEFAULT_REPLY_RESERVE, DEFAULT_REPLY_RESERVE);
  const needed = Math.ceil(input.promptTokens * (1 + NUM_CTX_HEADROOM)) + reserve;
  if (needed > input.window) {
    const over = needed - input.window;
    const perToken = input.promptTokens > 0 ? input.promptChars / input.promptTokens : 4;
    throw new ProxyError(
      400,
      `Your prompt (~${input.promptTokens} tokens) does not fit this model: with room for the reply (${reserve} tokens) and a margin for the model's own count it needs ~${needed}, and the model's window is ${input.window}. Nothing was cut and nothing was sent to the model. Shorten it by at least ~${over} tokens (~${Math.ceil(over * perToken)} characters), or use a model with a larger window.`,
      'invalid_request_error',
      'context_length_exceeded',
      'prompt',
      { hint: PROMPT_HINT },
    );
  }
  if (input.loaded !== undefined && input.loaded >= needed) return input.loaded;
  if (input.loaded === undefined && needed <= OLLAMA_DEFAULT_NUM_CTX) return undefined;
  return chooseNumCtx({ promptTokens: input.promptTokens, reserve, modelMax: input.window });
}

/** What the proxy's log prints for that 400 (its own words only). */
export const PROMPT_HINT =
  "A client's completion prompt is longer than the model's window: a shorter prompt or a model with a larger window; nothing was sent.";
