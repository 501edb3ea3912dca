// The audit store. `save` only queues: the batch is written in one transaction
// a moment later (WRITE_DELAY_MS), off the response path. Reads first write
// whatever is queued, so a snapshot id handed to a client is readable at once.

import { silentLogger } from '../shared/logger.ts';
import type { SnapshotQuery } from '../shared/ports.ts';
import type { Snapshot, SnapshotSummary } from '../shared/types.ts';
import { readCalibration, saveCalibration } from './calibration.ts';
import { chooseSqlDriver } from './defaultDriver.ts';
import { openDatabase } from './openDatabase.ts';
import { fileBytes, liveBytes, prune } from './prune.ts';
import { conversationSnapshots, listSnapshots, searchSnapshots } from './queries.ts';
import { snapshotIo } from './snapshotIo.ts';
import type { AuditStats, AuditStoreFull, AuditStoreOptions, Calibration } from './types.ts';

export type { AuditStoreFull, AuditStoreOptions } from './types.ts';
export { AuditStoreOpenError } from './types.ts';

const EXPORT_PAGE = 100;
/** How long a write waits for another process's lock before it is retried later. */
const WRITE_BUSY_TIMEOUT_MS = 100;
const BUSY_RETRY_MS = 500;
/** About a minute of retries, then the batch is dropped (and logged). */
const MAX_BUSY_RETRIES = 120;
const SLOW_WRITE_MS = 250;
/**
 * How long saved snapshots gather before one transaction writes them. A commit
 * costs far more than a row (every page it touches, the search index's among
 * them, goes to the WAL): one snapshot per transaction cost 0.35 ms of the
 * event loop per request, batches of 50 ms 0.07 ms (bench/overhead's profile).
 * A crash loses at most this much; SIGINT/SIGTERM flush first.
 */
export const WRITE_DELAY_MS = 50;

export function openAuditStore(options: AuditStoreOptions): AuditStoreFull {
  const logger = options.logger ?? silentLogger;
  const now = options.now ?? Date.now;
  const { path } = options;
  const dedupe = options.dedupe ?? 'all';
  const driver = options.driver ?? chooseSqlDriver();
  const openBusyTimeoutMs = options.busyTimeoutMs ?? 2000;
  const { db, version } = openDatabase({
    path,
    driver,
    migrationsDir: options.migrationsDir,
    busyTimeoutMs: openBusyTimeoutMs,
    logger,
    now,
  });
  // Writes run on the event loop: a long wait for another process's lock would stall every request.
  db.pragma('busy_timeout', WRITE_BUSY_TIMEOUT_MS);
  let busyRetries = 0;

  let queue: Snapshot[] = [];
  let scheduled = false;
  let closed = false;

  const io = snapshotIo(db, dedupe);

  /**
   * Writes the queue in one transaction and throws what failed. A batch that
   * met another process's lock (a CLI prune's VACUUM) goes back in the queue
   * for a later try; any other failure drops it, logged.
   */
  function writeQueued(): void {
    if (queue.length === 0) return;
    const batch = queue;
    queue = [];
    const started = performance.now();
    try {
      db.transaction(() => {
        for (const snapshot of batch) io.write(snapshot);
      });
    } catch (error) {
      if (driver.errorKind(error) === 'busy' && busyRetries < MAX_BUSY_RETRIES && !closed) {
        busyRetries += 1;
        queue = batch.concat(queue);
        logger.warn('audit.write_busy', { snapshots: batch.length, retry: busyRetries });
        throw error;
      }
      busyRetries = 0;
      // One bad snapshot must not cost the others: write them one by one and drop only what fails.
      const failures = batch.length === 1 ? [{ id: batch[0]?.id, error }] : writeEach(batch);
      for (const failure of failures) {
        logger.error('audit.write_failed', { id: failure.id, error: (failure.error as Error).message });
      }
      if (failures.length > 0) throw failures[0]?.error;
    }
    busyRetries = 0;
    const ms = Math.round(performance.now() - started);
    if (ms >= SLOW_WRITE_MS) logger.warn('audit.write_slow', { snapshots: batch.length, ms });
  }

  function writeEach(batch: Snapshot[]): { id: string | undefined; error: unknown }[] {
    const failures: { id: string | undefined; error: unknown }[] = [];
    for (const snapshot of batch) {
      try {
        db.transaction(() => io.write(snapshot));
      } catch (error) {
        failures.push({ id: snapshot.id, error });
      }
    }
    return failures;
  }

  function writeScheduled(): void {
    scheduled = false;
    try {
      writeQueued();
    } catch {
      // Logged in writeQueued; a failed audit write must never take the server down.
      if (queue.length > 0 && !closed && !scheduled) {
        scheduled = true;
        setTimeout(writeScheduled, BUSY_RETRY_MS).unref();
      }
    }
  }

  /** Reads see what is queued; if writing it fails now, they still answer from the database. */
  function writeBeforeRead(): void {
    try {
      writeQueued();
    } catch {
      // Logged in writeQueued; the retry is scheduled by writeScheduled.
    }
  }

  function assertOpen(): void {
    if (closed) throw new Error(`audit store ${path} is closed`);
  }

  function* exportSnapshots(since: number): Generator<Snapshot> {
    let after = 0;
    for (;;) {
      writeBeforeRead();
      const rows = db
        .prepare('SELECT id, seq FROM snapshots WHERE created_at >= ? AND seq > ? ORDER BY seq LIMIT ?')
        .all(since, after, EXPORT_PAGE);
      for (const row of rows) {
        const snapshot = io.read(String(row.id));
        if (snapshot) yield snapshot;
        after = Number(row.seq);
      }
      if (rows.length < EXPORT_PAGE) return;
    }
  }

  function stats(): AuditStats {
    const count = (sql: string) => Number(db.prepare(sql).get()?.n ?? 0);
    const range = db.prepare('SELECT min(created_at) AS oldest, max(created_at) AS newest FROM snapshots').get();
    const result: AuditStats = {
      path,
      schemaVersion: version,
      snapshots: count('SELECT count(*) AS n FROM snapshots'),
      conversations: count('SELECT count(*) AS n FROM conversations'),
      blobs: count('SELECT count(*) AS n FROM blobs'),
      blobBytes: count('SELECT coalesce(sum(bytes), 0) AS n FROM blobs'),
      fileBytes: fileBytes(path),
      liveBytes: liveBytes(db),
      queued: queue.length,
    };
    if (typeof range?.oldest === 'number') result.oldest = range.oldest;
    if (typeof range?.newest === 'number') result.newest = range.newest;
    return result;
  }

  const calibrations = new Map<string, Calibration | undefined>();
  return {
    path,
    save(snapshot) {
      assertOpen();
      queue.push(snapshot);
      if (!scheduled) {
        scheduled = true;
        setTimeout(writeScheduled, WRITE_DELAY_MS).unref();
      }
    },
    get(id) {
      assertOpen();
      writeBeforeRead();
      return io.read(id) ?? queue.find((snapshot) => snapshot.id === id);
    },
    list(query: SnapshotQuery): SnapshotSummary[] {
      assertOpen();
      writeBeforeRead();
      return listSnapshots(db, query);
    },
    search(text, limit) {
      assertOpen();
      writeBeforeRead();
      return searchSnapshots(db, text, limit);
    },
    conversation(id) {
      assertOpen();
      writeBeforeRead();
      return conversationSnapshots(db, id);
    },
    export(exportOptions = {}) {
      assertOpen();
      return exportSnapshots(exportOptions.since ?? Number.MIN_SAFE_INTEGER);
    },
    prune(pruneOptions) {
      assertOpen();
      writeBeforeRead();
      // Maintenance may wait for the lock as long as opening does; requests' writes do not.
      db.pragma('busy_timeout', openBusyTimeoutMs);
      try {
        const result = prune(db, path, pruneOptions, now());
        logger.info('audit.pruned', { ...result });
        return result;
      } finally {
        db.pragma('busy_timeout', WRITE_BUSY_TIMEOUT_MS);
      }
    },
    getCalibration(model) {
      assertOpen();
      // Read on every request: keep what this process (the only writer) already knows.
      if (!calibrations.has(model)) calibrations.set(model, readCalibration(db, model));
      return calibrations.get(model);
    },
    saveCalibration(model, value) {
      assertOpen();
      const saved = saveCalibration(db, model, value, now());
      calibrations.set(model, saved);
      return saved;
    },
    stats() {
      assertOpen();
      return stats();
    },
    async flush() {
      if (closed) return;
      writeQueued();
    },
    async close() {
      if (closed) return;
      try {
        writeQueued();
      } catch (error) {
        logger.error('audit.close_unwritten', { snapshots: queue.length });
        throw error;
      } finally {
        closed = true;
        db.close();
      }
    },
  };
}
