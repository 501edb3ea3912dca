// An in-memory AuditStore for the audit browser's route tests.
//
// Why a double is acceptable here: the UI's contract is the AuditStore port
// (src/shared/ports.ts) plus the optional `conversation` index, and nothing
// else; the real SQLite store has its own tests against a real database file
// (test/audit/). This double keeps the route tests fast and lets them set up
// exact orderings and edge cases (equal timestamps, unknown cursors). It
// follows the real store's reading of the query: newest first, `before` is an
// exclusive cursor (unknown → no rows), `mode` matches the mode used or asked,
// `since` inclusive, `until` exclusive, `text` requires every word (case-
// insensitive) in the question or the reply. The browser test runs on the
// real store, so a drift between the two shows up there.

import { questionOf } from '../../src/audit/snapshotRow.ts';
import type { AuditStore, SnapshotQuery } from '../../src/shared/ports.ts';
import type { Snapshot, SnapshotSummary } from '../../src/shared/types.ts';

export function summarize(snapshot: Snapshot): SnapshotSummary {
  const summary: SnapshotSummary = {
    id: snapshot.id,
    createdAt: snapshot.createdAt,
    model: snapshot.model,
    modeAsked: snapshot.modeAsked,
    modeUsed: snapshot.modeUsed,
    outcome: snapshot.outcome,
    totalMs: snapshot.timings.totalMs,
    // The question as the real store reads it (the last user message without its context fences).
    question: questionOf(snapshot.forwarded),
  };
  if (snapshot.usage) {
    summary.promptTokens = snapshot.usage.promptTokens;
    summary.completionTokens = snapshot.usage.completionTokens;
  }
  return summary;
}

export interface MemoryAuditStore extends AuditStore {
  conversation(id: string): SnapshotSummary[];
  /** How many times `get` was called, to see which path the conversation view took. */
  readonly gets: number;
}

export function memoryAuditStore(initial: Snapshot[] = []): MemoryAuditStore {
  // Insertion order breaks ties between equal timestamps, as the real store's seq does.
  const rows = new Map<string, { snapshot: Snapshot; seq: number }>();
  let seq = 0;
  let gets = 0;
  const save = (snapshot: Snapshot) => {
    rows.delete(snapshot.id);
    rows.set(snapshot.id, { snapshot: structuredClone(snapshot), seq: ++seq });
  };
  for (const snapshot of initial) save(snapshot);

  const newestFirst = () =>
    [...rows.values()].sort((a, b) => b.snapshot.createdAt - a.snapshot.createdAt || b.seq - a.seq);

  function matches(row: { snapshot: Snapshot; seq: number }, query: SnapshotQuery): boolean {
    const { snapshot } = row;
    if (query.model !== undefined && snapshot.model !== query.model) return false;
    if (query.mode !== undefined && snapshot.modeUsed !== query.mode && snapshot.modeAsked !== query.mode) return false;
    if (query.outcome !== undefined && snapshot.outcome !== query.outcome) return false;
    if (query.since !== undefined && snapshot.createdAt < query.since) return false;
    if (query.until !== undefined && snapshot.createdAt >= query.until) return false;
    if (query.text !== undefined) {
      const haystack = `${summarize(snapshot).question}\n${snapshot.reply.content}`.toLowerCase();
      const words = query.text.toLowerCase().split(/\s+/).filter(Boolean);
      if (!words.every((word) => haystack.includes(word))) return false;
    }
    return true;
  }

  return {
    get gets() {
      return gets;
    },
    save,
    async saveInFlight(snapshot) {
      save(snapshot);
      return { written: true };
    },
    health: () => ({ writable: true, queued: 0, dropped: 0 }),
    get(id) {
      gets++;
      const row = rows.get(id);
      return row ? structuredClone(row.snapshot) : undefined;
    },
    list(query) {
      let ordered = newestFirst();
      if (query.before !== undefined) {
        const cursor = ordered.findIndex((row) => row.snapshot.id === query.before);
        if (cursor === -1) return [];
        ordered = ordered.slice(cursor + 1);
      }
      return ordered
        .filter((row) => matches(row, query))
        .slice(0, query.limit ?? 50)
        .map((row) => summarize(row.snapshot));
    },
    conversation(id) {
      return newestFirst()
        .reverse()
        .filter((row) => row.snapshot.conversationId === id)
        .map((row) => summarize(row.snapshot));
    },
    async flush() {},
    async close() {},
  };
}
