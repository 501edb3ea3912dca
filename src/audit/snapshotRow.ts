// Snapshot ⇄ database row. The forwarded messages and the context block are
// stored apart (blobRefs.ts, messageChain.ts); this maps the rest. Optional
// fields stored as NULL are left out on read, as they were at save.

import { withoutContextFences } from '../shared/contextFences.ts';
import { messageText } from '../shared/messageText.ts';
import type { ChatMessage, ModeName, ModeRequest, Outcome, Snapshot, SnapshotSummary } from '../shared/types.ts';
import type { SqlRow, SqlValue } from './driver.ts';
import type { ChainHead } from './messageChain.ts';

const MAX_QUESTION_CHARS = 8000;

/** Text of the last user message, without fenced context attachments. */
export function questionOf(messages: ChatMessage[]): string {
  const last = messages.findLast((message) => message.role === 'user');
  if (!last) return '';
  return withoutContextFences(messageText(last)).trim().slice(0, MAX_QUESTION_CHARS);
}

/** Column order of INSERT_SNAPSHOT. */
export const SNAPSHOT_COLUMNS = [
  'id',
  'request_id',
  'created_at',
  'model',
  'mode_asked',
  'mode_used',
  'downgrade_reason',
  'workspace',
  'user_agent',
  'stream',
  'conversation_id',
  'outcome',
  'error_status',
  'error_type',
  'error_code',
  'error_message',
  'prompt_tokens',
  'completion_tokens',
  'total_ms',
  'first_token_ms',
  'upstream_ms',
  'collect_ms',
  'question',
  'warnings_json',
  'sources_json',
  'redactions_json',
  'budget_json',
  'reply_json',
  'forwarded_json',
  'context_sha256',
  'messages_head',
  'message_count',
  'writer_pid',
] as const;

export const INSERT_SNAPSHOT = `INSERT INTO snapshots (${SNAPSHOT_COLUMNS.join(', ')})
  VALUES (${SNAPSHOT_COLUMNS.map(() => '?').join(', ')})`;

/** A record in flight: the same columns in `in_flight` (migration 0009), and its context block, last. */
export const INSERT_IN_FLIGHT = `INSERT INTO in_flight (${SNAPSHOT_COLUMNS.join(', ')}, context_block)
  VALUES (${SNAPSHOT_COLUMNS.map(() => '?').join(', ')}, ?)`;

const orNull = <T extends SqlValue>(value: T | undefined): T | null => value ?? null;

/** Where the messages went: a chain head, or a JSON array kept on the row. */
export interface StoredMessages {
  /** The blobs key of the context block, if any. */
  contextKey: string | undefined;
  chain: ChainHead | undefined;
  /** The encoded messages when they are not chained; '' when they are. */
  forwardedJson: string;
}

export function snapshotValues(snapshot: Snapshot, stored: StoredMessages): SqlValue[] {
  const { error, usage, timings } = snapshot;
  return [
    snapshot.id,
    snapshot.requestId,
    snapshot.createdAt,
    snapshot.model,
    snapshot.modeAsked,
    snapshot.modeUsed,
    orNull(snapshot.downgradeReason),
    snapshot.workspace,
    orNull(snapshot.userAgent),
    snapshot.stream ? 1 : 0,
    orNull(snapshot.conversationId),
    snapshot.outcome,
    orNull(error?.status),
    orNull(error?.type),
    orNull(error?.code),
    orNull(error?.message),
    orNull(usage?.promptTokens),
    orNull(usage?.completionTokens),
    timings.totalMs,
    orNull(timings.firstTokenMs),
    orNull(timings.upstreamMs),
    orNull(timings.collectMs),
    // A refused request forwarded nothing: its question was kept apart (redacted) for the list.
    snapshot.forwarded.length === 0 && snapshot.question !== undefined
      ? snapshot.question.slice(0, MAX_QUESTION_CHARS)
      : questionOf(snapshot.forwarded),
    JSON.stringify(snapshot.warnings),
    JSON.stringify(snapshot.sources),
    JSON.stringify(snapshot.redactions),
    snapshot.budget === undefined ? null : JSON.stringify(snapshot.budget),
    JSON.stringify(snapshot.reply),
    stored.forwardedJson,
    orNull(stored.contextKey),
    orNull(stored.chain?.head),
    orNull(stored.chain?.count),
    // Which process wrote it: an `in_flight` row whose writer is gone was interrupted (inFlight.ts).
    process.pid,
  ];
}

const str = (value: SqlValue | undefined): string => (typeof value === 'string' ? value : String(value ?? ''));
const num = (value: SqlValue | undefined): number => Number(value ?? 0);

/** Rebuilds the Snapshot; optional fields stored as NULL are left out, as they were at save. */
export function rowToSnapshot(row: SqlRow, forwarded: ChatMessage[], contextBlock: string | undefined): Snapshot {
  const snapshot: Snapshot = {
    id: str(row.id),
    requestId: str(row.request_id),
    createdAt: num(row.created_at),
    model: str(row.model),
    modeAsked: str(row.mode_asked) as ModeRequest,
    modeUsed: str(row.mode_used) as ModeName,
    workspace: str(row.workspace),
    stream: row.stream === 1,
    forwarded,
    sources: JSON.parse(str(row.sources_json)),
    redactions: JSON.parse(str(row.redactions_json)),
    reply: JSON.parse(str(row.reply_json)),
    timings: { totalMs: num(row.total_ms) },
    outcome: str(row.outcome) as Outcome,
    warnings: JSON.parse(str(row.warnings_json)),
  };
  if (row.downgrade_reason !== null) snapshot.downgradeReason = str(row.downgrade_reason);
  if (forwarded.length === 0 && str(row.question) !== '') snapshot.question = str(row.question);
  if (row.user_agent !== null) snapshot.userAgent = str(row.user_agent);
  if (row.conversation_id !== null) snapshot.conversationId = str(row.conversation_id);
  if (contextBlock !== undefined) snapshot.contextBlock = contextBlock;
  if (row.budget_json !== null) snapshot.budget = JSON.parse(str(row.budget_json));
  if (row.prompt_tokens !== null) {
    snapshot.usage = { promptTokens: num(row.prompt_tokens), completionTokens: num(row.completion_tokens) };
  }
  if (row.collect_ms !== null) snapshot.timings.collectMs = num(row.collect_ms);
  if (row.first_token_ms !== null) snapshot.timings.firstTokenMs = num(row.first_token_ms);
  if (row.upstream_ms !== null) snapshot.timings.upstreamMs = num(row.upstream_ms);
  if (row.error_type !== null) {
    snapshot.error = {
      status: num(row.error_status),
      type: str(row.error_type),
      code: row.error_code === null ? null : str(row.error_code),
      message: str(row.error_message),
    };
  }
  return snapshot;
}

export const SUMMARY_COLUMNS =
  's.id, s.created_at, s.model, s.mode_asked, s.mode_used, s.outcome, s.prompt_tokens, s.completion_tokens, s.total_ms, s.question';

export function rowToSummary(row: SqlRow): SnapshotSummary {
  const summary: SnapshotSummary = {
    id: str(row.id),
    createdAt: num(row.created_at),
    model: str(row.model),
    modeAsked: str(row.mode_asked) as ModeRequest,
    modeUsed: str(row.mode_used) as ModeName,
    outcome: str(row.outcome) as Outcome,
    totalMs: num(row.total_ms),
    question: str(row.question),
  };
  if (row.prompt_tokens !== null) summary.promptTokens = num(row.prompt_tokens);
  if (row.completion_tokens !== null) summary.completionTokens = num(row.completion_tokens);
  return summary;
}
