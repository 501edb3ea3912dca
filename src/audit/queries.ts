// Read queries: the list with its filters and cursor, and full-text search.

import type { SnapshotQuery } from '../shared/ports.ts';
import type { SnapshotSummary } from '../shared/types.ts';
import type { SqlDriver, SqlRow, SqlValue } from './driver.ts';
import { rowToSummary, SUMMARY_COLUMNS } from './snapshotRow.ts';

/** The list's columns: the summary's, and what the list shows beside it (workspace, conversation, why it failed). */
const LIST_COLUMNS = `${SUMMARY_COLUMNS}, s.workspace, s.conversation_id, s.error_status, s.error_message`;

function rowToListed(row: SqlRow): SnapshotSummary {
  const summary = rowToSummary(row);
  if (typeof row.workspace === 'string') summary.workspace = row.workspace;
  if (typeof row.conversation_id === 'string') summary.conversationId = row.conversation_id;
  if (typeof row.error_message === 'string') {
    summary.error = { status: Number(row.error_status ?? 0), message: row.error_message };
  }
  return summary;
}

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 1000;

export function clampLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return DEFAULT_LIMIT;
  return Math.min(MAX_LIMIT, Math.max(1, Math.floor(limit)));
}

/**
 * User text as an FTS5 query that cannot be a syntax error: every whitespace-
 * separated word becomes a quoted phrase (inner quotes doubled), all of them
 * required. Operators (AND, NEAR, *, -, :) are searched as plain words.
 * Returns undefined when nothing searchable is left.
 */
export function ftsQuery(text: string): string | undefined {
  const words = text
    .split(/\s+/)
    .map((word) => word.replace(/[\u0000-\u001f]/g, ''))
    .filter((word) => /[\p{L}\p{N}]/u.test(word));
  if (words.length === 0) return undefined;
  return words.map((word) => `"${word.replaceAll('"', '""')}"`).join(' ');
}

/** Where a row stands in the list's order: newest first by time, then requests still in flight, then insertion. */
interface Position {
  createdAt: number;
  /** 1 for a row of `in_flight` (no search entry yet, seq is its rowid there), 0 for a snapshot. */
  live: 0 | 1;
  seq: number;
}

function positionOf(db: SqlDriver, id: string): Position | undefined {
  const row = db.prepare('SELECT created_at, seq FROM snapshots WHERE id = ?').get(id);
  if (row) return { createdAt: Number(row.created_at), live: 0, seq: Number(row.seq) };
  const flying = db.prepare('SELECT created_at, rowid AS seq FROM in_flight WHERE id = ?').get(id);
  if (flying) return { createdAt: Number(flying.created_at), live: 1, seq: Number(flying.seq) };
  return undefined;
}

const byPosition = (a: Position, b: Position) => a.createdAt - b.createdAt || a.live - b.live || a.seq - b.seq;

/**
 * Newest first; `before` pages to older snapshots; `text` filters by full-text match. Requests in
 * flight (their own table, migration 0009) are listed with the rest; they are not searchable yet.
 */
export function listSnapshots(db: SqlDriver, query: SnapshotQuery): SnapshotSummary[] {
  const where: string[] = [];
  const params: SqlValue[] = [];
  if (query.model !== undefined) {
    where.push('s.model = ?');
    params.push(query.model);
  }
  if (query.mode !== undefined) {
    // `auto` is only ever asked for; any other mode matches what was used or asked.
    where.push('(s.mode_used = ? OR s.mode_asked = ?)');
    params.push(query.mode, query.mode);
  }
  if (query.outcome !== undefined) {
    where.push('s.outcome = ?');
    params.push(query.outcome);
  }
  if (query.since !== undefined) {
    where.push('s.created_at >= ?');
    params.push(query.since);
  }
  if (query.until !== undefined) {
    where.push('s.created_at < ?');
    params.push(query.until);
  }
  let cursor: Position | undefined;
  if (query.before !== undefined) {
    cursor = positionOf(db, query.before);
    // An unknown cursor (pruned, or never existed) has no older page.
    if (!cursor) return [];
  }
  const limit = clampLimit(query.limit);
  const rows = (table: 'snapshots' | 'in_flight', live: 0 | 1, extra: string[], extraParams: SqlValue[]) => {
    const seq = live === 1 ? 's.rowid' : 's.seq';
    const clauses = [...where, ...extra];
    const values = [...params, ...extraParams];
    if (cursor !== undefined) {
      // Older than the cursor: an earlier time, or the same time and earlier in (live, seq).
      const sameTime = cursor.live === live ? `${seq} < ?` : cursor.live > live ? '1' : '0';
      clauses.push(`(s.created_at < ? OR (s.created_at = ? AND ${sameTime}))`);
      values.push(cursor.createdAt, cursor.createdAt, ...(cursor.live === live ? [cursor.seq] : []));
    }
    const sql = `SELECT ${LIST_COLUMNS}, ${seq} AS seq FROM ${table} s
      ${clauses.length > 0 ? `WHERE ${clauses.join(' AND ')}` : ''}
      ORDER BY s.created_at DESC, ${seq} DESC LIMIT ?`;
    return db
      .prepare(sql)
      .all(...values, limit)
      .map((row) => ({ row, at: { createdAt: Number(row.created_at), live, seq: Number(row.seq) } }));
  };
  const listed: ReturnType<typeof rows> = [];
  if (query.text !== undefined) {
    const match = ftsQuery(query.text);
    if (match === undefined) return [];
    listed.push(
      ...rows('snapshots', 0, ['s.seq IN (SELECT rowid FROM snapshots_fts WHERE snapshots_fts MATCH ?)'], [match]),
    );
  } else {
    listed.push(...rows('snapshots', 0, [], []));
    if (query.outcome === undefined || query.outcome === 'in_flight') listed.push(...rows('in_flight', 1, [], []));
  }
  return listed
    .sort((a, b) => byPosition(b.at, a.at))
    .slice(0, limit)
    .map(({ row }) => rowToListed(row));
}

/** Best match first (bm25), newest first among equals. */
export function searchSnapshots(db: SqlDriver, text: string, limit?: number): SnapshotSummary[] {
  const match = ftsQuery(text);
  if (match === undefined) return [];
  const sql = `SELECT ${LIST_COLUMNS} FROM snapshots_fts f JOIN snapshots s ON s.seq = f.rowid
    WHERE snapshots_fts MATCH ? ORDER BY f.rank, s.created_at DESC LIMIT ?`;
  return db.prepare(sql).all(match, clampLimit(limit)).map(rowToListed);
}

/** Oldest first, the turns still in flight among them. */
export function conversationSnapshots(db: SqlDriver, id: string): SnapshotSummary[] {
  const turns = (table: 'snapshots' | 'in_flight', live: 0 | 1) => {
    const seq = live === 1 ? 's.rowid' : 's.seq';
    return db
      .prepare(`SELECT ${LIST_COLUMNS}, ${seq} AS seq FROM ${table} s WHERE s.conversation_id = ?`)
      .all(id)
      .map((row) => ({ row, at: { createdAt: Number(row.created_at), live, seq: Number(row.seq) } }));
  };
  return [...turns('snapshots', 0), ...turns('in_flight', 1)]
    .sort((a, b) => byPosition(a.at, b.at))
    .map(({ row }) => rowToListed(row));
}
