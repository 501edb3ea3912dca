// The forwarded messages as a chain of content-addressed nodes (see migration
// 0004). A node's key covers its whole prefix, so two snapshots share exactly
// the nodes of their common leading messages: turn N+1 of a conversation adds
// only its new messages. Reading walks from the head back to the first message.

import { contentHash } from '../shared/contentHash.ts';
import type { SqlDriver } from './driver.ts';

export interface ChainHead {
  head: string;
  count: number;
}

/** Writes the nodes not stored yet (found by walking back from the end) and returns the head. */
export function writeChain(db: SqlDriver, messageJsons: string[]): ChainHead | undefined {
  if (messageJsons.length === 0) return undefined;
  const keys: string[] = [];
  let parent = '';
  for (const json of messageJsons) {
    parent = contentHash(`${parent}\n${json}`);
    keys.push(parent);
  }
  const exists = db.prepare('SELECT 1 AS found FROM message_nodes WHERE sha256 = ?');
  const insert = db.prepare('INSERT INTO message_nodes (sha256, parent, message_json) VALUES (?, ?, ?)');
  let firstMissing = keys.length;
  while (firstMissing > 0 && !exists.get(keys[firstMissing - 1] ?? '')) firstMissing -= 1;
  for (let i = firstMissing; i < keys.length; i++) {
    insert.run(keys[i] ?? '', i === 0 ? null : (keys[i - 1] ?? null), messageJsons[i] ?? 'null');
  }
  return { head: parent, count: keys.length };
}

/** The message JSON texts from the first to the head; throws when the chain is broken. */
export function readChain(db: SqlDriver, chain: ChainHead, snapshotId: string): string[] {
  const rows = db
    .prepare(
      `WITH RECURSIVE chain (sha256, parent, message_json, depth) AS (
         SELECT sha256, parent, message_json, 0 FROM message_nodes WHERE sha256 = ?
         UNION ALL
         SELECT n.sha256, n.parent, n.message_json, c.depth + 1
         FROM message_nodes n JOIN chain c ON n.sha256 = c.parent
       )
       SELECT message_json FROM chain ORDER BY depth DESC`,
    )
    .all(chain.head);
  if (rows.length !== chain.count) {
    throw new Error(
      `audit snapshot ${snapshotId}: ${chain.count - rows.length} of ${chain.count} forwarded messages are missing`,
    );
  }
  return rows.map((row) => String(row.message_json));
}

/** Deletes the nodes no snapshot's chain reaches any more. */
export function deleteUnreachableNodes(db: SqlDriver): void {
  db.prepare(
    `WITH RECURSIVE live (sha256) AS (
       SELECT messages_head FROM snapshots WHERE messages_head IS NOT NULL
       UNION
       SELECT n.parent FROM message_nodes n JOIN live l ON n.sha256 = l.sha256 WHERE n.parent IS NOT NULL
     )
     DELETE FROM message_nodes WHERE sha256 NOT IN (SELECT sha256 FROM live)`,
  ).run();
}
