// Which conversation a request continues, found by its history alone: the
// hash-chain keys over the client's messages (see conversations.ts for why),
// the state stored for exactly the messages before this turn, and the key the
// next turn will arrive under.
// Pure: no I/O, and the map of states comes in (ConversationStore).

import { createHash, type Hash } from 'node:crypto';
import { setImmediate } from 'node:timers/promises';
import { messageText } from '../shared/messageText.ts';
import type { ChatMessage, SnapshotReply } from '../shared/types.ts';
import type { ConversationState } from './conversations.ts';

/** Where states are kept between turns (ConversationCache in the server). */
export interface ConversationStore {
  get(key: string): ConversationState | undefined;
  /** `undefined`: a turn with no state reached this history. */
  set(key: string, state: ConversationState | undefined): void;
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

/** Characters hashed between yields: a slice short enough that other requests barely wait. */
const SLICE_CHARS = 1 << 20;
/** What one message costs besides its text (a hash of its own), in the same units. */
const MESSAGE_COST = 256;

/** The last workspace's key: a server answers for one workspace nearly always, and this is a hash per request. */
let lastWorkspace: { workspace: string; key: string } | undefined;

function workspaceKey(workspace: string): string {
  if (lastWorkspace?.workspace === workspace) return lastWorkspace.key;
  const key = createHash('sha256').update('ctxproxy-conversation\0').update(workspace).digest('hex');
  lastWorkspace = { workspace, key };
  return key;
}

/** keys[k] is the key of the first k messages; keys[0] is the workspace alone. */
export function historyKeys(workspace: string, messages: readonly ChatMessage[]): string[] {
  const keys = [workspaceKey(workspace)];
  for (const message of messages) keys.push(extend(keys[keys.length - 1] as string, message));
  return keys;
}

/**
 * The same keys as historyKeys, hashed in slices that yield to the event loop:
 * a multi-megabyte message (or a hundred thousand small ones) would otherwise hold every other
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

/** The key the client's next turn arrives under: this turn's messages plus the reply it got, as the client echoes it. */
export function keyAfterReply(keys: readonly string[], reply: SnapshotReply): string {
  const toolCalls = reply.toolCalls?.length ? reply.toolCalls : undefined;
  const assistant: ChatMessage = { role: 'assistant', content: reply.content, tool_calls: toolCalls };
  return extend(keys[keys.length - 1] as string, assistant);
}

/**
 * How many of the messages came before this turn: everything up to the last
 * assistant message (a reply the model gave), not counting assistant messages
 * at the very end (a prefill is part of this turn). 0 for a first turn.
 */
export function earlierLength(messages: readonly ChatMessage[]): number {
  let end = messages.length;
  while (end > 0 && messages[end - 1]?.role === 'assistant') end--;
  let earlier = end;
  while (earlier > 0 && messages[earlier - 1]?.role !== 'assistant') earlier--;
  return earlier;
}

/**
 * The state of the conversation whose history is exactly this request's
 * earlier messages, and their count. Only that one: a state stored for a
 * shorter prefix belongs to a history that went on otherwise (another reply,
 * another chat that opened alike), and a first turn has no history to continue.
 */
export function findState(
  cache: ConversationStore,
  keys: readonly string[],
  messages: readonly ChatMessage[],
): { state: ConversationState; length: number } | undefined {
  const length = earlierLength(messages);
  if (length < 1 || length > keys.length - 2) return undefined;
  const state = cache.get(keys[length] as string);
  return state ? { state, length } : undefined;
}

export function newConversationId(keys: readonly string[], requestId: string): string {
  return createHash('sha256')
    .update(keys[keys.length - 1] ?? '')
    .update('\0')
    .update(requestId)
    .digest('hex')
    .slice(0, 24);
}

/**
 * After the reply: the next turn's state under the key that turn arrives with. A turn that carries
 * no state (mode off from the start) still claims its key, so that another chat reaching the same
 * history cannot be continued as if it were this one (ConversationCache.set).
 */
export function rememberTurn(
  store: ConversationStore,
  keys: readonly string[],
  reply: SnapshotReply,
  next: ConversationState | undefined,
): void {
  store.set(keyAfterReply(keys, reply), next);
}
