// Results by content hash (+ path), so an unchanged item costs a hash and a
// map lookup instead of a scan. Bounded by the bytes of the texts held and by
// entries (every client message is new text: without an entry cap, a
// long-running proxy would keep one entry per request), least recently used
// out first.

import { hash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { RedactResult } from '../shared/types.ts';

/** A result's key: the text's content hash with its path (a path can change what a rule reports). */
export function resultKey(text: string, path: string | undefined): string {
  // One-shot: the same digest as hashing path, NUL, text in three updates, without a Hash object per item.
  return hash('sha256', `${path ?? ''}\0${text}`, 'base64');
}

export class ResultCache {
  /** Undefined when the cache is off (`maxBytes` 0): lru-cache reads a `maxSize` of 0 as no size bound and then refuses sized entries. */
  private readonly entries: LRUCache<string, RedactResult> | undefined;

  /** `maxBytes` counts a character as a byte, as V8 stores most source text (one-byte strings); 0 keeps nothing. */
  constructor(maxBytes = 32 * 1024 * 1024, maxEntries = 4096) {
    this.entries = maxBytes > 0 && maxEntries > 0 ? new LRUCache({ max: maxEntries, maxSize: maxBytes }) : undefined;
  }

  get(key: string): RedactResult | undefined {
    return this.entries?.get(key);
  }

  /** `size`: the characters of the text the result stands for; larger than the whole cache, it is not kept. */
  set(key: string, result: RedactResult, size: number): void {
    this.entries?.set(key, result, { size: Math.max(1, size) });
  }
}
