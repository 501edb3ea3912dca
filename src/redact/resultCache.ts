// Results by content hash (+ path), so an unchanged item costs a hash and a
// map lookup instead of a scan. Bounded by total characters and by entries
// (every client message is new text: without an entry cap, a long-running
// proxy would keep one entry per request), least recently used out first.

import { hash } from 'node:crypto';
import type { RedactResult } from '../shared/types.ts';

export class ResultCache {
  private readonly entries = new Map<string, { result: RedactResult; size: number }>();
  private totalChars = 0;

  constructor(
    private readonly maxChars = 32 * 1024 * 1024,
    private readonly maxEntries = 4096,
  ) {}

  key(text: string, path: string | undefined): string {
    // One-shot: the same digest as hashing path, NUL, text in three updates, without a Hash object per item.
    return hash('sha256', `${path ?? ''}\0${text}`, 'base64');
  }

  get(key: string): RedactResult | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    // Refresh its place so the most recently used stay longest.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.result;
  }

  set(key: string, result: RedactResult, size: number): void {
    if (size > this.maxChars) return;
    const previous = this.entries.get(key);
    if (previous) {
      this.totalChars -= previous.size;
      this.entries.delete(key);
    }
    this.entries.set(key, { result, size });
    this.totalChars += size;
    for (const [oldKey, old] of this.entries) {
      if (this.totalChars <= this.maxChars && this.entries.size <= this.maxEntries) break;
      this.entries.delete(oldKey);
      this.totalChars -= old.size;
    }
  }
}
