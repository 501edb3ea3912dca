// Opening the audit database: the file is created private (0600), without
// following a link, before SQLite sees it (auditFiles.ts); a database ctxproxy
// did not make is refused before anything is written to it (ownership.ts); then
// every way opening can fail (not a database, locked by another process, written
// by a newer ctxproxy, unreadable, a link on the path) becomes ONE clear error
// here, instead of a failure on every request later.

import { accessSync, constants, existsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Logger } from '../shared/ports.ts';
import { prepareAuditFiles, UnsafeAuditPathError } from './auditFiles.ts';
import type { SqlDriver, SqlDriverFactory } from './driver.ts';
import { NewerSchemaError, readMigrations, runMigrations } from './migrate.ts';
import { checkOwnership, ForeignDatabaseError } from './ownership.ts';
import { type AuditOpenFailure, AuditStoreOpenError } from './types.ts';

export interface OpenDatabaseOptions {
  path: string;
  driver: SqlDriverFactory;
  migrationsDir?: string | undefined;
  busyTimeoutMs: number;
  logger: Logger;
  now: () => number;
  /** Folders from here down to the database are ctxproxy's to check: none may be a symlink. */
  workspace?: string | undefined;
  /** The user named the file (--db, CTXPROXY_DB): a database without ctxproxy's mark is adopted. */
  userChosen?: boolean | undefined;
}

/** The files, made without following links; a folder that cannot be made is explained by its nearest ancestor. */
function prepareFiles(path: string, workspace: string | undefined, logger: Logger): { created: boolean } {
  try {
    return prepareAuditFiles(path, workspace, logger);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EACCES') throw writeErrorOfAncestor(dirname(path)) ?? error;
    throw error;
  }
}

/**
 * A recursive mkdir on a read-only filesystem reports ENOENT; the nearest folder that exists
 * tells the real reason (EROFS, EACCES) when asked for write access.
 */
function writeErrorOfAncestor(folder: string): unknown {
  let current = folder;
  while (!existsSync(current) && dirname(current) !== current) current = dirname(current);
  try {
    accessSync(current, constants.W_OK);
    return undefined;
  } catch (error) {
    return error;
  }
}

function explain(reason: AuditOpenFailure, path: string, detail: string): string {
  switch (reason) {
    case 'unsafe-path':
      return `audit database ${path} is not used: ${detail}. Remove what is in the way, or pass --db to use another file.`;
    case 'foreign':
      return `audit database ${path} is not used: ${detail}. Move it aside (mv "${path}" "${path}.bad") to start a new audit log, or pass --db to use another file.`;
    case 'corrupt':
      return `audit database ${path} is not a readable SQLite database (${detail}). Move it aside (mv "${path}" "${path}.bad") to start a new audit log, or pass --db to use another file.`;
    case 'locked':
      return `audit database ${path} is locked by another process (${detail}). Stop the other ctxproxy using it, or pass --db to use another file.`;
    case 'read-only':
      if (/EROFS|read-only file system/i.test(detail)) {
        return `audit database ${path} cannot be written: the filesystem holding it is mounted read-only (${detail}). Remount it read-write, or pass --db to put the log on another filesystem.`;
      }
      return `audit database ${path} cannot be written (${detail}). Check the file's owner and permissions, or pass --db to use another file.`;
    case 'full':
      return `audit database ${path} cannot be written: the filesystem holding it is full (${detail}). Free some space, or pass --db to put the log on another filesystem.`;
    case 'cannot-open':
      return `audit database ${path} cannot be opened (${detail}). Check that its folder exists and is writable, or pass --db to use another file.`;
    case 'newer-schema':
      return `audit database ${path} was written by a newer ctxproxy (${detail}). Upgrade ctxproxy, or pass --db to use another file.`;
    case 'migration':
      return `audit database ${path} could not be upgraded (${detail}). Nothing was changed by the failed step; report this, or pass --db to use another file.`;
  }
}

function failureOf(error: unknown, driver: SqlDriverFactory): AuditOpenFailure {
  if (error instanceof UnsafeAuditPathError) return 'unsafe-path';
  if (error instanceof ForeignDatabaseError) return 'foreign';
  if (error instanceof NewerSchemaError) return 'newer-schema';
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
  if (code === 'EROFS') return 'read-only';
  if (code === 'ENOSPC' || code === 'EDQUOT') return 'full';
  if (code === 'EACCES' || code === 'EPERM' || code === 'ENOENT' || code === 'EISDIR' || code === 'ENOTDIR') {
    return 'cannot-open';
  }
  const kind = driver.errorKind(error);
  if (kind === 'busy') return 'locked';
  if (kind === 'other') return 'migration';
  if (kind === 'io') return 'cannot-open';
  return kind;
}

/** Opens, configures and migrates; returns the connection and its schema version, or throws AuditStoreOpenError. */
export function openDatabase(options: OpenDatabaseOptions): { db: SqlDriver; version: number } {
  const { path, driver, logger } = options;
  let db: SqlDriver | undefined;
  try {
    const { created } = prepareFiles(path, options.workspace, logger);
    db = driver.open(path, { busyTimeoutMs: options.busyTimeoutMs });
    const migrations = readMigrations(options.migrationsDir);
    // Only reads (a file that is not a database fails here): a database that is not ours is left untouched.
    checkOwnership({ db, driver, migrations, created, userChosen: options.userChosen ?? false, logger });
    db.pragma('journal_mode', 'WAL');
    db.pragma('synchronous', 'NORMAL');
    db.pragma('foreign_keys', 'ON');
    const result = runMigrations(db, { migrations, now: options.now });
    // Take the write lock once now, so a database another process holds fails at open, not per request.
    db.transaction(() => db?.prepare('SELECT count(*) FROM schema_migrations').get());
    if (result.applied.length > 0)
      logger.info('audit.migrated', { applied: result.applied.join(','), version: result.version });
    return { db, version: result.version };
  } catch (error) {
    try {
      db?.close();
    } catch {
      // Already failing; the first error is the one to report.
    }
    const reason = failureOf(error, driver);
    const detail = error instanceof Error ? error.message : String(error);
    logger.error('audit.open_failed', { reason });
    throw new AuditStoreOpenError(reason, path, explain(reason, path, detail), { cause: error });
  }
}
