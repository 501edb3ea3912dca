// The one content hash: what the redactor's result cache, the token counter's
// cache, conversation state and the audit's blobs all key text by. A context
// item's is computed once (the redact stage) and carried on the item (`hash`).
//
// Whole and synchronous, whatever the size: sha256 runs at hundreds of MB/s,
// so hashing a 10 MB text costs a few tens of ms once; keeping large work off
// the event loop is the CPU pool's job, not each hasher's.

import { hash } from 'node:crypto';
import type { ContextItem } from './types.ts';

/** sha256 of the text's UTF-8 bytes, in hex (a lone surrogate hashes as U+FFFD, as UTF-8 writes it). */
export function contentHash(text: string): string {
  return hash('sha256', text, 'hex');
}

/**
 * The same item with another text: that text's hash (an item's `hash` is always its text's), and no
 * segments (they were line ranges of the old text).
 */
export function withText<T extends ContextItem>(item: T, text: string): T {
  return { ...item, text, hash: contentHash(text), segments: undefined };
}
