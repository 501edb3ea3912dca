// Content addressing for the forwarded messages. The context block and every
// long message text are stored once in `blobs`, keyed by sha256; the stored
// messages hold `{"$blob": key}` references instead, and reading puts the texts
// back, so a snapshot reads back exactly as it was saved.

import { createHash } from 'node:crypto';
import type { ChatMessage } from '../shared/types.ts';

/**
 * What is content-addressed: `all` = the context block and long message texts
 * (the conversation history repeated by every turn); `context` = the block only;
 * `none` = the block once per snapshot, nothing shared (the benchmark's baseline).
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
/** A reference costs ~80 bytes of JSON plus a link row: only longer texts are worth one. */
export const MIN_MESSAGE_BLOB_CHARS = 512;

export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

export interface ContextRef {
  block: string;
  key: string;
}

export interface EncodedMessages {
  json: string;
  /** Message texts to store as blobs, by key (the context block is not among them). */
  blobs: Map<string, string>;
}

export function encodeForwarded(
  messages: ChatMessage[],
  context: ContextRef | undefined,
  policy: DedupePolicy,
): EncodedMessages {
  const blobs = new Map<string, string>();
  const useContext = context !== undefined && context.block.length >= MIN_BLOCK_CHARS;
  const encodeText = (text: string): string | BlobRef => {
    if (useContext) {
      if (text === context.block) return { $blob: context.key };
      const at = text.indexOf(context.block);
      if (at >= 0) {
        return { $blob: context.key, before: text.slice(0, at), after: text.slice(at + context.block.length) };
      }
    }
    if (policy !== 'all' || text.length < MIN_MESSAGE_BLOB_CHARS) return text;
    const key = sha256(text);
    blobs.set(key, text);
    return { $blob: key };
  };
  if (!useContext && policy !== 'all') return { json: JSON.stringify(messages), blobs };
  const encoded = messages.map((message) => {
    const { content } = message;
    if (typeof content === 'string') return { ...message, content: encodeText(content) };
    if (!Array.isArray(content)) return message;
    const parts = content.map((part) => (part.type === 'text' ? { ...part, text: encodeText(part.text) } : part));
    return { ...message, content: parts };
  });
  return { json: JSON.stringify(encoded), blobs };
}

function isRef(value: unknown): value is BlobRef {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && '$blob' in value;
}

export function decodeForwarded(json: string, blob: (key: string) => string | undefined): ChatMessage[] {
  return JSON.parse(json, (_key, value: unknown) => {
    if (!isRef(value)) return value;
    const text = blob(value.$blob);
    if (text === undefined) throw new Error(`forwarded message refers to missing blob ${value.$blob}`);
    return `${value.before ?? ''}${text}${value.after ?? ''}`;
  }) as ChatMessage[];
}
