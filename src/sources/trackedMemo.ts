// A memo whose fingerprint is discovered while computing: every file or
// directory the computation looks at is stamped (mtime and size, or missing)
// before it is read, and the value stays valid while all stamps still hold.

import { LRUCache } from 'lru-cache';
import type { MemoTime } from './memo.ts';
import { statStamp } from './workspace/fingerprint.ts';

export class StatTracker {
  readonly stamps = new Map<string, string>();

  /** Stamps a path the result depends on (call before reading it). */
  track(file: string): void {
    if (!this.stamps.has(file)) this.stamps.set(file, statStamp(file));
  }

  /** Records a stamp taken earlier in this run, before the path was read (a shared listing). */
  adopt(file: string, stamp: string): void {
    if (!this.stamps.has(file)) this.stamps.set(file, stamp);
  }

  stillValid(): boolean {
    for (const [file, stamp] of this.stamps) if (statStamp(file) !== stamp) return false;
    return true;
  }
}

interface Entry<T> {
  value: T;
  tracker: StatTracker;
  at: number;
}

export class TrackedMemo<T> {
  readonly #entries: LRUCache<string, Entry<T>>;

  /** The TTL is checked against the sources' injected clock (tests move it); lru-cache keeps the bound. */
  constructor(
    private readonly time: MemoTime,
    maxEntries = 32,
  ) {
    this.#entries = new LRUCache({ max: maxEntries });
  }

  async get(key: string, compute: (tracker: StatTracker) => Promise<T>): Promise<T> {
    const entry = this.#entries.get(key);
    if (entry && this.time.clock() - entry.at <= this.time.memoTtlMs && entry.tracker.stillValid()) return entry.value;
    const tracker = new StatTracker();
    const at = this.time.clock();
    const value = await compute(tracker);
    this.#entries.set(key, { value, tracker, at });
    return value;
  }
}
