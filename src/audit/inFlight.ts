// Requests recorded when they went to the model and never completed. A record is
// written to `in_flight` (with its writer's pid) before the upstream sees the
// prompt; its final version goes to `snapshots` and deletes it. If the writer
// died first (SIGKILL, a crash), the row stays: every open moves the rows of
// writers that are gone to `snapshots` as `interrupted`, byte for byte as they
// were sent, so `ctxproxy audit list`, search and the pages show them. Rows of a
// writer still running (a `ctxproxy serve` next to this CLI) are left alone.
// Databases written before migration 0009 kept such rows in `snapshots` with the
// outcome `in_flight`; those are marked where they are.

import type { Logger } from '../shared/ports.ts';
import type { Outcome } from '../shared/types.ts';
import type { SqlDriver } from './driver.ts';
import { SNAPSHOT_COLUMNS } from './snapshotRow.ts';

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

const COLUMNS = SNAPSHOT_COLUMNS.join(', ');
const MOVED_COLUMNS = SNAPSHOT_COLUMNS.map((column) => (column === 'outcome' ? '?' : `f.${column}`)).join(', ');

/**
 * One writer's in-flight rows into `snapshots` with `outcome` (a row whose id is there already is only
 * deleted: its final version was written). Their context blocks enter `blobs`. Returns how many moved.
 */
function moveInFlight(db: SqlDriver, pid: number | null, outcome: Outcome): number {
  return db.transaction(() => {
    db.prepare(
      `INSERT INTO blobs (sha256, text, bytes, created_at)
       SELECT context_sha256, context_block, length(CAST(context_block AS BLOB)), created_at FROM in_flight
       WHERE writer_pid IS ? AND context_block IS NOT NULL AND context_sha256 IS NOT NULL
       ON CONFLICT (sha256) DO NOTHING`,
    ).run(pid);
    const moved = db
      .prepare(
        `INSERT INTO snapshots (${COLUMNS}) SELECT ${MOVED_COLUMNS} FROM in_flight f
         WHERE f.writer_pid IS ? AND NOT EXISTS (SELECT 1 FROM snapshots s WHERE s.id = f.id)
         ORDER BY f.rowid`,
      )
      .run(outcome, pid).changes;
    db.prepare('DELETE FROM in_flight WHERE writer_pid IS ?').run(pid);
    return moved;
  });
}

/** Moves (or, before 0009, marks) the in-flight records of writers that are gone; returns how many. Never throws (the open must not fail for it). */
export function markInterrupted(db: SqlDriver, logger: Logger, alive = processAlive): number {
  try {
    const writers = db
      .prepare(
        `SELECT writer_pid AS pid FROM in_flight
         UNION SELECT writer_pid AS pid FROM snapshots WHERE outcome = 'in_flight'`,
      )
      .all()
      .map((row) => (typeof row.pid === 'number' ? row.pid : null));
    let marked = 0;
    for (const pid of writers) {
      if (pid !== null && alive(pid)) continue;
      marked += moveInFlight(db, pid, 'interrupted');
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

/** This process's in-flight records on disk get `outcome` (a shutdown that cannot wait for them). */
export function settleOwnInFlight(db: SqlDriver, outcome: Extract<Outcome, 'aborted' | 'interrupted'>): number {
  return moveInFlight(db, process.pid, outcome);
}
