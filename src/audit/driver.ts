// The few SQLite calls the audit store needs, as a port. Everything specific to
// better-sqlite3 lives in this file, so another driver (Deno's `node:sqlite`)
// can implement the same interface without touching the store.

import Database from 'better-sqlite3';

export type SqlValue = string | number | bigint | Uint8Array | null;
export type SqlRow = Record<string, SqlValue>;

export interface SqlStatement {
  run(...params: SqlValue[]): { changes: number; lastInsertRowid: number | bigint };
  get(...params: SqlValue[]): SqlRow | undefined;
  all(...params: SqlValue[]): SqlRow[];
}

/** What went wrong, in words the store can turn into one clear message. */
export type SqlErrorKind = 'corrupt' | 'busy' | 'cannot-open' | 'read-only' | 'other';

export interface SqlDriver {
  exec(sql: string): void;
  /** Positional `?` parameters only: named-parameter syntax differs between drivers. */
  prepare(sql: string): SqlStatement;
  /** Runs `fn` inside BEGIN IMMEDIATE … COMMIT (ROLLBACK when it throws); returns its result. */
  transaction<T>(fn: () => T): T;
  /** `PRAGMA name` or `PRAGMA name = value`; returns the first column of the first row, if any. */
  pragma(name: string, value?: string | number): SqlValue | undefined;
  close(): void;
}

export interface DriverOptions {
  /** How long a write waits for another connection's lock before failing with SQLITE_BUSY. */
  busyTimeoutMs: number;
}

/** Opens connections and reads its own errors: error shapes differ between drivers. */
export interface SqlDriverFactory {
  open(path: string, options: DriverOptions): SqlDriver;
  errorKind(error: unknown): SqlErrorKind;
}

function openBetterSqlite(path: string, options: DriverOptions): SqlDriver {
  const db = new Database(path, { timeout: options.busyTimeoutMs });
  const cache = new Map<string, Database.Statement<SqlValue[]>>();
  const statement = (sql: string) => {
    let prepared = cache.get(sql);
    if (!prepared) {
      prepared = db.prepare<SqlValue[]>(sql);
      cache.set(sql, prepared);
    }
    return prepared;
  };
  return {
    exec: (sql) => {
      db.exec(sql);
    },
    prepare: (sql) => {
      const prepared = statement(sql);
      // Statements that return no rows (INSERT, DELETE …) reject get/all in better-sqlite3.
      const rows = prepared.reader;
      return {
        run: (...params) => {
          const result = prepared.run(...params);
          return { changes: result.changes, lastInsertRowid: result.lastInsertRowid };
        },
        get: (...params) => (rows ? (prepared.get(...params) as SqlRow | undefined) : undefined),
        all: (...params) => (rows ? (prepared.all(...params) as SqlRow[]) : []),
      };
    },
    transaction: (fn) => db.transaction(fn).immediate(),
    pragma: (name, value) => {
      const sql = value === undefined ? name : `${name} = ${value}`;
      const rows = db.pragma(sql) as SqlRow[];
      const first = rows[0];
      if (!first) return undefined;
      return Object.values(first)[0];
    },
    close: () => {
      cache.clear();
      db.close();
    },
  };
}

/** Classifies an error by SQLite's result code (better-sqlite3 puts it in `code`, e.g. SQLITE_NOTADB). */
function betterSqliteErrorKind(error: unknown): SqlErrorKind {
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
  if (code.startsWith('SQLITE_NOTADB') || code.startsWith('SQLITE_CORRUPT')) return 'corrupt';
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return 'busy';
  if (code.startsWith('SQLITE_CANTOPEN') || code.startsWith('SQLITE_PERM') || code.startsWith('SQLITE_AUTH')) {
    return 'cannot-open';
  }
  if (code.startsWith('SQLITE_READONLY')) return 'read-only';
  return 'other';
}

export const betterSqlite3: SqlDriverFactory = { open: openBetterSqlite, errorKind: betterSqliteErrorKind };
