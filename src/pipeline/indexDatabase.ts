// Opening a workspace's retrieval index, `.ctxproxy/index.db`: the same care
// as the audit log (auditFiles.ts: no folder on the way may be a link, the
// folder is private and git-ignored, the file is made 0600 without following a
// link, SQLite's side files are checked), with the runtime's SQLite driver.
// Whose file it is, is checked when the index reads its header (store.ts): a
// file another program made is left alone.
//
// While a long pass writes, the WAL is checkpointed by a worker thread with its
// own connection, not inside the pass's commits: a checkpoint copies up to
// 1,000 pages into the database file and waits for its fsync, which on a busy
// disk held the event loop for 100–150 ms in one commit (bench/index).

import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { AUDIT_FOLDER, prepareAuditFiles } from '../audit/auditFiles.ts';
import { chooseSqlDriver } from '../audit/defaultDriver.ts';
import type { Logger } from '../shared/ports.ts';
import type { IndexSql } from '../sources/retrieval/index/indexSql.ts';

export const INDEX_FILE = 'index.db';

/**
 * A write waits this long for another process's lock (a second server, `preview`). The wait blocks the
 * event loop, so it is short: a write that gives up leaves the index to be caught up by the next pass.
 */
const INDEX_BUSY_MS = 100;

/** SQLite's own default: the WAL is checkpointed by the committing connection past this many pages. */
const AUTO_CHECKPOINT_PAGES = 1000;
/** How often the worker checkpoints while a pass writes. */
const CHECKPOINT_EVERY_MS = 200;

export function openIndexDatabase(root: string, logger: Logger): IndexSql {
  const path = join(root, AUDIT_FOLDER, INDEX_FILE);
  prepareAuditFiles(path, root, logger);
  const driver = chooseSqlDriver();
  const db = driver.open(path, { busyTimeoutMs: INDEX_BUSY_MS });
  // Deno's node:sqlite is not loaded in a worker here: there the commits keep checkpointing themselves.
  if (driver.name !== 'better-sqlite3') return db;
  let closed = false;
  const aside = checkpointWorker(path, (on) => {
    db.pragma('wal_autocheckpoint', on ? 0 : AUTO_CHECKPOINT_PAGES);
    // A writer that starts the WAL over (after the worker's checkpoint copied it all) syncs its new header
    // first, at `synchronous = NORMAL`: one fsync in a commit of the event loop (288 ms in bench/index). The
    // worker's connection syncs the WAL and the database around each checkpoint, so an OS crash loses at most
    // the commits since the last one: the index is a cache, and what remains is a consistent earlier state.
    db.pragma('synchronous', on ? 'OFF' : 'NORMAL');
  });
  return {
    ...db,
    checkpointsAside: (on) => {
      if (!closed) aside.set(on);
    },
    close: () => {
      aside.set(false);
      closed = true;
      db.close();
    },
  };
}

// Plain CommonJS run by the worker: no loader, so it starts the same from the sources (tsx) and from dist.
const CHECKPOINTER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.path, { timeout: 0 });
db.pragma('synchronous = NORMAL');
const checkpoint = () => { try { db.pragma('wal_checkpoint(PASSIVE)'); } catch {} };
const timer = setInterval(checkpoint, workerData.everyMs);
parentPort.on('message', () => {
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort.close();
});
`;

/**
 * Turns the worker on (the committing connection stops checkpointing) and off (one last checkpoint in the
 * worker, then the connection checkpoints itself again). A worker that cannot start, or fails, leaves the
 * checkpoints to the commits, as without it.
 */
function checkpointWorker(path: string, asideNow: (on: boolean) => void): { set: (on: boolean) => void } {
  let worker: Worker | undefined;
  const stop = () => {
    const running = worker;
    worker = undefined;
    asideNow(false);
    running?.postMessage('stop');
  };
  return {
    set(on) {
      if (!on) {
        if (worker) stop();
        return;
      }
      if (worker) return;
      try {
        const module = createRequire(import.meta.url).resolve('better-sqlite3');
        worker = new Worker(CHECKPOINTER, { eval: true, workerData: { module, path, everyMs: CHECKPOINT_EVERY_MS } });
      } catch {
        return;
      }
      worker.unref();
      worker.on('error', () => {
        if (worker) stop();
      });
      asideNow(true);
    },
  };
}
