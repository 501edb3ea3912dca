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

/** Newest first; `before` pages to older snapshots; `text` filters by full-text match. */
export function listSnapshots(db: SqlDriver, query: SnapshotQuery): SnapshotSummary[] {
  const where: string[] = [];
  const params: SqlValue[] = [];
  if (query.before !== undefined) {
    const cursor = db.prepare('SELECT created_at, seq FROM snapshots WHERE id = ?').get(query.before);
    // An unknown cursor (pruned, or never existed) has no older page.
    if (!cursor) return [];
    where.push('(s.created_at < ? OR (s.created_at = ? AND s.seq < ?))');
    params.push(cursor.created_at ?? 0, cursor.created_at ?? 0, cursor.seq ?? 0);
  }
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
  if (query.text !== undefined) {
    const match = ftsQuery(query.text);
    if (match === undefined) return [];
    where.push('s.seq IN (SELECT rowid FROM snapshots_fts WHERE snapshots_fts MATCH ?)');
    params.push(match);
  }
  const sql = `SELECT ${LIST_COLUMNS} FROM snapshots s
    ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
    ORDER BY s.created_at DESC, s.seq DESC LIMIT ?`;
  return db
    .prepare(sql)
    .all(...params, clampLimit(query.limit))
    .map(rowToListed);
}

/** Best match first (bm25), newest first among equals. */
export function searchSnapshots(db: SqlDriver, text: string, limit?: number): SnapshotSummary[] {
  const match = ftsQuery(text);
  if (match === undefined) return [];
  const sql = `SELECT ${LIST_COLUMNS} FROM snapshots_fts f JOIN snapshots s ON s.seq = f.rowid
    WHERE snapshots_fts MATCH ? ORDER BY f.rank, s.created_at DESC LIMIT ?`;
  return db.prepare(sql).all(match, clampLimit(limit)).map(rowToListed);
}

export function conversationSnapshots(db: SqlDriver, id: string): SnapshotSummary[] {
  const sql = `SELECT ${LIST_COLUMNS} FROM snapshots s WHERE s.conversation_id = ? ORDER BY s.created_at, s.seq`;
  return db.prepare(sql).all(id).map(rowToListed);
}
