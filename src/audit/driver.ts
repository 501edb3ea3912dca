// The few SQLite calls the audit store needs, as a port. Two drivers implement
// it: better-sqlite3 on Node (betterSqliteDriver.ts) and the runtime's built-in
// `node:sqlite` on Deno (nodeSqliteDriver.ts); defaultDriver.ts picks one. This
// file holds types only, so importing it loads no native module.

export type SqlValue = string | number | bigint | Uint8Array | null;
export type SqlRow = Record<string, SqlValue>;

export interface SqlStatement {
  run(...params: SqlValue[]): { changes: number; lastInsertRowid: number | bigint };
  /** Rows are plain objects; a statement that returns no rows (INSERT …) is not run and gives undefined. */
  get(...params: SqlValue[]): SqlRow | undefined;
  all(...params: SqlValue[]): SqlRow[];
}

/** What went wrong, in words the store can turn into one clear message. */
export type SqlErrorKind = 'corrupt' | 'busy' | 'cannot-open' | 'read-only' | 'full' | 'io' | 'other';

export interface SqlDriver {
  exec(sql: string): void;
  /** Positional `?` parameters only: named-parameter syntax differs between drivers. */
  prepare(sql: string): SqlStatement;
  /** Runs `fn` inside BEGIN IMMEDIATE … COMMIT (ROLLBACK when it throws); returns its result. Nests as a savepoint. */
  transaction<T>(fn: () => T): T;
  /** `PRAGMA name` or `PRAGMA name = value`; returns the first column of the first row, if any. */
  pragma(name: string, value?: string | number): SqlValue | undefined;
  close(): void;
}

export interface DriverOptions {
  /** How long a write waits for another connection's lock before failing with SQLITE_BUSY. */
  busyTimeoutMs: number;
  /** Opens without write access (tests and tools that only look). Default false. */
  readOnly?: boolean | undefined;
}

/** Opens connections and reads its own errors: error shapes differ between drivers. */
export interface SqlDriverFactory {
  /** `better-sqlite3` or `node:sqlite`: for logs and test names. */
  readonly name: string;
  open(path: string, options: DriverOptions): SqlDriver;
  errorKind(error: unknown): SqlErrorKind;
}
