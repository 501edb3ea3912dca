// The audit store. `save` only queues: the batch is written in one transaction
// a moment later (WRITE_DELAY_MS), off the response path; `saveInFlight` writes
// a request's record before it goes upstream (to `in_flight`, snapshotIo.ts). No database fault reaches a
// request: the queue (writeQueue.ts) holds what cannot be written and retries,
// and `health()` says so. Reads first write whatever is queued, so a snapshot
// id handed to a client is readable at once.

import { rmSync } from 'node:fs';
import { silentLogger } from '../shared/logger.ts';
import type { Logger, SnapshotQuery } from '../shared/ports.ts';
import type { Snapshot, SnapshotSummary } from '../shared/types.ts';
import { type CalibrationRecord, readCalibration, saveCalibration } from './calibration.ts';
import { chooseSqlDriver } from './defaultDriver.ts';
import type { SqlErrorKind } from './driver.ts';
import { guardFiles } from './fileIdentity.ts';
import { markInterrupted, settleOwnInFlight } from './inFlight.ts';
import { openDatabase } from './openDatabase.ts';
import { fileBytes, liveBytes, prune } from './prune.ts';
import { conversationSnapshots, listSnapshots, searchSnapshots } from './queries.ts';
import { snapshotIo } from './snapshotIo.ts';
import { type AuditStats, type AuditStoreFull, AuditStoreOpenError, type AuditStoreOptions } from './types.ts';
import { createWriteQueue } from './writeQueue.ts';

export type { AuditStoreFull, AuditStoreOptions } from './types.ts';

const EXPORT_PAGE = 100;

/** A write refused because the database file was deleted or replaced and could not be opened anew. */
class AuditFileLostError extends Error {
  override readonly name = 'AuditFileLostError';
}
/**
 * How long one write waits for another process's lock. Writes run on the event
 * loop, so this is what a lock can cost every request at most once per try;
 * while the lock lasts the queue retries with a backoff instead.
 */
const WRITE_BUSY_TIMEOUT_MS = 50;
const SLOW_WRITE_MS = 250;
/** Snapshots held in memory while the database cannot take them (about a thousand large prompts). */
const DEFAULT_MAX_QUEUED_BYTES = 64 * 1024 * 1024;
/** How long close() keeps retrying a locked or full database before it reports what is left. */
const CLOSE_WAIT_MS = 2000;
/**
 * How long saved snapshots gather before one transaction writes them. A commit
 * costs far more than a row (every page it touches, the search index's among
 * them, goes to the WAL), so one transaction per batch costs the event loop a
 * fraction of one per snapshot (bench/overhead's profile).
 * A request's in-flight record is written at once (saveInFlight), so a crash
 * loses at most the end of a reply; SIGINT/SIGTERM flush first.
 */
export const WRITE_DELAY_MS = 50;

type QueuedWrite = { snapshot: Snapshot } | { calibration: CalibrationRecord };

/** Failures that pass with time or space, in words for X-Ctx-Warning and /healthz. */
const TRANSIENT: Partial<Record<SqlErrorKind, string>> = {
  busy: 'database locked',
  full: 'disk full',
  'read-only': 'database read-only',
  io: 'disk I/O error',
  'cannot-open': 'database cannot be opened',
  corrupt: 'database damaged',
};

/** About what a queued snapshot holds in memory (UTF-16 units; the context block is counted twice, harmlessly). */
function approxBytes(snapshot: Snapshot): number {
  let total = 2048 + (snapshot.contextBlock?.length ?? 0) + snapshot.reply.content.length;
  total += snapshot.reply.reasoning?.length ?? 0;
  for (const message of snapshot.forwarded) {
    total +=
      typeof message.content === 'string' ? message.content.length : JSON.stringify(message.content ?? '').length;
  }
  return total;
}

export function openAuditStore(options: AuditStoreOptions): AuditStoreFull {
  const logger = options.logger ?? silentLogger;
  const now = options.now ?? Date.now;
  const { path } = options;
  const dedupe = options.dedupe ?? 'all';
  const driver = options.driver ?? chooseSqlDriver();
  const openBusyTimeoutMs = options.busyTimeoutMs ?? 2000;
  const openOptions = {
    path,
    driver,
    migrationsDir: options.migrationsDir,
    busyTimeoutMs: openBusyTimeoutMs,
    logger,
    now,
    workspace: options.workspace,
    userChosen: options.userChosen,
  };
  let { db, version } = openDatabase(openOptions);
  if (options.markInterrupted !== false) markInterrupted(db, logger);
  db.pragma('busy_timeout', WRITE_BUSY_TIMEOUT_MS);
  let closed = false;

  const calibrations = new Map<string, CalibrationRecord | undefined>();
  let io = snapshotIo(db, dedupe);
  let guard = guardFiles(path);
  /** What happened to the file opened ("database file deleted"), until the path is open again. */
  let changed: string | undefined;
  /** Set while the path names no file of ours and none could be opened anew: why, for /healthz and 503s. */
  let lost: string | undefined;

  const quietOpenFailures: Logger = {
    ...logger,
    error: (event, fields) => {
      if (event !== 'audit.open_failed') logger.error(event, fields);
    },
  };

  /**
   * Before a batch (and a health check): one stat of the database and one of its write-ahead log.
   * When the path no longer names the file that was opened (deleted, or another file moved there),
   * the old connection is closed and the path opened anew (created, with every check of a first
   * open); until that works the store is not writable and says why.
   */
  function followPath(): boolean {
    if (closed) return false;
    const change = guard.check();
    if (change === undefined && changed === undefined) return false;
    if (changed === undefined && change !== undefined) {
      changed = `${change.file} file ${change.change}`;
      logger.warn('audit.db_file_changed', { file: change.file, change: change.change });
      try {
        db.close();
      } catch {
        // The file is gone; the connection only has to let go of it.
      }
      // Removed by name (never through a link): their rows belong to the file that is gone.
      if (change.file === 'database') for (const side of guard.leftovers()) rmSync(side, { force: true });
    }
    try {
      // While the path stays unusable the queue retries every few seconds: one open_failed line, not one per try.
      const reopened = openDatabase(lost === undefined ? openOptions : { ...openOptions, logger: quietOpenFailures });
      db = reopened.db;
      version = reopened.version;
    } catch (error) {
      const why = error instanceof AuditStoreOpenError ? error.reason : 'error';
      lost = `${changed}, cannot open it anew (${why})`;
      throw new AuditFileLostError(lost);
    }
    if (options.markInterrupted !== false) markInterrupted(db, logger);
    db.pragma('busy_timeout', WRITE_BUSY_TIMEOUT_MS);
    io = snapshotIo(db, dedupe);
    guard = guardFiles(path);
    calibrations.clear();
    logger.warn('audit.db_reopened', { after: changed });
    changed = undefined;
    lost = undefined;
    return true;
  }

  function writeBatch(batch: QueuedWrite[]): void {
    followPath();
    const started = performance.now();
    db.transaction(() => {
      for (const item of batch) {
        if ('snapshot' in item) io.write(item.snapshot);
        else saveCalibration(db, item.calibration.model, item.calibration, item.calibration.updatedAt);
      }
    });
    const ms = Math.round(performance.now() - started);
    if (ms >= SLOW_WRITE_MS) logger.warn('audit.write_slow', { snapshots: batch.length, ms });
  }

  const queue = createWriteQueue<QueuedWrite>({
    write: writeBatch,
    transientReason: (error) =>
      error instanceof AuditFileLostError ? error.message : TRANSIENT[driver.errorKind(error)],
    logger,
    maxBytes: options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES,
    delayMs: options.writeDelayMs ?? WRITE_DELAY_MS,
  });

  /** Reads see what is queued; a degraded store is left to its retry timer and reads answer from the database. */
  function writeBeforeRead(): void {
    followPath();
    queue.writeIfHealthy();
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
      if (rows.length < EXPORT_PAGE) break;
    }
    // Then the requests still in flight (a handful: their table holds only those).
    const flying = db.prepare('SELECT id FROM in_flight WHERE created_at >= ? ORDER BY rowid').all(since);
    for (const row of flying) {
      const snapshot = io.read(String(row.id));
      if (snapshot) yield snapshot;
    }
  }

  function stats(): AuditStats {
    const count = (sql: string) => Number(db.prepare(sql).get()?.n ?? 0);
    // Each side on its own: min() and max() of one table are read from its index.
    const range = (table: string) =>
      db.prepare(`SELECT min(created_at) AS oldest, max(created_at) AS newest FROM ${table}`).get();
    const ends = [range('snapshots'), range('in_flight')];
    const times = (key: 'oldest' | 'newest') =>
      ends.map((row) => row?.[key]).filter((value): value is number => typeof value === 'number');
    const result: AuditStats = {
      path,
      schemaVersion: version,
      snapshots: count('SELECT (SELECT count(*) FROM snapshots) + (SELECT count(*) FROM in_flight) AS n'),
      conversations: count('SELECT count(*) AS n FROM conversations'),
      blobs: count('SELECT count(*) AS n FROM blobs'),
      blobBytes: count('SELECT coalesce(sum(bytes), 0) AS n FROM blobs'),
      fileBytes: fileBytes(path),
      liveBytes: liveBytes(db),
      queued: queue.health().queued,
    };
    const oldest = times('oldest');
    const newest = times('newest');
    if (oldest.length > 0) result.oldest = Math.min(...oldest);
    if (newest.length > 0) result.newest = Math.max(...newest);
    return result;
  }

  return {
    path,
    save(snapshot) {
      assertOpen();
      queue.push(`s:${snapshot.id}`, { snapshot }, approxBytes(snapshot));
    },
    saveInFlight(snapshot) {
      assertOpen();
      return queue.pushNow(`s:${snapshot.id}`, { snapshot }, approxBytes(snapshot));
    },
    health() {
      try {
        // Open again: write what waited now, rather than at the retry timer's next turn.
        if (followPath()) void queue.flush();
      } catch {
        // `lost` says why; the retry timer keeps trying.
      }
      const state = queue.health();
      return lost === undefined ? state : { ...state, writable: false, reason: lost };
    },
    settleInFlight(outcome) {
      for (const item of queue.entries()) {
        if ('snapshot' in item && item.snapshot.outcome === 'in_flight') item.snapshot.outcome = outcome;
      }
      if (closed) return;
      try {
        settleOwnInFlight(db, outcome);
      } catch (error) {
        logger.warn('audit.settle_failed', { error: (error as Error)?.name });
      }
    },
    get(id) {
      assertOpen();
      writeBeforeRead();
      // A queued version is newer than the row (the in-flight record of a request that has ended since).
      const queued = queue.peek(`s:${id}`);
      return queued && 'snapshot' in queued ? queued.snapshot : io.read(id);
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
      if (!calibrations.has(model)) {
        try {
          calibrations.set(model, readCalibration(db, model));
        } catch (error) {
          // An unreadable table costs the estimate its correction, never the request.
          logger.warn('audit.calibration_unread', { error: (error as Error)?.name });
          return undefined;
        }
      }
      return calibrations.get(model);
    },
    saveCalibration(model, value) {
      assertOpen();
      const saved: CalibrationRecord = { model, ratio: value.ratio, samples: value.samples, updatedAt: now() };
      calibrations.set(model, saved);
      queue.push(`c:${model}`, { calibration: saved }, 256);
      return saved;
    },
    stats() {
      assertOpen();
      return stats();
    },
    async flush(flushOptions = {}) {
      if (closed) return;
      await queue.flush(flushOptions.waitMs ?? 0);
    },
    async close(closeOptions = {}) {
      if (closed) return;
      await queue.flush(closeOptions.waitMs ?? CLOSE_WAIT_MS);
      const left = queue.close();
      const { dropped, reason } = queue.health();
      if (left > 0) logger.error('audit.close_unwritten', { snapshots: left, dropped, reason });
      closed = true;
      if (changed === undefined) db.close();
    },
  };
}
