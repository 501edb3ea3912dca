// Requests recorded when they went to the model and never completed. A row is
// written `in_flight` (with its writer's pid) before the upstream sees the
// prompt; its final version replaces it. If the writer died first (SIGKILL, a
// crash), the row stays `in_flight`: every open marks the rows of writers that
// are gone `interrupted`, so `ctxproxy audit list` and the pages show them.
// Rows of a writer still running (a `ctxproxy serve` next to this CLI) are left alone.

import type { Logger } from '../shared/ports.ts';
import type { Outcome } from '../shared/types.ts';
import type { SqlDriver } from './driver.ts';

/** Whether a process with this pid runs on this machine (signal 0 checks without sending anything). */
export function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as { code?: unknown }).code === 'EPERM';
  }
}

/** Marks the in-flight rows of writers that are gone; returns how many. Never throws (the open must not fail for it). */
export function markInterrupted(db: SqlDriver, logger: Logger, alive = processAlive): number {
  try {
    const writers = db
      .prepare("SELECT DISTINCT writer_pid AS pid FROM snapshots WHERE outcome = 'in_flight'")
      .all()
      .map((row) => (typeof row.pid === 'number' ? row.pid : null));
    let marked = 0;
    for (const pid of writers) {
      if (pid !== null && alive(pid)) continue;
      marked += db
        .prepare("UPDATE snapshots SET outcome = 'interrupted' WHERE outcome = 'in_flight' AND writer_pid IS ?")
        .run(pid).changes;
    }
    if (marked > 0) logger.warn('audit.interrupted', { snapshots: marked });
    return marked;
  } catch (error) {
    // A locked or read-only database: the rows stay in flight until an open that can write.
    logger.warn('audit.interrupted_unmarked', { error: (error as Error)?.name });
    return 0;
  }
}

/** This process's in-flight rows on disk get `outcome` (a shutdown that cannot wait for them). */
export function settleOwnInFlight(db: SqlDriver, outcome: Extract<Outcome, 'aborted' | 'interrupted'>): number {
  return db
    .prepare("UPDATE snapshots SET outcome = ? WHERE outcome = 'in_flight' AND writer_pid = ?")
    .run(outcome, process.pid).changes;
}
