// Token estimates for everything we forward. gpt-tokenizer's cl100k encoding
// is the estimator (measured faster than o200k on this code, see
// bench/budget/README.md); the per-model calibration ratio scales it towards
// the model's own tokenizer. Raw counts are cached by content hash, so an
// unchanged context item or message is tokenized once, whatever the ratio.

import { createHash } from 'node:crypto';
import { countTokens } from 'gpt-tokenizer/encoding/cl100k_base';
import type { ChatMessage, ToolDefinition } from '../shared/types.ts';
import { LruCache } from './lruCache.ts';

/** Per message: role and the template's start/end markers (ChatML-like templates use 4–5). */
export const MESSAGE_OVERHEAD = 4;
/** The assistant header the template appends after the last message. */
export const REPLY_PRIMING = 3;
/** Per tool call: the call wrapper around name and arguments. */
export const TOOL_CALL_OVERHEAD = 4;
/** The tools preamble a template renders once when tools are present. */
export const TOOLS_OVERHEAD = 10;
/** A flat guess for an image part; vision models vary (LLaVA ~576, Qwen-VL more). */
export const IMAGE_PART_TOKENS = 768;
/** Texts shorter than this are re-tokenized rather than hashed and cached. */
const MIN_CACHED_CHARS = 256;

export interface TokenCounterStats {
  hits: number;
  misses: number;
  entries: number;
}

export interface TokenCounter {
  /** The calibration ratio applied to the estimator's counts. */
  readonly ratio: number;
  /** Calibrated tokens of one text. */
  count(text: string): number;
  /** Calibrated tokens of each line (with its newline), unrounded; used for trimming. */
  countLines(text: string): number[];
  /** Calibrated tokens of the whole forwarded request: messages, tool calls, tool schemas, reply priming. */
  countMessages(messages: ChatMessage[], tools?: ToolDefinition[]): number;
  /** The same counter (sharing its cache) with another calibration ratio, e.g. one per model. */
  withRatio(ratio: number): TokenCounter;
  stats(): TokenCounterStats;
}

export interface TokenCounterOptions {
  ratio?: number | undefined;
  /** Bound of the count cache (entries). */
  maxCacheEntries?: number | undefined;
  /** Replaces the tokenizer (raw tokens of a text); tests pass a deterministic one. */
  estimate?: ((text: string) => number) | undefined;
}

const noSpecialTokens = { disallowedSpecial: new Set<string>() };

/** Raw cl100k count; special-token strings in user text are counted as text, never rejected. */
export function estimateCl100k(text: string): number {
  return text.length === 0 ? 0 : countTokens(text, noSpecialTokens);
}

interface SharedState {
  estimate: (text: string) => number;
  counts: LruCache<number>;
  lineCounts: LruCache<number[]>;
}

export function createTokenCounter(options: TokenCounterOptions = {}): TokenCounter {
  const maxEntries = options.maxCacheEntries ?? 4096;
  const state: SharedState = {
    estimate: options.estimate ?? estimateCl100k,
    counts: new LruCache<number>(maxEntries),
    lineCounts: new LruCache<number[]>(Math.max(16, Math.floor(maxEntries / 8))),
  };
  return counterWithRatio(state, options.ratio ?? 1);
}

function hashOf(text: string): string {
  return createHash('sha1').update(text).digest('base64');
}

function rawCount(state: SharedState, text: string): number {
  if (text.length < MIN_CACHED_CHARS) return state.estimate(text);
  const key = hashOf(text);
  const cached = state.counts.get(key);
  if (cached !== undefined) return cached;
  const value = state.estimate(text);
  state.counts.set(key, value);
  return value;
}

function rawLineCounts(state: SharedState, text: string): number[] {
  const key = hashOf(text);
  const cached = state.lineCounts.get(key);
  if (cached !== undefined) return cached;
  const lines = text.split('\n');
  const value = lines.map((line, index) => state.estimate(index < lines.length - 1 ? `${line}\n` : line));
  state.lineCounts.set(key, value);
  return value;
}

function rawContentCount(state: SharedState, content: ChatMessage['content']): number {
  if (content === null) return 0;
  if (typeof content === 'string') return rawCount(state, content);
  let total = 0;
  for (const part of content) total += part.type === 'text' ? rawCount(state, part.text) : IMAGE_PART_TOKENS;
  return total;
}

function rawMessageCount(state: SharedState, message: ChatMessage): number {
  let total = MESSAGE_OVERHEAD + rawContentCount(state, message.content);
  if (message.name !== undefined) total += 1 + rawCount(state, message.name);
  for (const call of message.tool_calls ?? []) {
    total += TOOL_CALL_OVERHEAD + rawCount(state, call.function.name) + rawCount(state, call.function.arguments);
  }
  return total;
}

function rawToolsCount(state: SharedState, tools: ToolDefinition[] | undefined): number {
  if (tools === undefined || tools.length === 0) return 0;
  // Templates render the schemas as JSON; the serialized form is a fair proxy.
  return TOOLS_OVERHEAD + rawCount(state, JSON.stringify(tools));
}

function counterWithRatio(state: SharedState, ratio: number): TokenCounter {
  if (!(ratio > 0) || !Number.isFinite(ratio)) throw new RangeError(`ratio must be a positive number, got ${ratio}`);
  return {
    ratio,
    count: (text) => Math.ceil(rawCount(state, text) * ratio),
    countLines: (text) => rawLineCounts(state, text).map((raw) => raw * ratio),
    countMessages(messages, tools) {
      let raw = REPLY_PRIMING + rawToolsCount(state, tools);
      for (const message of messages) raw += rawMessageCount(state, message);
      return Math.ceil(raw * ratio);
    },
    withRatio: (next) => counterWithRatio(state, next),
    stats: () => ({
      hits: state.counts.hits + state.lineCounts.hits,
      misses: state.counts.misses + state.lineCounts.misses,
      entries: state.counts.size + state.lineCounts.size,
    }),
  };
}
