// The SqlDriver port on the runtime's built-in `node:sqlite` (`DatabaseSync`):
// what the store uses on Deno, where better-sqlite3 cannot load, and on Node
// 22.5+ where the module exists. Its results are reshaped to match
// better-sqlite3's exactly: plain row objects, numeric `changes`, no rows from
// statements that return none.

import type { DriverOptions, SqlDriver, SqlDriverFactory, SqlErrorKind, SqlRow, SqlValue } from './driver.ts';

/** The part of `node:sqlite` used here (@types/node 20 does not describe the module). */
interface SqliteStatement {
  run(...params: SqlValue[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  get(...params: SqlValue[]): SqlRow | undefined;
  all(...params: SqlValue[]): SqlRow[];
  /** Node 22.16+ and Deno; without it every statement is treated as returning rows. */
  columns?: () => unknown[];
}

interface SqliteDatabase {
  exec(sql: string): void;
  prepare(sql: string): SqliteStatement;
  close(): void;
}

interface SqliteModule {
  DatabaseSync: new (path: string, options?: { readOnly?: boolean }) => SqliteDatabase;
}

/** `node:sqlite` when this runtime has it (Deno 2, Node 22.5+ without a flag since 22.13), else undefined. */
export function loadNodeSqlite(): SqliteModule | undefined {
  try {
    const module = process.getBuiltinModule('node:sqlite') as Partial<SqliteModule> | undefined;
    return typeof module?.DatabaseSync === 'function' ? (module as SqliteModule) : undefined;
  } catch {
    return undefined;
  }
}

function openNodeSqlite(path: string, options: DriverOptions): SqlDriver {
  const sqlite = loadNodeSqlite();
  if (!sqlite)
    throw new Error(`node:sqlite is not available in this runtime (${process.release.name} ${process.version})`);
  const db = new sqlite.DatabaseSync(path, { readOnly: options.readOnly ?? false });
  // Set by pragma rather than the `timeout` option, which older Node releases of the module lack.
  db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs))}`);
  const cache = new Map<string, { prepared: SqliteStatement; rows: boolean }>();
  const statement = (sql: string) => {
    let entry = cache.get(sql);
    if (!entry) {
      const prepared = db.prepare(sql);
      entry = { prepared, rows: prepared.columns ? prepared.columns().length > 0 : true };
      cache.set(sql, entry);
    }
    return entry;
  };
  const depth = { value: 0 };
  return {
    exec: (sql) => {
      db.exec(sql);
    },
    prepare: (sql) => {
      const { prepared, rows } = statement(sql);
      return {
        run: (...params) => {
          const result = prepared.run(...params);
          return { changes: Number(result.changes), lastInsertRowid: result.lastInsertRowid };
        },
        // Rows come with a null prototype; spread them so they compare equal to better-sqlite3's.
        get: (...params) => {
          if (!rows) return undefined;
          const row = prepared.get(...params);
          return row === undefined ? undefined : { ...row };
        },
        all: (...params) => (rows ? prepared.all(...params).map((row) => ({ ...row })) : []),
      };
    },
    transaction: (fn) => runTransaction(db, depth, fn),
    pragma: (name, value) => {
      const row = db.prepare(value === undefined ? `PRAGMA ${name}` : `PRAGMA ${name} = ${value}`).get();
      return row === undefined ? undefined : Object.values(row)[0];
    },
    close: () => {
      cache.clear();
      db.close();
    },
  };
}

/** BEGIN IMMEDIATE … COMMIT, or a savepoint inside an open transaction (as better-sqlite3's `transaction` does). */
function runTransaction<T>(db: SqliteDatabase, depth: { value: number }, fn: () => T): T {
  const nested = depth.value > 0;
  const savepoint = `ctxproxy_${depth.value}`;
  db.exec(nested ? `SAVEPOINT ${savepoint}` : 'BEGIN IMMEDIATE');
  depth.value += 1;
  try {
    const result = fn();
    db.exec(nested ? `RELEASE ${savepoint}` : 'COMMIT');
    return result;
  } catch (error) {
    try {
      db.exec(nested ? `ROLLBACK TO ${savepoint}; RELEASE ${savepoint}` : 'ROLLBACK');
    } catch {
      // SQLite may have ended the transaction itself; the first error is the one to report.
    }
    throw error;
  } finally {
    depth.value -= 1;
  }
}

/** SQLite's primary result codes (the low byte of an extended code) as the store's kinds. */
function kindOfResultCode(code: number): SqlErrorKind {
  switch (code & 0xff) {
    case 11: // SQLITE_CORRUPT
    case 26: // SQLITE_NOTADB
      return 'corrupt';
    case 5: // SQLITE_BUSY
    case 6: // SQLITE_LOCKED
      return 'busy';
    case 3: // SQLITE_PERM
    case 14: // SQLITE_CANTOPEN
    case 23: // SQLITE_AUTH
      return 'cannot-open';
    case 8: // SQLITE_READONLY
      return 'read-only';
    case 13: // SQLITE_FULL
      return 'full';
    case 10: // SQLITE_IOERR
      return 'io';
    default:
      return 'other';
  }
}

/** SQLite's own texts for the same codes, for errors that carry no `errcode` (Deno sets it only sometimes). */
const KIND_BY_MESSAGE: [RegExp, SqlErrorKind][] = [
  [/^(file is not a database|database disk image is malformed)/, 'corrupt'],
  [/^database (table )?is locked/, 'busy'],
  [/^(unable to open database file|access permission denied|authorization denied)/, 'cannot-open'],
  [/^attempt to write a readonly database/, 'read-only'],
  [/^database or disk is full/, 'full'],
  [/^disk I\/O error/, 'io'],
];

/** node:sqlite errors have `code: 'ERR_SQLITE_ERROR'`, and SQLite's result code in `errcode` when known. */
function nodeSqliteErrorKind(error: unknown): SqlErrorKind {
  if (!(error instanceof Error)) return 'other';
  const fields = error as Error & { code?: unknown; errcode?: unknown };
  if (fields.code !== 'ERR_SQLITE_ERROR') return 'other';
  if (typeof fields.errcode === 'number') return kindOfResultCode(fields.errcode);
  return KIND_BY_MESSAGE.find(([pattern]) => pattern.test(error.message))?.[1] ?? 'other';
}

export const nodeSqlite: SqlDriverFactory = {
  name: 'node:sqlite',
  open: openNodeSqlite,
  errorKind: nodeSqliteErrorKind,
};
