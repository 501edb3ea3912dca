// What `previous_response_id` and `item_reference` need: the recent responses'
// conversations and output items, in memory only (never on disk), bounded by
// count and by size, oldest forgotten first. A restart forgets everything; the
// client is then told to resend the conversation in `input`.
//
// Why keep them at all: the AI SDK's default `openai` provider sends earlier
// tool calls as `item_reference`s, and `previous_response_id` is how the
// Responses API continues a conversation. Holding a few hundred small
// conversations costs little; refusing would break those clients.

import type { ResponseItem } from '../shared/responsesRequest.ts';
import type { ChatMessage } from '../shared/types.ts';

export interface RememberedResponse {
  /** The conversation up to and including this response's output, as chat messages (no instructions). */
  history: ChatMessage[];
}

export interface ResponseMemoryOptions {
  maxResponses?: number;
  /** Rough cap on the characters held, over all responses. */
  maxChars?: number;
}

export class ResponseMemory {
  private readonly responses = new Map<string, { entry: RememberedResponse; chars: number; itemIds: string[] }>();
  private readonly items = new Map<string, ResponseItem>();
  private chars = 0;
  readonly maxResponses: number;
  private readonly maxChars: number;

  constructor(options: ResponseMemoryOptions = {}) {
    this.maxResponses = options.maxResponses ?? 256;
    this.maxChars = options.maxChars ?? 32 * 1024 * 1024;
  }

  remember(id: string, entry: RememberedResponse, output: ResponseItem[]): void {
    const chars = JSON.stringify(entry.history).length + JSON.stringify(output).length;
    if (chars > this.maxChars) return;
    const itemIds: string[] = [];
    for (const item of output) {
      if (typeof item.id === 'string') {
        this.items.set(item.id, item);
        itemIds.push(item.id);
      }
    }
    this.responses.set(id, { entry, chars, itemIds });
    this.chars += chars;
    while (this.responses.size > this.maxResponses || this.chars > this.maxChars) {
      const oldest = this.responses.keys().next().value;
      if (oldest === undefined) break;
      this.forget(oldest);
    }
  }

  response(id: string): RememberedResponse | undefined {
    return this.responses.get(id)?.entry;
  }

  item(id: string): ResponseItem | undefined {
    return this.items.get(id);
  }

  private forget(id: string): void {
    const held = this.responses.get(id);
    if (!held) return;
    this.responses.delete(id);
    this.chars -= held.chars;
    for (const itemId of held.itemIds) this.items.delete(itemId);
  }
}
