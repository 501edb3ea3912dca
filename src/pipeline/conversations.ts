// Per-conversation state, so that turn N+1's forwarded messages begin with
// turn N's byte for byte (what lets Ollama reuse its prompt cache).
//
// A conversation is identified by its history. The client resends its own
// messages, never our additions, so every turn's key is a hash chain over the
// client's messages (as sent) with the workspace: after turn N answers, its
// state is stored under the key of turn N's messages plus the assistant reply,
// which is exactly what the client sends before its next user message. A
// request continues a conversation only when everything before its own new
// messages is that conversation's history, exactly: a first turn never
// continues one, and two chats that open alike part at their first different
// reply. A branch (an earlier user message rewritten) continues from the turn it
// still begins with. States are never changed once stored: each turn stores a new one.

import { LRUCache } from 'lru-cache';
import { contentHash } from '../shared/contentHash.ts';
import { TEXT_CACHE_BYTES } from '../shared/textCaches.ts';
import type { ContextItem, ContextPartSource, ModeName } from '../shared/types.ts';

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

/**
 * The item's content hash, carried from the redact stage (computed here only for an item made without one).
 * The title is not in it: a source derives it from what it derives the text from (a path, a command).
 */
export function itemHash(item: ContextItem): string {
  return item.hash ?? contentHash(item.text);
}

/**
 * Roughly the bytes a state holds: its texts (a character a byte, as V8 keeps most of them) and the hashes it knows.
 * The context block counts in full for every state, though states with equal blocks share one copy (#share):
 * an entry's size is fixed when it is stored, and a block charged to its first holder only would outlive that
 * holder uncounted. Overcounting errs the safe way: fewer states kept, never more memory than the bound.
 */
function stateBytes(state: ConversationState | 'ambiguous'): number {
  if (state === 'ambiguous') return 64;
  let bytes = 256 + state.contextBlock.length;
  for (const attachment of state.attachments) bytes += attachment.text.length;
  for (const [key, hash] of state.known) bytes += key.length + hash.length;
  return bytes;
}

/** Items that are new or changed since the model last saw them. The env item's clock always changes: not news. */
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
  /**
   * Context blocks by their text, with how many stored states hold each. Every
   * conversation opened on the same repository state in the same mode plans the
   * same block, built afresh per request: without this, a thousand short chats
   * keep a thousand copies of one block.
   */
  readonly #blocks = new Map<string, { text: string; users: number }>();

  /** `capacity` 0 remembers nothing (every turn starts fresh). */
  constructor(capacity = 1000, maxBytes = TEXT_CACHE_BYTES.conversations) {
    this.#states =
      capacity > 0
        ? new LRUCache({
            max: capacity,
            maxSize: maxBytes,
            sizeCalculation: stateBytes,
            dispose: (state) => {
              if (state !== 'ambiguous') this.#release(state.contextBlock);
            },
          })
        : undefined;
  }

  /** The held instance of `block` (this one when it is new), counted as held once more. */
  #share(block: string): string {
    // A map finds an equal string by content; the entry gives back the instance already held.
    const held = this.#blocks.get(block);
    if (held) {
      held.users++;
      return held.text;
    }
    this.#blocks.set(block, { text: block, users: 1 });
    return block;
  }

  #release(block: string): void {
    const held = this.#blocks.get(block);
    if (held && --held.users <= 0) this.#blocks.delete(block);
  }

  get(key: string): ConversationState | undefined {
    const state = this.#states?.get(key);
    return state === 'ambiguous' ? undefined : state;
  }

  /** `undefined`: a turn without state reached this history; it cannot be told from a conversation stored here. */
  set(key: string, state: ConversationState | undefined): void {
    if (!this.#states) return;
    const previous = this.#states.peek(key);
    if (state === undefined) {
      this.#states.set(key, 'ambiguous');
      return;
    }
    const shared =
      previous !== undefined && (previous === 'ambiguous' || previous.conversationId !== state.conversationId);
    // A copy per entry (states are never changed once stored), so that each entry's dispose releases its own hold.
    if (shared) {
      this.#states.set(key, 'ambiguous');
      return;
    }
    const stored = { ...state, contextBlock: this.#share(state.contextBlock) };
    this.#states.set(key, stored);
    // A state too large for the cache is not stored (and never disposed): its hold ends here.
    if (this.#states.peek(key) !== stored) this.#release(stored.contextBlock);
  }

  /** Distinct context blocks held (tests: equal blocks are held once). */
  get blocks(): number {
    return this.#blocks.size;
  }

  get size(): number {
    return this.#states?.size ?? 0;
  }
}
