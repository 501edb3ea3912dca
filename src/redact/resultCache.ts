// Results by content hash (+ path), so an unchanged item costs a hash and a
// map lookup instead of a scan. Bounded by the bytes of the texts held and by
// entries (every client message is new text: without an entry cap, a
// long-running proxy would keep one entry per request), least recently used
// out first.

import { createHash, hash } from 'node:crypto';
import { setImmediate } from 'node:timers/promises';
import { LRUCache } from 'lru-cache';
import type { RedactResult } from '../shared/types.ts';

const SLICE_CHARS = 1024 * 1024;

export class ResultCache {
  /** Undefined when the cache is off (`maxBytes` 0): lru-cache reads a `maxSize` of 0 as no size bound and then refuses sized entries. */
  private readonly entries: LRUCache<string, RedactResult> | undefined;

  /** `maxBytes` counts a character as a byte, as V8 stores most source text (one-byte strings); 0 keeps nothing. */
  constructor(maxBytes = 32 * 1024 * 1024, maxEntries = 4096) {
    this.entries = maxBytes > 0 && maxEntries > 0 ? new LRUCache({ max: maxEntries, maxSize: maxBytes }) : undefined;
  }

  /** The same key as `key`, hashed in 1 MB slices with the event loop free between them (hashing a large text whole would hold other requests). */
  async keyInSlices(text: string, path: string | undefined): Promise<string> {
    const digest = createHash('sha256').update(`${path ?? ''}\0`);
    for (let at = 0; at < text.length; ) {
      let end = Math.min(text.length, at + SLICE_CHARS);
      // Never between the halves of a surrogate pair: each half alone would hash as U+FFFD.
      const last = text.charCodeAt(end - 1);
      if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
      digest.update(text.slice(at, end));
      at = end;
      await setImmediate();
    }
    return digest.digest('base64');
  }

  key(text: string, path: string | undefined): string {
    // One-shot: the same digest as hashing path, NUL, text in three updates, without a Hash object per item.
    return hash('sha256', `${path ?? ''}\0${text}`, 'base64');
  }

  get(key: string): RedactResult | undefined {
    return this.entries?.get(key);
  }

  /** `size`: the characters of the text the result stands for; larger than the whole cache, it is not kept. */
  set(key: string, result: RedactResult, size: number): void {
    this.entries?.set(key, result, { size: Math.max(1, size) });
  }
}
