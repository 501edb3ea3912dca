// Which conversation a request continues, found by its history alone: the
// hash-chain keys over the client's messages (see conversations.ts for why),
// the state stored for exactly the messages before this turn, and the key the
// next turn will arrive under.
// Pure: no I/O, and the map of states comes in (ConversationStore).

import { contentHash } from '../shared/contentHash.ts';
import { type CpuPool, sharedCpuPool, taskModule } from '../shared/cpuPool.ts';
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
  return contentHash(`${key}\n${canonical(message)}`);
}

/**
 * A history with more text than this is hashed in the CPU pool (historyTask.ts): JSON-encoding and hashing
 * 10 MB takes 45-85 ms. Below, inline (1 MB: a few ms).
 */
export const POOL_ABOVE_CHARS = 1 << 20;
/** Generous: hashing 10 MB takes well under a second; this only bounds a worker gone wrong. */
const POOL_LIMIT_MS = 10_000;

/** The last workspace's key: a server answers for one workspace nearly always, and this is a hash per request. */
let lastWorkspace: { workspace: string; key: string } | undefined;

function workspaceKey(workspace: string): string {
  if (lastWorkspace?.workspace === workspace) return lastWorkspace.key;
  const key = contentHash(`ctxproxy-conversation\0${workspace}`);
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
 * The same keys as historyKeys; a long history's are computed in the CPU pool, so no other request waits
 * behind them. A pool that fails does not fail the request: the keys are then computed here.
 */
export async function historyKeysOffLoop(
  workspace: string,
  messages: readonly ChatMessage[],
  pool: CpuPool | undefined = sharedCpuPool(),
): Promise<string[]> {
  if (!pool || historyChars(messages) <= POOL_ABOVE_CHARS) return historyKeys(workspace, messages);
  try {
    return await pool.run<string[]>(
      { module: historyTask, name: 'historyKeys', args: [workspace, messages] },
      POOL_LIMIT_MS,
    );
  } catch {
    return historyKeys(workspace, messages);
  }
}

const historyTask = taskModule('historyTask', import.meta.url);

/** About the characters the keys hash: text contents by length, other contents (parts, images) by a rough walk. */
function historyChars(messages: readonly ChatMessage[]): number {
  let chars = 0;
  for (const message of messages) {
    const content = message.content;
    if (typeof content === 'string') chars += content.length;
    else if (Array.isArray(content))
      for (const part of content) {
        for (const value of Object.values(part)) {
          if (typeof value === 'string') chars += value.length;
          else if (value && typeof value === 'object')
            for (const inner of Object.values(value)) if (typeof inner === 'string') chars += inner.length;
        }
      }
    for (const call of message.tool_calls ?? []) chars += call.function.arguments.length;
  }
  return chars;
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
  return contentHash(`${keys[keys.length - 1] ?? ''}\0${requestId}`).slice(0, 24);
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
