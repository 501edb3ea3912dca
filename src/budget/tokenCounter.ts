// Token estimates for everything we forward. gpt-tokenizer's cl100k encoding
// is the estimator (measured faster than o200k on this code, see
// bench/budget/README.md); the per-model calibration ratio scales it towards
// the model's own tokenizer. Raw counts are cached by content hash, so an
// unchanged context item or message is tokenized once, whatever the ratio.
//
// Every count does bounded work (boundedCount.ts). A request's texts are
// counted ahead by `prepare`, so the synchronous budget stage that follows
// only looks counts up. Tokenizing is slow (0.5–2 µs a character, the
// latter on a loaded core), so a request's new texts are counted inline only
// up to POOL_ABOVE_CHARS, and what is left in the CPU pool (countTask.ts,
// the same code with its own cache). A turn's new context
// (~10K characters) is counted inline: the pool's worker loads a tokenizer of
// its own while it lingers. The counting itself is cl100k.ts (gpt-tokenizer's
// counts from a compact table: ~2 MB where the package's encoder took ~15).

import { LRUCache } from 'lru-cache';
import { contentHash } from '../shared/contentHash.ts';
import { type CpuPool, sharedCpuPool, taskModule } from '../shared/cpuPool.ts';
import { TEXT_CACHE_BYTES } from '../shared/textCaches.ts';
import type { ChatMessage, ToolDefinition } from '../shared/types.ts';
import { boundedCount, EXACT_MAX_CHARS, isEstimatedCount, piecewiseCount } from './boundedCount.ts';
import { countCl100k } from './cl100k.ts';

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
  /**
   * Uncalibrated parts of `countMessages`: it is ceil((rawBase + the sum of
   * rawMessage over the messages) x ratio), so callers can add and remove
   * messages in constant time each.
   */
  rawMessage(message: ChatMessage): number;
  rawBase(tools?: ToolDefinition[]): number;
  /** The same counter (sharing its cache) with another calibration ratio, e.g. one per model. */
  withRatio(ratio: number): TokenCounter;
  /**
   * Counts `texts` ahead (in the CPU pool when they hold much new text) and
   * returns a counter (same ratio and cache) that answers them from memory; use
   * it for one request, then drop it. A text given with its contentHash (a
   * context item's `hash`) is looked up in the cache under it, not hashed again.
   */
  prepare(texts: Iterable<string | HashedText>, signal?: AbortSignal): Promise<TokenCounter>;
  /** True when some text counted by this counter was estimated rather than counted exactly. */
  usedEstimate(): boolean;
  stats(): TokenCounterStats;
}

/** A text and its contentHash (shared/contentHash.ts). */
export interface HashedText {
  text: string;
  hash: string;
}

export interface TokenCounterOptions {
  ratio?: number | undefined;
  /** Bound of the count cache (entries). */
  maxCacheEntries?: number | undefined;
  /** Replaces the tokenizer (raw tokens of a text); tests pass a deterministic one. It runs inline (no pool). */
  estimate?: ((text: string) => number) | undefined;
  /** Where `prepare` counts much new text: the process's CPU pool by default; `false` counts inline (the pool's own worker). */
  pool?: CpuPool | false | undefined;
  /** Characters `prepare` counts inline before it sends the rest to the pool; default POOL_ABOVE_CHARS. */
  inlineCountChars?: number | undefined;
}

function exactCl100k(text: string): number {
  return text.length === 0 ? 0 : countCl100k(text);
}

/** Raw cl100k count with bounded work; special-token strings in user text are counted as text, never rejected. */
export function estimateCl100k(text: string): number {
  return boundedCount(text, exactCl100k);
}

/**
 * Counts a few texts so that V8 compiles the tokenizer's Unicode regexes now:
 * the first count of a text with a character above U+00FF (a `…` in a capped
 * diff, any accent beyond Latin-1) compiles their two-byte code, a noticeable
 * pause inside whichever request has it first. One-byte, two-byte and
 * a long run (the chunking regex).
 */
export function warmTokenizer(): void {
  for (const text of ['warm up', 'warm … up', `${'w'.repeat(LONG_RUN_WARM)} …`]) estimateCl100k(text);
}
const LONG_RUN_WARM = 200;

interface SharedState {
  estimate: (text: string) => number;
  /** Whether `estimate` gives an estimate (not the exact count) for a text. */
  approximate: (text: string) => boolean;
  /** Raw counts by content hash (an estimate stored negative). */
  counts: LRUCache<string, number>;
  /** Per-line counts by content hash, sized by the bytes of their arrays. */
  lineCounts: LRUCache<string, number[]>;
  cacheUse: { hits: number; misses: number };
  /** One request's counts (from `prepare`): every text, short ones too, looked up without hashing. */
  local?: Map<string, number> | undefined;
  /** Set once a count of this view was an estimate. */
  estimated: { value: boolean };
  /** The exact count of a long text in pieces (cl100k only; a test's estimator has none). */
  piecewise?: ((text: string) => { count: number; estimated: boolean }) | undefined;
  /** Where `prepare` sends much new text (cl100k only: a test's estimator cannot be sent to a worker). */
  pool?: CpuPool | undefined;
  inlineCountChars: number;
}

/** Longer texts are sampled, never counted whole: a long run of base64 takes seconds to count. */
const PIECEWISE_MAX_CHARS = 256 * 1024;
/**
 * Characters of long texts (over EXACT_MAX_CHARS) one `prepare` counts exactly, piece by piece; after
 * them, long texts are sampled. About a second of tokenizing, in the pool; a count, not a time, so the
 * same texts get the same counts wherever they are counted.
 */
const PREPARE_EXACT_BUDGET_CHARS = 1 << 20;
/**
 * The new texts of a `prepare` are counted inline, in order, while their characters add up to at most this;
 * from the first that does not fit, in the CPU pool. 8 ms at the warm tokenizer's 0.5 µs a character
 * (measured at load 18 on this 2-core machine), 16 ms at 1 µs: under the 20 ms a request may hold the loop
 * (bench/stall). A turn's new context (one item of 8-10K characters in bench/overhead/rss.ts) then starts
 * no worker. A count (not a time), so where a request's texts are counted does not depend on the load.
 */
export const POOL_ABOVE_CHARS = 16 * 1024;
/** Texts hashed on the event loop to look their counts up (sha256 runs at ~1 GB/s: a few ms); past this, the pool hashes. */
const HASH_INLINE_MAX_CHARS = 4 << 20;
/** Generous: counting a 10 MB body of short messages takes seconds; this only bounds a worker gone wrong. */
const POOL_LIMIT_MS = 60_000;

export function createTokenCounter(options: TokenCounterOptions = {}): TokenCounter {
  return counterWithRatio(createState(options), options.ratio ?? 1);
}

function createState(options: TokenCounterOptions): SharedState {
  const maxEntries = options.maxCacheEntries ?? 4096;
  return {
    estimate: options.estimate ?? estimateCl100k,
    approximate: options.estimate ? () => false : isEstimatedCount,
    piecewise: options.estimate ? undefined : (text) => piecewiseCount(text, exactCl100k),
    pool: options.estimate || options.pool === false ? undefined : (options.pool ?? sharedCpuPool()),
    inlineCountChars: options.inlineCountChars ?? POOL_ABOVE_CHARS,
    estimated: { value: false },
    counts: new LRUCache<string, number>({ max: maxEntries }),
    lineCounts: new LRUCache<string, number[]>({
      max: Math.max(16, Math.floor(maxEntries / 8)),
      maxSize: LINE_COUNTS_MAX_BYTES,
      // A number array costs 8 bytes an element plus its header; the key is a 64-character hash.
      sizeCalculation: (value) => 64 + value.length * 8,
    }),
    cacheUse: { hits: 0, misses: 0 },
  };
}

/** Line counts of long texts (a 10,000-line file holds 80 KB of them). */
const LINE_COUNTS_MAX_BYTES = TEXT_CACHE_BYTES.lineCounts;

function cachedValue<V extends {}>(state: SharedState, cache: LRUCache<string, V>, key: string): V | undefined {
  const value = cache.get(key);
  if (value === undefined) state.cacheUse.misses++;
  else state.cacheUse.hits++;
  return value;
}

// The count cache holds estimates as negative numbers, so a later hit still says it was one.
function rawCount(state: SharedState, text: string): number {
  const local = state.local?.get(text);
  if (local !== undefined) return local;
  if (!cachedByHash(text)) {
    if (state.approximate(text)) state.estimated.value = true;
    return state.estimate(text);
  }
  const key = contentHash(text);
  const cached = cachedValue(state, state.counts, key);
  if (cached !== undefined) {
    if (cached < 0) state.estimated.value = true;
    return Math.abs(cached);
  }
  const value = state.estimate(text);
  const estimated = state.approximate(text);
  if (estimated) state.estimated.value = true;
  state.counts.set(key, estimated ? -value : value);
  return value;
}

/** A text for `prepare`, with the content hash it is cached under when known. */
export interface TextToCount {
  text: string;
  hash?: string | undefined;
}

/** Its raw count (negative when estimated, as the cache stores it) and the hash it was cached under, if any. */
export interface TextCount {
  raw: number;
  hash?: string | undefined;
}

/** Whether a text is cached by hash: short ones are cheaper to count than to hash, very long ones are sampled. */
function cachedByHash(text: string): boolean {
  return text.length >= MIN_CACHED_CHARS && text.length <= PIECEWISE_MAX_CHARS;
}

/**
 * Counts one text without yielding: a long one (4K-256K characters) exactly, piece by piece, while the
 * request's PREPARE_EXACT_BUDGET_CHARS last, then sampled. What `prepare` runs inline, and the CPU pool's
 * worker runs for the rest (countTask.ts): the same counts either way.
 */
function countOne(state: SharedState, { text, hash }: TextToCount, exactBudget: { left: number }): TextCount {
  if (!cachedByHash(text)) return { raw: signed(state, text, state.estimate(text)) };
  const key = hash ?? contentHash(text);
  const cached = cachedValue(state, state.counts, key);
  if (cached !== undefined) return { raw: cached, hash: key };
  let raw: number;
  if (state.piecewise && text.length > EXACT_MAX_CHARS && text.length <= exactBudget.left) {
    exactBudget.left -= text.length;
    const { count, estimated } = state.piecewise(text);
    raw = estimated ? -count : count;
  } else raw = signed(state, text, state.estimate(text));
  state.counts.set(key, raw);
  return { raw, hash: key };
}

/** A count as the cache stores it: negative when it is an estimate. */
function signed(state: SharedState, text: string, count: number): number {
  return state.approximate(text) ? -count : count;
}

/**
 * A cl100k counter's `countOne` for many texts, with its own cache: the pool worker's (countTask.ts). `exactLeft`: what is
 * left of the exact-count budget after the texts counted inline before these.
 */
export function createCountAll(): (texts: readonly TextToCount[], exactLeft?: number) => TextCount[] {
  const state = createState({ pool: false });
  return (texts, exactLeft = PREPARE_EXACT_BUDGET_CHARS) => {
    const exactBudget = { left: exactLeft };
    return texts.map((entry) => countOne(state, entry, exactBudget));
  };
}

const countTask = taskModule('countTask', import.meta.url);

async function prepareCounts(
  state: SharedState,
  texts: Iterable<string | HashedText>,
  signal?: AbortSignal,
): Promise<SharedState> {
  const local = new Map<string, number>();
  const view: SharedState = { ...state, local: undefined, estimated: { value: false } };
  // What is not known yet: looked up by hash here while hashing is cheap, counted below.
  const unknown: TextToCount[] = [];
  let hashedChars = 0;
  for (const entry of texts) {
    const [text, given] = typeof entry === 'string' ? [entry, undefined] : [entry.text, entry.hash];
    if (local.has(text)) continue;
    let hash = given;
    if (hash === undefined && cachedByHash(text) && hashedChars + text.length <= HASH_INLINE_MAX_CHARS) {
      hashedChars += text.length;
      hash = contentHash(text);
    }
    // Misses are counted where the text is counted (countOne).
    const cached = hash === undefined ? undefined : view.counts.get(hash);
    if (cached !== undefined) {
      view.cacheUse.hits++;
      local.set(text, cached);
      continue;
    }
    // A placeholder, so a repeated text is counted once.
    local.set(text, 0);
    unknown.push({ text, hash });
  }
  for (const [i, { raw, hash }] of (await countSomewhere(view, unknown)).entries()) {
    local.set((unknown[i] as TextToCount).text, raw);
    if (hash !== undefined) view.counts.set(hash, raw);
  }
  signal?.throwIfAborted();
  for (const [text, raw] of local) {
    if (raw < 0) view.estimated.value = true;
    local.set(text, Math.abs(raw));
  }
  view.local = local;
  return view;
}

/**
 * Inline, in order, while they add up to POOL_ABOVE_CHARS; from the first text that does not fit, in the
 * pool: so also a text too long to count whole (its samples are no cheaper to tokenize than the text:
 * base64 takes ~5 µs a character, 20 ms for the samples of one). The pool's part
 * starts with what the inline part left of the exact-count budget, so the counts are the same wherever the
 * split falls; all inline when the pool failed.
 */
async function countSomewhere(state: SharedState, texts: TextToCount[]): Promise<TextCount[]> {
  const exactBudget = { left: PREPARE_EXACT_BUDGET_CHARS };
  const counted: TextCount[] = [];
  let inlineLeft = state.inlineCountChars;
  let next = 0;
  for (; next < texts.length; next++) {
    const entry = texts[next] as TextToCount;
    if (state.pool && entry.text.length > inlineLeft) break;
    inlineLeft -= entry.text.length;
    counted.push(countOne(state, entry, exactBudget));
  }
  if (next === texts.length || !state.pool) return counted;
  const args = [texts.slice(next), exactBudget.left];
  try {
    counted.push(
      ...(await state.pool.run<TextCount[]>({ module: countTask, name: 'countTexts', args }, POOL_LIMIT_MS)),
    );
  } catch {
    // A worker that could not start or died: counting here holds the loop, but the request still gets its figures.
    for (; next < texts.length; next++) counted.push(countOne(state, texts[next] as TextToCount, exactBudget));
  }
  return counted;
}

function rawLineCounts(state: SharedState, text: string): number[] {
  const key = contentHash(text);
  const cached = cachedValue(state, state.lineCounts, key);
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

/** Serialized once per tools array: a request counts its tools several times. */
const toolsJson = new WeakMap<ToolDefinition[], string>();

/** The text the tools are counted as (templates render the schemas as JSON; the serialized form is a fair proxy). */
export function toolsText(tools: ToolDefinition[]): string {
  let text = toolsJson.get(tools);
  if (text === undefined) {
    text = JSON.stringify(tools);
    toolsJson.set(tools, text);
  }
  return text;
}

function rawToolsCount(state: SharedState, tools: ToolDefinition[] | undefined): number {
  if (tools === undefined || tools.length === 0) return 0;
  return TOOLS_OVERHEAD + rawCount(state, toolsText(tools));
}

/** Every text `countMessages` counts for these messages and tools (for `prepare`). */
export function* countedTexts(messages: readonly ChatMessage[], tools?: ToolDefinition[]): Generator<string> {
  if (tools !== undefined && tools.length > 0) yield toolsText(tools);
  for (const message of messages) {
    if (typeof message.content === 'string') yield message.content;
    else if (Array.isArray(message.content))
      for (const part of message.content) if (part.type === 'text') yield part.text;
    if (message.name !== undefined) yield message.name;
    for (const call of message.tool_calls ?? []) {
      yield call.function.name;
      yield call.function.arguments;
    }
  }
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
    rawMessage: (message) => rawMessageCount(state, message),
    rawBase: (tools) => REPLY_PRIMING + rawToolsCount(state, tools),
    withRatio: (next) => counterWithRatio(state, next),
    prepare: async (texts, signal) => counterWithRatio(await prepareCounts(state, texts, signal), ratio),
    usedEstimate: () => state.estimated.value,
    stats: () => ({
      hits: state.cacheUse.hits,
      misses: state.cacheUse.misses,
      entries: state.counts.size + state.lineCounts.size,
    }),
  };
}
