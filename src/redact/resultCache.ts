// Results by content hash (+ path), so an unchanged item costs a hash and a
// map lookup instead of a scan. Bounded by the bytes of the texts held and by
// entries (every client message is new text: without an entry cap, a
// long-running proxy would keep one entry per request), least recently used
// out first.

import { LRUCache } from 'lru-cache';
import { TEXT_CACHE_BYTES } from '../shared/textCaches.ts';
import type { RedactResult } from '../shared/types.ts';

export class ResultCache {
  /** Undefined when the cache is off (`maxBytes` 0): lru-cache reads a `maxSize` of 0 as no size bound and then refuses sized entries. */
  private readonly entries: LRUCache<string, RedactResult> | undefined;

  /** `maxBytes` counts a character as a byte, as V8 stores most source text (one-byte strings); 0 keeps nothing. */
  constructor(maxBytes = TEXT_CACHE_BYTES.redactionResults, maxEntries = 4096) {
    this.entries = maxBytes > 0 && maxEntries > 0 ? new LRUCache({ max: maxEntries, maxSize: maxBytes }) : undefined;
  }

  /** `hash`: contentHash of the text (shared/contentHash.ts), which a context item carries already. */
  key(hash: string, path: string | undefined): string {
    return `${path ?? ''}\0${hash}`;
  }

  get(key: string): RedactResult | undefined {
    return this.entries?.get(key);
  }

  /** `size`: the characters of the text the result stands for; larger than the whole cache, it is not kept. */
  set(key: string, result: RedactResult, size: number): void {
    this.entries?.set(key, result, { size: Math.max(1, size) });
  }
}
