// A small per-workspace memo: a value is reused while its fingerprint (a string
// built from cheap stats of whatever the value depends on) is unchanged and it
// is younger than the TTL. Concurrent misses for the same key share one run.
// The TTL is checked here against the sources' injected clock (tests move it),
// lru-cache keeps the bound.

import { LRUCache } from 'lru-cache';
import type { SourceDeps } from './deps.ts';

/** Where every memo of the sources takes its TTL and its clock (read at each look-up: tests change both). */
export type MemoTime = Pick<SourceDeps, 'memoTtlMs' | 'clock'>;

interface Entry<T> {
  fingerprint: string;
  at: number;
  value: T;
}

export class Memo<T> {
  readonly #entries: LRUCache<string, Entry<T>>;
  readonly #inFlight = new Map<string, { fingerprint: string; promise: Promise<T> }>();

  constructor(
    private readonly time: MemoTime,
    /** Least recently used entries are dropped beyond this many keys (message-keyed results multiply). */
    maxEntries = 64,
  ) {
    this.#entries = new LRUCache({ max: maxEntries });
  }

  peek(key: string, fingerprint: string): T | undefined {
    const entry = this.#entries.get(key);
    if (!entry || entry.fingerprint !== fingerprint) return undefined;
    if (this.time.clock() - entry.at > this.time.memoTtlMs) return undefined;
    return entry.value;
  }

  /**
   * Returns the memoized value or computes it. The fingerprint is taken by the
   * caller before computing, so a change made while computing is seen next time.
   * `keep` says whether a computed value may be reused (a partial answer after a
   * failure that may pass is not).
   */
  async get(key: string, fingerprint: string, compute: () => Promise<T>, keep?: (value: T) => boolean): Promise<T> {
    const hit = this.peek(key, fingerprint);
    if (hit !== undefined) return hit;
    const running = this.#inFlight.get(key);
    if (running && running.fingerprint === fingerprint) return running.promise;
    const at = this.time.clock();
    const promise = compute().then(
      (value) => {
        if (keep?.(value) ?? true) this.#entries.set(key, { fingerprint, at, value });
        return value;
      },
      (error: unknown) => {
        throw error;
      },
    );
    const settled = () => {
      if (this.#inFlight.get(key)?.promise === promise) this.#inFlight.delete(key);
    };
    promise.then(settled, settled);
    this.#inFlight.set(key, { fingerprint, promise });
    return promise;
  }

  clear(): void {
    this.#entries.clear();
    this.#inFlight.clear();
  }
}
