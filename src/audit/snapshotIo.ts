// One snapshot in and out of the database: the context block to `blobs`, the
// messages to a chain (or a JSON array under the baselines), the rest to its row.

import { contentHash } from '../shared/contentHash.ts';
import type { ChatMessage, Snapshot } from '../shared/types.ts';
import { type ContextRef, type DedupePolicy, decodeMessages, encodeMessages } from './blobRefs.ts';
import type { SqlDriver } from './driver.ts';
import { readChain, writeChain } from './messageChain.ts';
import { INSERT_SNAPSHOT, rowToSnapshot, snapshotValues } from './snapshotRow.ts';

export interface SnapshotIo {
  /** Call inside a transaction. Saving an id again replaces it. */
  write(snapshot: Snapshot): void;
  read(id: string): Snapshot | undefined;
}

/**
 * An in-flight record whose messages are this short keeps them on its own row (as rows did before
 * message chains): it is written on the request's way to the model, and a chain costs a hash per
 * message, a lookup and a node in another table (two more B-trees in the commit). The final version
 * replaces the row and chains the messages as usual; a row left in flight by a crash reads back the same.
 */
const IN_FLIGHT_INLINE_CHARS = 2048;

function keptOnRow(snapshot: Snapshot, messages: string[]): boolean {
  if (snapshot.outcome !== 'in_flight') return false;
  let chars = 0;
  for (const message of messages) {
    chars += message.length;
    if (chars > IN_FLIGHT_INLINE_CHARS) return false;
  }
  return true;
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

  return {
    write(snapshot) {
      const { context, messages } = encode(snapshot);
      if (context !== undefined) {
        insertBlob.run(context.key, context.block, Buffer.byteLength(context.block, 'utf8'), snapshot.createdAt);
      }
      const chain = dedupe === 'all' && !keptOnRow(snapshot, messages) ? writeChain(db, messages) : undefined;
      const forwardedJson = chain ? '' : `[${messages.join(',')}]`;
      // Triggers keep the search index and the conversations right when a row is replaced.
      deleteSnapshot.run(snapshot.id);
      insertSnapshot.run(...snapshotValues(snapshot, { contextKey: context?.key, chain, forwardedJson }));
    },

    read(id) {
      const row = selectSnapshot.get(id);
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
    },
  };
}
