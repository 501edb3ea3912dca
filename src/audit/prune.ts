// Retention: delete old snapshots (by age, then oldest-first down to a size cap),
// drop the context blocks and message nodes nothing refers to any more, then VACUUM so the file
// really shrinks.

import { statSync } from 'node:fs';
import type { SqlDriver } from './driver.ts';
import { deleteUnreachableNodes } from './messageChain.ts';
import type { PruneOptions, PruneResult } from './types.ts';

/** How many of the oldest to delete next: the excess over the cap at the average snapshot size. */
function nextStep(db: SqlDriver, live: number, cap: number): number {
  const count = Number(db.prepare('SELECT count(*) AS n FROM snapshots').get()?.n ?? 0);
  if (count === 0) return 0;
  const average = live / count;
  return Math.max(1, Math.ceil((live - cap) / average));
}

export function fileBytes(path: string): number {
  let total = 0;
  for (const file of [path, `${path}-wal`]) {
    try {
      total += statSync(file).size;
    } catch {
      // No WAL file right now.
    }
  }
  return total;
}

/** Pages in use: what the file would shrink to after VACUUM. */
export function liveBytes(db: SqlDriver): number {
  const pages = Number(db.pragma('page_count') ?? 0);
  const free = Number(db.pragma('freelist_count') ?? 0);
  const size = Number(db.pragma('page_size') ?? 4096);
  return (pages - free) * size;
}

/** Context blocks and message nodes that no snapshot left refers to (a request in flight may refer to a block). */
function deleteUnreferenced(db: SqlDriver): void {
  db.prepare(
    `DELETE FROM blobs WHERE NOT EXISTS (SELECT 1 FROM snapshots s WHERE s.context_sha256 = blobs.sha256)
     AND NOT EXISTS (SELECT 1 FROM in_flight f WHERE f.context_sha256 = blobs.sha256)`,
  ).run();
  deleteUnreachableNodes(db);
}

/**
 * How many snapshots a prune would delete: exactly those older than the cutoff, then, for a size cap,
 * the oldest of the rest at their average size (what VACUUM will leave is not known before it runs).
 */
function planPrune(db: SqlDriver, path: string, options: PruneOptions, now: number): PruneResult {
  const bytes = fileBytes(path);
  const total = Number(db.prepare('SELECT count(*) AS n FROM snapshots').get()?.n ?? 0);
  let deleted = 0;
  if (options.olderThanMs !== undefined) {
    const cutoff = now - options.olderThanMs;
    deleted = Number(db.prepare('SELECT count(*) AS n FROM snapshots WHERE created_at < ?').get(cutoff)?.n ?? 0);
  }
  const live = liveBytes(db);
  const estimated = options.maxBytes !== undefined && live > options.maxBytes && total > deleted;
  if (estimated && options.maxBytes !== undefined) {
    const left = total - deleted;
    const liveLeft = live * (left / total);
    if (liveLeft > options.maxBytes)
      deleted += Math.min(left, Math.ceil((liveLeft - options.maxBytes) / (live / total)));
  }
  return { deleted, total, bytesBefore: bytes, bytesAfter: bytes, ...(estimated ? { estimated } : {}) };
}

export function prune(db: SqlDriver, path: string, options: PruneOptions, now: number): PruneResult {
  if (options.dryRun) return planPrune(db, path, options, now);
  const bytesBefore = fileBytes(path);
  const total = Number(db.prepare('SELECT count(*) AS n FROM snapshots').get()?.n ?? 0);
  let deleted = 0;
  if (options.olderThanMs !== undefined) {
    const cutoff = now - options.olderThanMs;
    deleted += db.transaction(() => {
      const { changes } = db.prepare('DELETE FROM snapshots WHERE created_at < ?').run(cutoff);
      deleteUnreferenced(db);
      return changes;
    });
  }
  if (options.maxBytes !== undefined) {
    const cap = options.maxBytes;
    for (let live = liveBytes(db); live > cap; live = liveBytes(db)) {
      const step = nextStep(db, live, cap);
      if (step === 0) break;
      const changes = db.transaction(() => {
        const result = db
          .prepare('DELETE FROM snapshots WHERE seq IN (SELECT seq FROM snapshots ORDER BY created_at, seq LIMIT ?)')
          .run(step);
        deleteUnreferenced(db);
        return result.changes;
      });
      if (changes === 0) break;
      deleted += changes;
    }
  }
  // Nothing deleted, nothing to reclaim: skip the VACUUM (it rewrites the whole file).
  if (deleted > 0) {
    db.exec('VACUUM');
    db.pragma('wal_checkpoint(TRUNCATE)');
  }
  return { deleted, total, bytesBefore, bytesAfter: fileBytes(path) };
}
