// Which SQLite driver the store uses when the caller does not pass one: the
// runtime decides. Deno cannot load better-sqlite3 (a V8 addon, not Node-API),
// so it gets its built-in `node:sqlite`; Node gets better-sqlite3, which runs on
// Node 20 where `node:sqlite` does not exist. Neither module is loaded here.

import { betterSqlite3 } from './betterSqliteDriver.ts';
import type { SqlDriverFactory } from './driver.ts';
import { loadNodeSqlite, nodeSqlite } from './nodeSqliteDriver.ts';

export { betterSqlite3, nodeSqlite };

/** Overrides the choice (e.g. to run the store's tests on node:sqlite under Node 22.5+). */
export const DRIVER_ENV = 'CTXPROXY_SQLITE_DRIVER';

export interface DriverChoice {
  /** True under Deno. */
  deno: boolean;
  /** The value of CTXPROXY_SQLITE_DRIVER, if set. */
  requested?: string | undefined;
}

function currentRuntime(): DriverChoice {
  return { deno: 'Deno' in globalThis, requested: process.env[DRIVER_ENV] || undefined };
}

export function chooseSqlDriver(choice: DriverChoice = currentRuntime()): SqlDriverFactory {
  if (choice.requested === 'node:sqlite') return nodeSqlite;
  if (choice.requested === 'better-sqlite3') return betterSqlite3;
  if (choice.requested !== undefined) {
    throw new Error(`${DRIVER_ENV}=${choice.requested} is not a SQLite driver; use better-sqlite3 or node:sqlite`);
  }
  return choice.deno ? nodeSqlite : betterSqlite3;
}

/**
 * The drivers that can open a database in this runtime, tried for real: on Node
 * 20 better-sqlite3 only, on Node 22.5+ both, on Deno node:sqlite only.
 */
export function availableSqlDrivers(): SqlDriverFactory[] {
  const drivers: SqlDriverFactory[] = [];
  for (const driver of [betterSqlite3, nodeSqlite]) {
    if (driver === nodeSqlite && !loadNodeSqlite()) continue;
    try {
      driver.open(':memory:', { busyTimeoutMs: 0 }).close();
      drivers.push(driver);
    } catch {
      // Not loadable here (better-sqlite3 under Deno).
    }
  }
  return drivers;
}
