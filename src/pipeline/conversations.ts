// Per-conversation state, so that turn N+1's forwarded messages begin with
// turn N's byte for byte (what lets Ollama reuse its prompt cache).
//
// A conversation is identified by its history. The client resends its own
// messages, never our additions, so every turn's key is a hash chain over the
// client's messages (as sent) with the workspace: after turn N answers, its
// state is stored under the key of turn N's messages plus the assistant reply,
// which is exactly what the client sends before its next user message. Two
// chats that open alike part at their first different reply; an edited or
// branched history matches only the turn it still begins with. States are never
// changed once stored: each turn stores a new one.

import { createHash, type Hash } from 'node:crypto';
import { setImmediate } from 'node:timers/promises';
import { LRUCache } from 'lru-cache';
import { messageText } from '../shared/messageText.ts';
import type { ChatMessage, ContextItem, ContextPartSource, ModeName, SnapshotReply } from '../shared/types.ts';

/** Where a carried piece of context was first sent. */
export interface ContextOrigin {
  /** The snapshot of the request that first forwarded it (absent in previews). */
  snapshotId?: string | undefined;
  /** 1-based turn of the conversation. */
  turn: number;
}

/** A `<context-update>` attachment and the client message it is attached to. */
export interface CarriedAttachment {
  /** Index in the client's message list. */
  index: number;
  text: string;
  sources: ContextPartSource[];
  origin: ContextOrigin;
}

export interface ConversationState {
  /** Stable across the turns of one conversation: the audit groups snapshots by it. */
  conversationId: string;
  /** The mode the block was planned in. */
  blockMode: ModeName;
  /** The context block frozen at the conversation's first turn (or its last re-plan); '' when none. */
  contextBlock: string;
  blockSources: ContextPartSource[];
  blockOrigin: ContextOrigin;
  /** Item keys carried in the block and the attachments: a lighter mode must not carry them. */
  carriedKeys: readonly string[];
  /** What the model has already been shown: item key → hash of its text. */
  known: ReadonlyMap<string, string>;
  attachments: readonly CarriedAttachment[];
  /** Turns answered so far in this conversation. */
  turns: number;
}

/** One message as the key sees it: role, text and tool calls (not their ids, which clients may rewrite). */
function canonical(message: ChatMessage): string {
  const calls = (message.tool_calls ?? []).map((call) => [call.function.name, call.function.arguments]);
  return JSON.stringify([message.role, contentKey(message.content), calls]);
}

function contentKey(content: ChatMessage['content']): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  if (content.every((part) => part.type === 'text')) return messageText({ content });
  return JSON.stringify(content);
}

function extend(key: string, message: ChatMessage): string {
  return createHash('sha256').update(key).update('\n').update(canonical(message)).digest('hex');
}

/** Characters hashed between yields: ~1 MB of hashing is a few milliseconds. */
const SLICE_CHARS = 1 << 20;
/** What one message costs besides its text (a hash of its own), in the same units. */
const MESSAGE_COST = 256;

function workspaceKey(workspace: string): string {
  return createHash('sha256').update('ctxproxy-conversation\0').update(workspace).digest('hex');
}

/** keys[k] is the key of the first k messages; keys[0] is the workspace alone. */
export function historyKeys(workspace: string, messages: readonly ChatMessage[]): string[] {
  const keys = [workspaceKey(workspace)];
  for (const message of messages) keys.push(extend(keys[keys.length - 1] as string, message));
  return keys;
}

/**
 * The same keys as historyKeys, hashed in slices that yield to the event loop:
 * a 10 MB message (or 100,000 small ones) would otherwise hold every other
 * request for the whole JSON.stringify and sha256 of the history.
 */
export async function historyKeysInSlices(workspace: string, messages: readonly ChatMessage[]): Promise<string[]> {
  const keys = [workspaceKey(workspace)];
  let sinceYield = 0;
  const pause = async (cost: number) => {
    sinceYield += cost;
    if (sinceYield < SLICE_CHARS) return;
    sinceYield = 0;
    await setImmediate();
  };
  for (const message of messages) {
    const hash = createHash('sha256')
      .update(keys[keys.length - 1] as string)
      .update('\n');
    const content = contentKey(message.content);
    if (content.length <= SLICE_CHARS) {
      hash.update(canonical(message));
    } else {
      // canonical(message), written in parts: `[role,"content",calls]` with the content escaped slice by slice.
      const calls = (message.tool_calls ?? []).map((call) => [call.function.name, call.function.arguments]);
      hash.update(`[${JSON.stringify(message.role)},"`);
      await updateEscaped(hash, content, pause);
      hash.update(`",${JSON.stringify(calls)}]`);
    }
    keys.push(hash.digest('hex'));
    await pause(MESSAGE_COST + Math.min(content.length, SLICE_CHARS));
  }
  return keys;
}

/** Hashes JSON.stringify(text) without its quotes, slice by slice; never cuts a surrogate pair (it would be escaped). */
async function updateEscaped(hash: Hash, text: string, pause: (cost: number) => Promise<void>): Promise<void> {
  for (let start = 0; start < text.length; ) {
    let end = Math.min(text.length, start + SLICE_CHARS);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    hash.update(JSON.stringify(text.slice(start, end)).slice(1, -1));
    start = end;
    await pause(SLICE_CHARS);
  }
}

/**
 * The keys the client's next turn will begin with: this turn's messages plus
 * the reply it got (what the client echoes), and this turn's messages alone
 * (for clients that rewrite the reply they show; the longer key is tried first).
 */
export function keysAfterReply(keys: readonly string[], reply: SnapshotReply): string[] {
  const toolCalls = reply.toolCalls?.length ? reply.toolCalls : undefined;
  const assistant: ChatMessage = { role: 'assistant', content: reply.content, tool_calls: toolCalls };
  const last = keys[keys.length - 1] as string;
  return [extend(last, assistant), last];
}

/** The state stored for the longest proper prefix of the history, and that prefix's length. */
export function findState(
  cache: ConversationCache,
  keys: readonly string[],
): { state: ConversationState; length: number } | undefined {
  for (let length = keys.length - 2; length >= 1; length--) {
    const state = cache.get(keys[length] as string);
    if (state) return { state, length };
  }
  return undefined;
}

export function newConversationId(keys: readonly string[], requestId: string): string {
  return createHash('sha256')
    .update(keys[keys.length - 1] ?? '')
    .update('\0')
    .update(requestId)
    .digest('hex')
    .slice(0, 24);
}

export function itemHash(item: ContextItem): string {
  return createHash('sha256').update(item.title).update('\0').update(item.text).digest('hex').slice(0, 32);
}

/** Items that are new or changed since the model last saw them. The env item's clock always changes: not news. */
/** Roughly the bytes a state holds: its texts (a character a byte, as V8 keeps most of them) and the hashes it knows. */
function stateBytes(state: ConversationState | 'ambiguous'): number {
  if (state === 'ambiguous') return 64;
  let bytes = 256 + state.contextBlock.length;
  for (const attachment of state.attachments) bytes += attachment.text.length;
  for (const [key, hash] of state.known) bytes += key.length + hash.length;
  return bytes;
}

export function changedItems(known: ReadonlyMap<string, string>, items: readonly ContextItem[]): ContextItem[] {
  return items.filter((item) => item.source !== 'env' && known.get(item.key) !== itemHash(item));
}

/**
 * A bounded map from history key to state, least recently used first out,
 * bounded by keys and by the bytes of the text the states hold (a context
 * block each). Two conversations that store a state under the same key (two
 * chats that opened alike and got the same reply) cannot be told apart: the
 * key then holds neither, and their next turns start fresh rather than share context.
 */
export class ConversationCache {
  readonly #states: LRUCache<string, ConversationState | 'ambiguous'> | undefined;

  /** `capacity` 0 remembers nothing (every turn starts fresh). */
  constructor(capacity = 1000, maxBytes = 64 * 1024 * 1024) {
    this.#states =
      capacity > 0 ? new LRUCache({ max: capacity, maxSize: maxBytes, sizeCalculation: stateBytes }) : undefined;
  }

  get(key: string): ConversationState | undefined {
    const state = this.#states?.get(key);
    return state === 'ambiguous' ? undefined : state;
  }

  set(key: string, state: ConversationState): void {
    const previous = this.#states?.peek(key);
    const shared =
      previous !== undefined && (previous === 'ambiguous' || previous.conversationId !== state.conversationId);
    this.#states?.set(key, shared ? 'ambiguous' : state);
  }

  get size(): number {
    return this.#states?.size ?? 0;
  }
}
