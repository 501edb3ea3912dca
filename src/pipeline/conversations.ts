// Per-conversation state, so that turn N's forwarded messages begin with turn
// N−1's byte for byte (what lets Ollama reuse its prompt cache). The client
// resends its history without our additions; we re-apply them from here.

import { createHash } from 'node:crypto';
import type { ChatMessage, ContextItem } from '../shared/types.ts';

export interface ConversationState {
  id: string;
  /** The context block frozen at the first turn. */
  contextBlock: string;
  /** What the model has already been shown: item key → hash of its text. */
  known: Map<string, string>;
  /** Attachments added to user messages, keyed by the message's index in the client's list. */
  attachments: Map<number, string>;
  turns: number;
}

/** A conversation is the workspace, the system prompt and the first user message. */
export function conversationId(workspace: string, messages: readonly ChatMessage[]): string {
  const hash = createHash('sha256').update(workspace).update('\0');
  for (const message of messages)
    if (message.role === 'system' || message.role === 'developer') hash.update(text(message));
  hash.update('\0');
  const firstUser = messages.find((m) => m.role === 'user');
  hash.update(firstUser ? text(firstUser) : '');
  return hash.digest('hex').slice(0, 24);
}

export function itemHash(item: ContextItem): string {
  return createHash('sha256').update(item.title).update('\0').update(item.text).digest('hex').slice(0, 32);
}

/** Items that are new or changed since the model last saw them. The env item's clock always changes: not news. */
export function changedItems(state: ConversationState, items: readonly ContextItem[]): ContextItem[] {
  return items.filter((item) => item.source !== 'env' && state.known.get(item.key) !== itemHash(item));
}

/** A bounded map, least recently used first out. */
export class ConversationCache {
  readonly #states = new Map<string, ConversationState>();
  constructor(private readonly capacity = 1000) {}

  get(id: string): ConversationState | undefined {
    const state = this.#states.get(id);
    if (state) {
      this.#states.delete(id);
      this.#states.set(id, state);
    }
    return state;
  }

  set(state: ConversationState): void {
    this.#states.delete(state.id);
    this.#states.set(state.id, state);
    if (this.#states.size > this.capacity) {
      const oldest = this.#states.keys().next().value;
      if (oldest !== undefined) this.#states.delete(oldest);
    }
  }
}

function text(message: ChatMessage): string {
  if (typeof message.content === 'string') return message.content;
  return (message.content ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}
