// The audit store's full surface: the pipeline's AuditStore port plus what the
// CLI and the audit browser need (search, export, prune, conversations, stats).

import type { AuditStore, Logger } from '../shared/ports.ts';
import type { Calibration, Snapshot, SnapshotSummary } from '../shared/types.ts';
import type { DedupePolicy } from './blobRefs.ts';
import type { CalibrationRecord } from './calibration.ts';
import type { SqlDriverFactory } from './driver.ts';

export interface AuditStoreOptions {
  /** The database file; created with mode 0600 (and its directory with 0700) when missing. */
  path: string;
  /** Folder of numbered SQL files; defaults to the repository's migrations/. */
  migrationsDir?: string | undefined;
  logger?: Logger | undefined;
  now?: (() => number) | undefined;
  /** Defaults to the runtime's: better-sqlite3 on Node, node:sqlite on Deno (see defaultDriver.ts). */
  driver?: SqlDriverFactory | undefined;
  /** How long opening or a write waits for another process's lock. Default 2000. */
  busyTimeoutMs?: number | undefined;
  /**
   * What is stored once by content: `all` (default) the context block and long
   * message texts; `context` the block only; `none` nothing (the benchmark's baselines).
   */
  dedupe?: DedupePolicy | undefined;
  /**
   * How long a finished snapshot waits in memory before its batch is written. Default 50 ms
   * (WRITE_DELAY_MS); a test lengthens it to order another write before the timer's.
   */
  writeDelayMs?: number | undefined;
  /** Memory for writes the database cannot take yet (locked, disk full). Default 64 MiB; beyond it they are dropped and counted. */
  maxQueuedBytes?: number | undefined;
  /** Folders from here down to the database are checked: none may be a symlink (the workspace, a repository). */
  workspace?: string | undefined;
  /**
   * The user named the file (--db, CTXPROXY_DB): a SQLite database without ctxproxy's mark is adopted
   * with a warning instead of refused. Unknown triggers and views are refused either way.
   */
  userChosen?: boolean | undefined;
  /** Marks the in-flight rows of processes that are gone `interrupted` at open. Default true. */
  markInterrupted?: boolean | undefined;
}

export interface PruneOptions {
  /** Deletes snapshots created more than this long ago. */
  olderThanMs?: number | undefined;
  /** Then deletes the oldest until the database is under this size. */
  maxBytes?: number | undefined;
  /** Deletes nothing: `deleted` is how many would go (estimated for `maxBytes`), so the CLI can say it first. */
  dryRun?: boolean | undefined;
}

export interface PruneResult {
  /** Deleted, or under `dryRun` to be deleted. */
  deleted: number;
  /** Snapshots in the log before. */
  total?: number | undefined;
  /** `deleted` is an estimate (a dry run with `maxBytes`: the sizes after VACUUM are not known before). */
  estimated?: boolean | undefined;
  /** Database file plus its write-ahead log, before and after (VACUUM included). */
  bytesBefore: number;
  bytesAfter: number;
}

export interface AuditStats {
  path: string;
  schemaVersion: number;
  snapshots: number;
  conversations: number;
  blobs: number;
  /** UTF-8 bytes of the blobs stored (context blocks and long message texts, each once). */
  blobBytes: number;
  /** Database file plus its write-ahead log, on disk. */
  fileBytes: number;
  /** Pages in use (page_count − freelist_count) × page_size: what VACUUM would leave. */
  liveBytes: number;
  oldest?: number | undefined;
  newest?: number | undefined;
  /** Snapshots saved but not written yet. */
  queued: number;
}

export interface AuditStoreFull extends AuditStore {
  /** Full-text search over questions and replies, best match first. Any text is safe: it is quoted for FTS5. */
  search(text: string, limit?: number): SnapshotSummary[];
  /** Every snapshot created at or after `since`, oldest first, read page by page. */
  export(options?: { since?: number | undefined }): Iterable<Snapshot>;
  /** Deletes old snapshots and the context blocks no longer referenced, then VACUUMs. */
  prune(options: PruneOptions): PruneResult;
  /** The snapshots of one conversation, oldest first. */
  conversation(id: string): SnapshotSummary[];
  getCalibration(model: string): CalibrationRecord | undefined;
  /** Keeps the ratio the budget stage computed (see budget/calibration.ts). */
  saveCalibration(model: string, value: Calibration): CalibrationRecord;
  stats(): AuditStats;
  /**
   * Gives this process's in-flight records (queued, and rows on disk) an outcome: for a shutdown
   * that cannot wait for its requests to end. The requests' own final saves still replace them.
   */
  settleInFlight(outcome: 'aborted' | 'interrupted'): void;
  /** Writes what is queued; retries a locked or full database for up to `waitMs` (default 0: one try). Never throws. */
  flush(options?: { waitMs?: number | undefined }): Promise<void>;
  /** Writes what is queued (retrying up to `waitMs`, default 2000), logs what is left, closes. */
  close(options?: { waitMs?: number | undefined }): Promise<void>;
  readonly path: string;
}

/** Why a store could not be opened; `message` names the path and what to do. */
export type AuditOpenFailure =
  | 'corrupt'
  | 'locked'
  | 'newer-schema'
  | 'cannot-open'
  | 'read-only'
  | 'full'
  | 'migration'
  // A symlink, a hard link or not a file on the audit path.
  | 'unsafe-path'
  // A database ctxproxy did not make, or with triggers or views its migrations did not.
  | 'foreign';

export class AuditStoreOpenError extends Error {
  override readonly name = 'AuditStoreOpenError';
  constructor(
    readonly reason: AuditOpenFailure,
    readonly path: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
