// Reading the store through its port: one page with a cursor, and the turns of
// one conversation (from the store's own index when it offers one).

import type { AuditStore, SnapshotQuery } from '../shared/ports.ts';
import type { SnapshotSummary } from '../shared/types.ts';

export interface SnapshotPage {
  data: SnapshotSummary[];
  /** The `before` value for the next (older) page; null on the last page. */
  nextCursor: string | null;
}

/** Asks for one row more than the page holds, so "is there a next page" needs no count query. */
export function listPage(store: AuditStore, query: SnapshotQuery & { limit: number }): SnapshotPage {
  const rows = store.list({ ...query, limit: query.limit + 1 });
  const data = rows.slice(0, query.limit);
  const last = data.at(-1);
  return { data, nextCursor: rows.length > query.limit && last ? last.id : null };
}

export type ConversationIndex = (conversationId: string) => SnapshotSummary[];

// Without the store's index, every snapshot is read once to learn its
// conversation. Bounded, because this path is a fallback for small logs and
// doubles; the real store answers from an indexed column.
const FALLBACK_SCAN_LIMIT = 5_000;
const FALLBACK_BATCH = 200;

/** The conversation's turns, oldest first. */
export function conversationTurns(
  store: AuditStore,
  conversationId: string,
  index?: ConversationIndex | undefined,
): SnapshotSummary[] {
  const turns = index ? index(conversationId) : scanForConversation(store, conversationId);
  return [...turns].sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
}

function scanForConversation(store: AuditStore, conversationId: string): SnapshotSummary[] {
  const found: SnapshotSummary[] = [];
  let before: string | undefined;
  for (let scanned = 0; scanned < FALLBACK_SCAN_LIMIT; ) {
    const batch = store.list(before === undefined ? { limit: FALLBACK_BATCH } : { limit: FALLBACK_BATCH, before });
    for (const summary of batch) {
      if (store.get(summary.id)?.conversationId === conversationId) found.push(summary);
    }
    scanned += batch.length;
    const last = batch.at(-1);
    if (batch.length < FALLBACK_BATCH || !last) break;
    before = last.id;
  }
  return found;
}
