// The context block is stored once in `blobs`, keyed by its contentHash
// (shared/contentHash.ts, the sha256 every cache of text uses). In the stored
// messages a text that holds the block becomes a `{"$blob": key}` reference
// (with the text around it, if any), and reading puts it back, so a snapshot
// reads back exactly as it was saved.

import type { ChatMessage } from '../shared/types.ts';

/**
 * How much is shared between snapshots: `all` (default) the context block and
 * the conversation history (message chains); `context` the block only;
 * `none` nothing, the block is stored again per snapshot. The last two exist
 * for the benchmark's baselines.
 */
export type DedupePolicy = 'all' | 'context' | 'none';

/** Stands for `before + blob + after`. */
interface BlobRef {
  $blob: string;
  before?: string;
  after?: string;
}

/** Below this, a block is not worth a reference (and short strings would match by chance). */
const MIN_BLOCK_CHARS = 256;

export interface ContextRef {
  block: string;
  key: string;
}

/** Each message as stored JSON, with the context block replaced by a reference. */
export function encodeMessages(messages: ChatMessage[], context: ContextRef | undefined): string[] {
  if (context === undefined || context.block.length < MIN_BLOCK_CHARS) {
    return messages.map((message) => JSON.stringify(message));
  }
  const { block, key } = context;
  const encodeText = (text: string): string | BlobRef => {
    if (text === block) return { $blob: key };
    const at = text.indexOf(block);
    if (at < 0) return text;
    return { $blob: key, before: text.slice(0, at), after: text.slice(at + block.length) };
  };
  return messages.map((message) => {
    const { content } = message;
    if (typeof content === 'string') return JSON.stringify({ ...message, content: encodeText(content) });
    if (!Array.isArray(content)) return JSON.stringify(message);
    const parts = content.map((part) => (part.type === 'text' ? { ...part, text: encodeText(part.text) } : part));
    return JSON.stringify({ ...message, content: parts });
  });
}

function isRef(value: unknown): value is BlobRef {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && '$blob' in value;
}

/** Parses stored message JSON (one message or an array), putting referenced blobs back. */
export function decodeMessages(json: string, blob: (key: string) => string | undefined): ChatMessage[] {
  return JSON.parse(json, (_key, value: unknown) => {
    if (!isRef(value)) return value;
    const text = blob(value.$blob);
    if (text === undefined) throw new Error(`a forwarded message refers to a missing blob ${value.$blob}`);
    return `${value.before ?? ''}${text}${value.after ?? ''}`;
  }) as ChatMessage[];
}
