// One snapshot in and out of the database. A finished one: the context block to
// `blobs`, the messages to a chain (or a JSON array under the baselines), the rest
// to its `snapshots` row, and its in-flight row deleted. One in flight: everything
// on one row of `in_flight` (migration 0009), the table without indexes, since
// that write is committed on the request's way to the model.

import { contentHash } from '../shared/contentHash.ts';
import type { ChatMessage, Snapshot } from '../shared/types.ts';
import { type ContextRef, type DedupePolicy, decodeMessages, encodeMessages } from './blobRefs.ts';
import type { SqlDriver } from './driver.ts';
import { readChain, writeChain } from './messageChain.ts';
import { INSERT_IN_FLIGHT, INSERT_SNAPSHOT, rowToSnapshot, snapshotValues } from './snapshotRow.ts';

export interface SnapshotIo {
  /** Call inside a transaction. Saving an id again replaces it; a finished record replaces its in-flight row. */
  write(snapshot: Snapshot): void;
  read(id: string): Snapshot | undefined;
}

/** A record's messages as its in-flight row encoded them, with the context block's blobs key. */
interface Encoded {
  id: string;
  block: string | undefined;
  context: ContextRef | undefined;
  messages: string[];
}

export function snapshotIo(db: SqlDriver, dedupe: DedupePolicy): SnapshotIo {
  /**
   * The final version of a record carries the same forwarded messages (the same array) and context
   * block as its in-flight row: what was sent does not change once sent. Their encoding (a JSON text
   * per message, the block's hash, the search for the block in every message) is done once, for
   * the in-flight row, and reused by the same record's next write; anything else is encoded anew.
   */
  const encodedInFlight = new WeakMap<readonly ChatMessage[], Encoded>();

  function encode(snapshot: Snapshot): Encoded {
    const block = snapshot.contextBlock;
    const known = encodedInFlight.get(snapshot.forwarded);
    if (known !== undefined && known.id === snapshot.id && known.block === block) return known;
    let context: ContextRef | undefined;
    if (block !== undefined) {
      const hash = contentHash(block);
      // The `none` baseline: one copy per snapshot, as if not content-addressed.
      context = { block, key: dedupe === 'none' ? `${hash}:${snapshot.id}` : hash };
    }
    const encoded = { id: snapshot.id, block, context, messages: encodeMessages(snapshot.forwarded, context) };
    if (snapshot.outcome === 'in_flight') encodedInFlight.set(snapshot.forwarded, encoded);
    return encoded;
  }

  const insertBlob = db.prepare(
    'INSERT INTO blobs (sha256, text, bytes, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (sha256) DO NOTHING',
  );
  const insertSnapshot = db.prepare(INSERT_SNAPSHOT);
  const deleteSnapshot = db.prepare('DELETE FROM snapshots WHERE id = ?');
  const selectSnapshot = db.prepare('SELECT * FROM snapshots WHERE id = ?');
  const selectBlob = db.prepare('SELECT text FROM blobs WHERE sha256 = ?');
  const blobStored = db.prepare('SELECT 1 AS found FROM blobs WHERE sha256 = ?');
  // `in_flight` has no index: these scan it, and it holds only the requests now in flight (a page or a few).
  const insertInFlight = db.prepare(INSERT_IN_FLIGHT);
  const deleteInFlight = db.prepare('DELETE FROM in_flight WHERE id = ?');
  const selectInFlight = db.prepare('SELECT * FROM in_flight WHERE id = ?');

  return {
    write(snapshot) {
      const { context, messages } = encode(snapshot);
      const forwardedJson = `[${messages.join(',')}]`;
      deleteInFlight.run(snapshot.id);
      if (snapshot.outcome === 'in_flight') {
        const stored = { contextKey: context?.key, chain: undefined, forwardedJson };
        // The block rides on the row unless `blobs` has it already (a conversation's earlier turn): a
        // look-up in its index costs less than writing the block's pages again before the prompt leaves.
        const block = context === undefined || blobStored.get(context.key) ? null : context.block;
        insertInFlight.run(...snapshotValues(snapshot, stored), block);
        return;
      }
      if (context !== undefined) {
        insertBlob.run(context.key, context.block, Buffer.byteLength(context.block, 'utf8'), snapshot.createdAt);
      }
      const chain = dedupe === 'all' ? writeChain(db, messages) : undefined;
      // Triggers keep the search index and the conversations right when a row is replaced.
      deleteSnapshot.run(snapshot.id);
      insertSnapshot.run(
        ...snapshotValues(snapshot, { contextKey: context?.key, chain, forwardedJson: chain ? '' : forwardedJson }),
      );
    },

    read(id) {
      const row = selectSnapshot.get(id) ?? selectInFlight.get(id);
      if (!row) return undefined;
      const contextKey = typeof row.context_sha256 === 'string' ? row.context_sha256 : undefined;
      // An in-flight row may carry its block; otherwise (and for a finished row) it is in `blobs`.
      const text =
        typeof row.context_block === 'string'
          ? row.context_block
          : contextKey === undefined
            ? undefined
            : selectBlob.get(contextKey)?.text;
      const contextBlock = typeof text === 'string' ? text : undefined;
      const blob = (key: string) => (key === contextKey ? contextBlock : undefined);
      const json =
        typeof row.messages_head === 'string'
          ? `[${readChain(db, { head: row.messages_head, count: Number(row.message_count) }, id).join(',')}]`
          : String(row.forwarded_json);
      return rowToSnapshot(row, decodeMessages(json, blob), contextBlock);
    },
  };
}
