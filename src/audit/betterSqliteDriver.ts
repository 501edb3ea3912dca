// The SqlDriver port on better-sqlite3 (Node). The native module is loaded on the
// first open, not when this file is imported, so a runtime that cannot load it
// (Deno: better-sqlite3 is a V8 addon, not Node-API) can still import the store.

import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import type { DriverOptions, SqlDriver, SqlDriverFactory, SqlErrorKind, SqlRow, SqlValue } from './driver.ts';

let loaded: typeof BetterSqlite3 | undefined;

/** The page cache of every connection, in KiB (the pragma's negative form). */
const PAGE_CACHE_KIB = 2_000;

function loadBetterSqlite3(): typeof BetterSqlite3 {
  loaded ??= createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
  return loaded;
}

function openBetterSqlite(path: string, options: DriverOptions): SqlDriver {
  const Database = loadBetterSqlite3();
  const db = new Database(path, { timeout: options.busyTimeoutMs, readonly: options.readOnly ?? false });
  // SQLite's own default page cache (2 MB; Deno's node:sqlite keeps it too). better-sqlite3 builds SQLite with
  // 16 MB, which a connection fills as its database grows (the audit's snapshots, a 50,000-file index) and the
  // server then holds for as long as it runs; a lookup reads a few b-tree pages, which the file cache serves.
  db.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
  const cache = new Map<string, BetterSqlite3.Statement<SqlValue[]>>();
  const statement = (sql: string) => {
    let prepared = cache.get(sql);
    if (!prepared) {
      prepared = db.prepare<SqlValue[]>(sql);
      cache.set(sql, prepared);
    }
    return prepared;
  };
  // One wrapper per connection: db.transaction(fn) builds four wrapped functions and their properties on
  // every call, and the audit store runs a transaction for every request's in-flight record.
  const inTransaction = db.transaction((fn: () => unknown) => fn());
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
    transaction: <T>(fn: () => T) => inTransaction.immediate(fn) as T,
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
  if (code.startsWith('SQLITE_FULL')) return 'full';
  if (code.startsWith('SQLITE_IOERR')) return 'io';
  return 'other';
}

export const betterSqlite3: SqlDriverFactory = {
  name: 'better-sqlite3',
  open: openBetterSqlite,
  errorKind: betterSqliteErrorKind,
};
