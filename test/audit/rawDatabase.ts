// A second connection to a test's database, through the same driver the store
// uses in this runtime (better-sqlite3 on Node, node:sqlite on Deno): what is
// really in the file, or a lock held the way another process would hold it.

import { chooseSqlDriver } from '../../src/audit/defaultDriver.ts';
import type { SqlDriver, SqlRow } from '../../src/audit/driver.ts';

export function openRaw(path: string, options: { readOnly?: boolean } = {}): SqlDriver {
  return chooseSqlDriver().open(path, { busyTimeoutMs: 0, readOnly: options.readOnly ?? false });
}

/** Runs one read on a read-only connection and closes it. */
export function queryRaw(path: string, sql: string, ...params: string[]): SqlRow[] {
  const db = openRaw(path, { readOnly: true });
  try {
    return db.prepare(sql).all(...params);
  } finally {
    db.close();
  }
}
