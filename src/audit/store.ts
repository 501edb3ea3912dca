// The audit store. `save` only queues: the batch is written in one transaction
// on the next turn of the event loop, off the response path. Reads first write
// whatever is queued, so a snapshot id handed to a client is readable at once.

import { silentLogger } from '../shared/logger.ts';
import type { SnapshotQuery } from '../shared/ports.ts';
import type { Snapshot, SnapshotSummary } from '../shared/types.ts';
import { type ContextRef, decodeMessages, encodeMessages, sha256 } from './blobRefs.ts';
import { readCalibration, recordCalibration } from './calibration.ts';
import { betterSqlite3 } from './driver.ts';
import { readChain, writeChain } from './messageChain.ts';
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
  const selectBlob = db.prepare('SELECT text FROM blobs WHERE sha256 = ?');

  function writeOne(snapshot: Snapshot): void {
    const block = snapshot.contextBlock;
    let context: ContextRef | undefined;
    if (block !== undefined) {
      const hash = sha256(block);
      // The `none` baseline: one copy per snapshot, as if not content-addressed.
      context = { block, key: dedupe === 'none' ? `${hash}:${snapshot.id}` : hash };
      insertBlob.run(context.key, block, Buffer.byteLength(block, 'utf8'), snapshot.createdAt);
    }
    const messages = encodeMessages(snapshot.forwarded, context);
    const chain = dedupe === 'all' ? writeChain(db, messages) : undefined;
    const forwardedJson = chain ? '' : `[${messages.join(',')}]`;
    // Saving an id again replaces it (triggers keep the search index and conversations right).
    deleteSnapshot.run(snapshot.id);
    insertSnapshot.run(...snapshotValues(snapshot, { contextKey: context?.key, chain, forwardedJson }));
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
    const contextKey = typeof row.context_sha256 === 'string' ? row.context_sha256 : undefined;
    const text = contextKey === undefined ? undefined : selectBlob.get(contextKey)?.text;
    const contextBlock = typeof text === 'string' ? text : undefined;
    const blob = (key: string) => (key === contextKey ? contextBlock : undefined);
    const json =
      typeof row.messages_head === 'string'
        ? `[${readChain(db, { head: row.messages_head, count: Number(row.message_count) }, id).join(',')}]`
        : String(row.forwarded_json);
    return rowToSnapshot(row, decodeMessages(json, blob), contextBlock);
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
