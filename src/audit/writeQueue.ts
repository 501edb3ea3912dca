// The audit store's writes, held in memory until SQLite takes them. A request
// never waits on the database and never fails because of it: entries are
// written in batches on a timer; when a write fails for a reason that can pass
// (another process holds the lock, the disk is full, the file went read-only)
// the entries stay queued, the queue says it is not writable and why, and it
// retries with a backoff until the database takes them. Memory is bounded by
// bytes: what does not fit is counted as dropped and logged, never lost silently.

import { setImmediate } from 'node:timers';
import type { AuditHealth, AuditWrite, Logger } from '../shared/ports.ts';

/** How a write failure is handled: `reason` set means it can pass (keep and retry); unset means this entry is bad. */
export type FailureReason = string | undefined;

export interface WriteQueueOptions<E> {
  /** Writes the entries in one transaction; throws what failed. */
  write(entries: E[]): void;
  /** The reason a failure can pass ("database locked" …), or undefined when it cannot (drop the entry). */
  transientReason(error: unknown): FailureReason;
  logger: Logger;
  maxBytes: number;
  /** How long saved entries gather before one transaction writes them. */
  delayMs: number;
  /** First retry delay after a failure; doubles up to maxBackoffMs. */
  backoffMs?: number | undefined;
  maxBackoffMs?: number | undefined;
}

interface Held<E> {
  entry: E;
  bytes: number;
}

export interface WriteQueue<E> {
  /** Queues (or replaces, by key) an entry; false when it could not be held (counted as dropped). */
  push(key: string, entry: E, bytes: number): boolean;
  /** Queues and writes at once when healthy; when degraded, answers from the state without trying. */
  pushNow(key: string, entry: E, bytes: number): Promise<AuditWrite>;
  /** The queued entry of a key, to read what is not on disk yet. */
  peek(key: string): E | undefined;
  entries(): IterableIterator<E>;
  /** Writes what is queued now unless degraded (then the retry timer does it). */
  writeIfHealthy(): void;
  /** Tries until everything is written or `waitMs` has passed; never throws. */
  flush(waitMs?: number): Promise<void>;
  health(): AuditHealth;
  /** Stops the timers; what is still queued is returned for the caller to report. */
  close(): number;
}

/**
 * One transaction's worth. A backlog written by the timer goes in slices with the event loop free
 * between them; the records requests wait on (runWaited) go slice after slice in one turn.
 */
const MAX_BATCH_BYTES = 2 * 1024 * 1024;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function createWriteQueue<E>(options: WriteQueueOptions<E>): WriteQueue<E> {
  const { logger } = options;
  const initialBackoff = options.backoffMs ?? 100;
  const maxBackoff = options.maxBackoffMs ?? 2000;
  const held = new Map<string, Held<E>>();
  let bytes = 0;
  let dropped = 0;
  let writable = true;
  let reason: string | undefined;
  let fullLogged = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let immediate = false;
  /** A runWaited is scheduled for this turn. */
  let urgent = false;
  let backoff = initialBackoff;
  let closed = false;
  let waiters: { key: string; resolve: (result: AuditWrite) => void }[] = [];

  function degrade(why: string): void {
    if (writable || why !== reason) logger.warn('audit.degraded', { reason: why, queued: held.size, dropped });
    writable = false;
    reason = why;
  }

  function recover(written: number): void {
    if (!writable) logger.info('audit.recovered', { written, dropped });
    writable = true;
    reason = undefined;
    fullLogged = false;
    backoff = initialBackoff;
  }

  function remove(key: string): void {
    const entry = held.get(key);
    if (!entry) return;
    bytes -= entry.bytes;
    held.delete(key);
  }

  /** One entry at a time, after a batch failed for a reason that is not transient: keep the good ones. False: degraded meanwhile. */
  function writeEach(written: Set<string>, batch: [string, Held<E>][]): boolean {
    for (const [key, { entry }] of batch) {
      try {
        options.write([entry]);
        remove(key);
        written.add(key);
      } catch (error) {
        const why = options.transientReason(error);
        if (why !== undefined) {
          degrade(why);
          return false;
        }
        remove(key);
        dropped += 1;
        const failure = error as Error;
        logger.error('audit.write_failed', { key, error: `${failure?.name}: ${failure?.message}` });
      }
    }
    return true;
  }

  /**
   * The oldest entries, up to MAX_BATCH_BYTES: one slice of a long backlog. `only`: just those keys
   * (the records requests wait on; the rest keep their timer).
   */
  function nextBatch(only?: ReadonlySet<string>): [string, Held<E>][] {
    const batch: [string, Held<E>][] = [];
    let size = 0;
    for (const item of held) {
      if (only && !only.has(item[0])) continue;
      if (batch.length > 0 && size + item[1].bytes > MAX_BATCH_BYTES) break;
      batch.push(item);
      size += item[1].bytes;
    }
    return batch;
  }

  /** One try at the oldest queued entries (or only those of `only`); returns the keys written. */
  function attempt(only?: ReadonlySet<string>): Set<string> {
    const written = new Set<string>();
    if (held.size === 0) return written;
    const batch = nextBatch(only);
    try {
      options.write(batch.map(([, { entry }]) => entry));
      for (const [key] of batch) {
        remove(key);
        written.add(key);
      }
      recover(written.size);
    } catch (error) {
      const why = options.transientReason(error);
      if (why !== undefined) degrade(why);
      else if (writeEach(written, batch)) recover(written.size);
    }
    return written;
  }

  /** Answers the waiters whose entry was written or cannot be now; those in a later slice keep waiting. */
  function settleWaiters(written: Set<string>): void {
    const pending = waiters;
    waiters = [];
    for (const waiter of pending) {
      if (written.has(waiter.key)) waiter.resolve({ written: true });
      else if (writable && !closed && held.has(waiter.key)) waiters.push(waiter);
      else waiter.resolve({ written: false, reason: reason ?? 'write failed' });
    }
  }

  function run(): void {
    timer = undefined;
    immediate = false;
    if (closed) return;
    tryNow();
  }

  /**
   * The records requests wait on (pushNow), written at the end of this turn of the event loop: what
   * reached pushNow in the same turn shares one transaction. The other queued entries (the final
   * versions of finished requests) are left to their timer, so a request about to go upstream does
   * not also pay for writing the ones before it.
   */
  function runWaited(): void {
    urgent = false;
    if (closed) return;
    if (!writable) {
      // Degraded meanwhile: the retry timer owns the queue; answer from the state.
      settleWaiters(new Set());
      return;
    }
    let keys = new Set(waiters.map((waiter) => waiter.key));
    // Waited records larger than one transaction (rare) are written slice after slice without yielding:
    // every one belongs to a request that cannot go upstream before it is in, so a pause would only
    // delay those requests (the timer's backlog in tryNow is the one that yields between slices).
    while (keys.size > 0) {
      settleWaiters(attempt(keys));
      if (!writable || closed) break;
      keys = new Set(waiters.map((waiter) => waiter.key));
    }
    if (!writable) {
      schedule(backoff);
      backoff = Math.min(backoff * 2, maxBackoff);
    } else if (held.size > 0) schedule(options.delayMs);
  }

  /** One attempt, then whatever comes next is scheduled, whoever tried (the timer, a read, a flush). */
  function tryNow(): void {
    settleWaiters(attempt());
    if (held.size === 0 || closed || timer !== undefined || immediate) return;
    if (!writable) {
      schedule(backoff);
      backoff = Math.min(backoff * 2, maxBackoff);
    } else {
      // More slices of a backlog: go on after other work had its turn.
      immediate = true;
      setImmediate(run);
    }
  }

  function schedule(ms: number): void {
    if (timer !== undefined || immediate || closed) return;
    timer = setTimeout(run, ms);
    (timer as { unref?: () => void }).unref?.();
  }

  function push(key: string, entry: E, size: number): boolean {
    const previous = held.get(key);
    const growth = size - (previous?.bytes ?? 0);
    if (bytes + growth > options.maxBytes) {
      dropped += 1;
      if (!fullLogged) {
        fullLogged = true;
        logger.error('audit.queue_full', { queued: held.size, bytes, dropped, reason: reason ?? 'writing too slowly' });
      }
      return false;
    }
    bytes += growth;
    // Re-inserted so the map's order stays the order of the last save.
    held.delete(key);
    held.set(key, { entry, bytes: size });
    if (writable) schedule(options.delayMs);
    return true;
  }

  return {
    push,
    pushNow(key, entry, size) {
      if (closed) return Promise.resolve({ written: false, reason: 'the audit store is closed' });
      if (!push(key, entry, size)) return Promise.resolve({ written: false, reason: 'audit queue full' });
      if (!writable) return Promise.resolve({ written: false, reason: reason ?? 'write failed' });
      return new Promise((resolve) => {
        waiters.push({ key, resolve });
        if (urgent) return;
        urgent = true;
        setImmediate(runWaited);
      });
    },
    peek: (key) => held.get(key)?.entry,
    entries: () => [...held.values()].map((h) => h.entry)[Symbol.iterator](),
    writeIfHealthy() {
      if (writable && !closed) tryNow();
    },
    async flush(waitMs = 0) {
      const deadline = Date.now() + waitMs;
      let pause = initialBackoff;
      for (;;) {
        tryNow();
        if (held.size === 0 || closed) return;
        if (writable) continue; // a slice was written; write the next
        if (Date.now() + pause > deadline) return;
        await sleep(pause);
        pause = Math.min(pause * 2, maxBackoff);
      }
    },
    health: () => {
      const state: AuditHealth = { writable, queued: held.size, dropped };
      if (reason !== undefined) state.reason = reason;
      return state;
    },
    close() {
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      settleWaiters(new Set());
      return held.size;
    },
  };
}
