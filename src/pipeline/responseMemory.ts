// What `previous_response_id` and `item_reference` need: the recent responses'
// conversations and output items, in memory only (never on disk), bounded by
// count and by size, oldest forgotten first. A restart forgets everything; the
// client is then told to resend the conversation in `input`.
//
// Each response is kept under the scope that made it (the workspace, and the
// token where the server has one): asked for from another scope it is unknown,
// so a conversation about one repository cannot be carried into another.
//
// Why keep them at all: the AI SDK's default `openai` provider sends earlier
// tool calls as `item_reference`s, and `previous_response_id` is how the
// Responses API continues a conversation. Holding a few hundred small
// conversations costs little; refusing would break those clients.

import { LRUCache } from 'lru-cache';
import type { ResponseItem } from '../shared/responsesRequest.ts';
import { TEXT_CACHE_BYTES } from '../shared/textCaches.ts';
import type { ChatMessage } from '../shared/types.ts';

export interface RememberedResponse {
  /** The conversation up to and including this response's output, as chat messages (no instructions). */
  history: ChatMessage[];
}

export interface ResponseMemoryOptions {
  maxResponses?: number;
  /** Rough cap on the bytes held over all responses (their JSON's characters). */
  maxChars?: number;
}

interface Held {
  entry: RememberedResponse;
  itemIds: string[];
  scope: string;
}

interface HeldItem {
  item: ResponseItem;
  scope: string;
}

export class ResponseMemory {
  private readonly responses: LRUCache<string, Held>;
  private readonly items = new Map<string, HeldItem>();
  readonly maxResponses: number;

  constructor(options: ResponseMemoryOptions = {}) {
    this.maxResponses = options.maxResponses ?? 256;
    this.responses = new LRUCache<string, Held>({
      max: this.maxResponses,
      maxSize: options.maxChars ?? TEXT_CACHE_BYTES.responses,
      // A forgotten response takes its output items with it.
      dispose: (held) => {
        for (const itemId of held.itemIds) this.items.delete(itemId);
      },
    });
  }

  /** `scope`: who may use it again (see responseScope in responsesInput.ts). */
  remember(id: string, entry: RememberedResponse, output: ResponseItem[], scope: string): void {
    const size = JSON.stringify(entry.history).length + JSON.stringify(output).length;
    if (size > this.responses.maxSize) return;
    const itemIds = output.flatMap((item) => (typeof item.id === 'string' ? [item.id] : []));
    // Stored first: replacing an earlier response of this id forgets its items before these are added.
    this.responses.set(id, { entry, itemIds, scope }, { size: Math.max(1, size) });
    for (const item of output) if (typeof item.id === 'string') this.items.set(item.id, { item, scope });
  }

  /** Oldest forgotten first: reading a response does not make it younger. Another scope's is unknown. */
  response(id: string, scope: string): RememberedResponse | undefined {
    const held = this.responses.peek(id);
    return held?.scope === scope ? held.entry : undefined;
  }

  item(id: string, scope: string): ResponseItem | undefined {
    const held = this.items.get(id);
    return held?.scope === scope ? held.item : undefined;
  }
}
