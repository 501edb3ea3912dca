// The audit store. `save` only queues: the batch is written in one transaction
// on the next turn of the event loop, off the response path. Reads first write
// whatever is queued, so a snapshot id handed to a client is readable at once.

import { silentLogger } from '../shared/logger.ts';
import type { SnapshotQuery } from '../shared/ports.ts';
import type { Snapshot, SnapshotSummary } from '../shared/types.ts';
import { type ContextRef, encodeForwarded, sha256 } from './blobRefs.ts';
import { readCalibration, recordCalibration } from './calibration.ts';
import { betterSqlite3 } from './driver.ts';
import { openDatabase } from './openDatabase.ts';
import { fileBytes, liveBytes, prune } from './prune.ts';
import { conversationSnapshots, listSnapshots, searchSnapshots } from './queries.ts';
import { INSERT_SNAPSHOT, rowToSnapshot, snapshotValues } from './snapshotRow.ts';
import type { AuditStats, AuditStoreFull, AuditStoreOptions } from './types.ts';

export type { AuditStoreFull, AuditStoreOptions } from './types.ts';
export { AuditStoreOpenError } from './types.ts';

const EXPORT_PAGE = 100;

export function openAuditStore(options: AuditStoreOptions): AuditStoreFull {
  const logger = options.logger ?? silentLogger;
  const now = options.now ?? Date.now;
  const { path } = options;
  const dedupe = options.dedupe ?? 'all';
  const { db, version } = openDatabase({
    path,
    driver: options.driver ?? betterSqlite3,
    migrationsDir: options.migrationsDir,
    busyTimeoutMs: options.busyTimeoutMs ?? 2000,
    logger,
    now,
  });

  let queue: Snapshot[] = [];
  let scheduled = false;
  let closed = false;

  const insertBlob = db.prepare(
    'INSERT INTO blobs (sha256, text, bytes, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (sha256) DO NOTHING',
  );
  const insertSnapshot = db.prepare(INSERT_SNAPSHOT);
  const deleteSnapshot = db.prepare('DELETE FROM snapshots WHERE id = ?');
  const insertLink = db.prepare('INSERT OR IGNORE INTO snapshot_blobs (seq, sha256) VALUES (?, ?)');
  const selectBlobs = db.prepare(
    'SELECT b.sha256, b.text FROM snapshot_blobs l JOIN blobs b ON b.sha256 = l.sha256 WHERE l.seq = ?',
  );

  function writeOne(snapshot: Snapshot): void {
    const block = snapshot.contextBlock;
    let context: ContextRef | undefined;
    if (block !== undefined) {
      const hash = sha256(block);
      // The benchmark's baseline: one copy per snapshot, as if not content-addressed.
      context = { block, key: dedupe === 'none' ? `${hash}:${snapshot.id}` : hash };
    }
    const encoded = encodeForwarded(snapshot.forwarded, context, dedupe);
    if (context) encoded.blobs.set(context.key, context.block);
    for (const [key, text] of encoded.blobs) {
      insertBlob.run(key, text, Buffer.byteLength(text, 'utf8'), snapshot.createdAt);
    }
    // Saving an id again replaces it (triggers keep the search index, conversations and links right).
    deleteSnapshot.run(snapshot.id);
    const { lastInsertRowid } = insertSnapshot.run(...snapshotValues(snapshot, context?.key, encoded.json));
    for (const key of encoded.blobs.keys()) insertLink.run(lastInsertRowid, key);
  }

  /** Writes the queue in one transaction. On failure the batch is dropped and the error thrown. */
  function writeQueued(): void {
    if (queue.length === 0) return;
    const batch = queue;
    queue = [];
    const started = performance.now();
    try {
      db.transaction(() => {
        for (const snapshot of batch) writeOne(snapshot);
      });
    } catch (error) {
      logger.error('audit.write_failed', { snapshots: batch.length, error: (error as Error).message });
      throw error;
    }
    logger.info('audit.written', { snapshots: batch.length, ms: Math.round(performance.now() - started) });
  }

  function writeScheduled(): void {
    scheduled = false;
    try {
      writeQueued();
    } catch {
      // Already logged; a failed audit write must never take the server down.
    }
  }

  function assertOpen(): void {
    if (closed) throw new Error(`audit store ${path} is closed`);
  }

  function readSnapshot(id: string): Snapshot | undefined {
    const row = db.prepare('SELECT * FROM snapshots WHERE id = ?').get(id);
    if (!row) return undefined;
    const blobs = new Map<string, string>();
    for (const blob of selectBlobs.all(row.seq ?? null)) blobs.set(String(blob.sha256), String(blob.text));
    return rowToSnapshot(row, (key) => blobs.get(key));
  }

  function* exportSnapshots(since: number): Generator<Snapshot> {
    let after = 0;
    for (;;) {
      writeQueued();
      const rows = db
        .prepare('SELECT id, seq FROM snapshots WHERE created_at >= ? AND seq > ? ORDER BY seq LIMIT ?')
        .all(since, after, EXPORT_PAGE);
      for (const row of rows) {
        const snapshot = readSnapshot(String(row.id));
        if (snapshot) yield snapshot;
        after = Number(row.seq);
      }
      if (rows.length < EXPORT_PAGE) return;
    }
  }

  function stats(): AuditStats {
    const count = (sql: string) => Number(db.prepare(sql).get()?.n ?? 0);
    const range = db.prepare('SELECT min(created_at) AS oldest, max(created_at) AS newest FROM snapshots').get();
    const result: AuditStats = {
      path,
      schemaVersion: version,
      snapshots: count('SELECT count(*) AS n FROM snapshots'),
      conversations: count('SELECT count(*) AS n FROM conversations'),
      blobs: count('SELECT count(*) AS n FROM blobs'),
      blobBytes: count('SELECT coalesce(sum(bytes), 0) AS n FROM blobs'),
      fileBytes: fileBytes(path),
      liveBytes: liveBytes(db),
      queued: queue.length,
    };
    if (typeof range?.oldest === 'number') result.oldest = range.oldest;
    if (typeof range?.newest === 'number') result.newest = range.newest;
    return result;
  }

  return {
    path,
    save(snapshot) {
      assertOpen();
      queue.push(snapshot);
      if (!scheduled) {
        scheduled = true;
        setImmediate(writeScheduled);
      }
    },
    get(id) {
      assertOpen();
      writeQueued();
      return readSnapshot(id);
    },
    list(query: SnapshotQuery): SnapshotSummary[] {
      assertOpen();
      writeQueued();
      return listSnapshots(db, query);
    },
    search(text, limit) {
      assertOpen();
      writeQueued();
      return searchSnapshots(db, text, limit);
    },
    conversation(id) {
      assertOpen();
      writeQueued();
      return conversationSnapshots(db, id);
    },
    export(exportOptions = {}) {
      assertOpen();
      return exportSnapshots(exportOptions.since ?? Number.MIN_SAFE_INTEGER);
    },
    prune(pruneOptions) {
      assertOpen();
      writeQueued();
      const result = prune(db, path, pruneOptions, now());
      logger.info('audit.pruned', { ...result });
      return result;
    },
    getCalibration(model) {
      assertOpen();
      return readCalibration(db, model);
    },
    recordCalibration(model, estimated, actual) {
      assertOpen();
      return recordCalibration(db, model, estimated, actual, now());
    },
    stats() {
      assertOpen();
      return stats();
    },
    async flush() {
      if (closed) return;
      writeQueued();
    },
    async close() {
      if (closed) return;
      try {
        writeQueued();
      } finally {
        closed = true;
        db.close();
      }
    },
  };
}
