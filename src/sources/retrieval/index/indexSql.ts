// The SQLite calls the workspace index makes, apart from the store so that the
// tables of each part (store.ts, symbolTables.ts, historyStore.ts) can name it
// without importing each other.

/** The few SQLite calls the index makes; the audit's driver (better-sqlite3, or node:sqlite on Deno) fits. */
export interface IndexSql {
  exec(sql: string): void;
  prepare(sql: string): {
    run(...params: (string | number | null | Uint8Array)[]): unknown;
    get(...params: (string | number | null)[]): Record<string, unknown> | undefined;
    all(...params: (string | number | null)[]): Record<string, unknown>[];
  };
  transaction<T>(fn: () => T): T;
  pragma(name: string, value?: string | number): unknown;
  close(): void;
  /**
   * On: while a long pass writes, the WAL is checkpointed apart from its commits (another thread), so a
   * commit never waits for a checkpoint's copy and fsync; off: the commits checkpoint again. Optional.
   */
  checkpointsAside?(on: boolean): void;
}
