// Terminal renderings of the audit log for `ctxproxy audit list|show|search`.
// Text from the model or the client is made safe to print: control characters
// (escape sequences could rewrite the terminal) are shown as U+FFFD (terminalText.ts;
// main.ts applies it to all output as well).

import type { ChatMessage, ContextPart, Snapshot, SnapshotSummary } from '../shared/types.ts';
import { safeText } from './terminalText.ts';

const QUESTION_WIDTH = 60;

export { safeText };

/** One line: whitespace collapsed, cut to `width` with an ellipsis. */
export function excerpt(text: string, width: number): string {
  const line = safeText(text).replace(/\s+/g, ' ').trim();
  return line.length <= width ? line : `${line.slice(0, width - 1)}…`;
}

/** `2026-11-29 13:37:17Z`: UTC, so the same snapshot prints the same everywhere. */
export function formatTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')}Z`;
}

export function formatMode(asked: string, used: string): string {
  return asked === used ? used : `${asked}→${used}`;
}

const tokens = (value: number | undefined): string => (value === undefined ? '-' : String(value));
const ms = (value: number): string => String(Math.round(value));

/** Columns padded to their widest cell; the last column is not padded. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

/** The question, and for a failed request why; a refused one (nothing forwarded, no question) shows its reason. */
export function questionOrReason(summary: SnapshotSummary, width = QUESTION_WIDTH): string {
  const { error } = summary;
  if (!error) return excerpt(summary.question, width);
  const reason = `${summary.outcome === 'error' ? 'refused' : summary.outcome} ${error.status}: ${error.message}`;
  return summary.question === '' ? excerpt(reason, width) : excerpt(`${summary.question} [${reason}]`, width);
}

/** The last folder of the workspace: enough to tell two projects apart in a list. */
export function workspaceName(workspace: string | undefined): string {
  if (!workspace) return '-';
  return workspace.split(/[\\/]/).filter(Boolean).at(-1) ?? workspace;
}

export function formatSummaries(summaries: SnapshotSummary[]): string {
  if (summaries.length === 0) return 'no snapshots';
  const rows = summaries.map((summary) => [
    summary.id,
    formatTime(summary.createdAt),
    summary.model === '' ? '(none)' : excerpt(summary.model, 40),
    excerpt(workspaceName(summary.workspace), 24),
    formatMode(summary.modeAsked, summary.modeUsed),
    `${tokens(summary.promptTokens)}/${tokens(summary.completionTokens)}`,
    ms(summary.totalMs),
    summary.outcome,
    questionOrReason(summary),
  ]);
  return table(['ID', 'TIME (UTC)', 'MODEL', 'WORKSPACE', 'MODE', 'TOKENS IN/OUT', 'MS', 'OUTCOME', 'QUESTION'], rows);
}

/** The same list by conversation (the conversation seen newest first), requests in none last. */
export function formatByConversation(summaries: SnapshotSummary[]): string {
  if (summaries.length === 0) return 'no snapshots';
  const groups = new Map<string, SnapshotSummary[]>();
  for (const summary of summaries) {
    const key = summary.conversationId ?? '';
    groups.set(key, [...(groups.get(key) ?? []), summary]);
  }
  const ordered = [...groups.entries()].sort(([a], [b]) => Number(a === '') - Number(b === ''));
  return ordered
    .map(([id, group]) => {
      const title = id === '' ? 'not in a conversation' : `conversation ${safeText(id)}`;
      return `${title} (${group.length} request${group.length === 1 ? '' : 's'})\n${formatSummaries(group)
        .split('\n')
        .map((line) => `  ${line}`)
        .join('\n')}`;
    })
    .join('\n\n');
}

function messageBody(message: ChatMessage, block: string | undefined): string {
  const shown = (text: string) => {
    if (block === undefined || block.length === 0 || !text.includes(block)) return safeText(text);
    return safeText(text.replace(block, `[context block, ${block.length} chars: shown below]`));
  };
  const parts: string[] = [];
  if (typeof message.content === 'string') parts.push(shown(message.content));
  else if (Array.isArray(message.content)) {
    for (const part of message.content) {
      if (part.type === 'text') parts.push(shown(part.text));
      else if (typeof part.image_url !== 'string' && part.image_url.media_type !== undefined)
        parts.push(
          `[image: ${part.image_url.media_type}, ${part.image_url.bytes ?? '?'} bytes, ${part.image_url.url}]`,
        );
      else parts.push(`[image: ${typeof part.image_url === 'string' ? 'url' : 'object'}]`);
    }
  }
  for (const call of message.tool_calls ?? []) {
    parts.push(
      `[tool call ${safeText(call.id)}] ${safeText(call.function.name)}(${safeText(call.function.arguments)})`,
    );
  }
  return parts.length === 0 ? '(empty)' : parts.join('\n');
}

const heading = (title: string) => `── ${title} ──`;

function facts(snapshot: Snapshot): string[] {
  const pairs: [string, string][] = [
    ['time', formatTime(snapshot.createdAt)],
    ['request', snapshot.requestId],
    ['model', snapshot.model],
    [
      'mode',
      `${formatMode(snapshot.modeAsked, snapshot.modeUsed)}${snapshot.budget?.modeReason ? ` (${snapshot.budget.modeReason})` : ''}${snapshot.downgradeReason ? ` (downgraded: ${snapshot.downgradeReason})` : ''}`,
    ],
    ['workspace', snapshot.workspace],
  ];
  if (snapshot.conversationId) pairs.push(['conversation', snapshot.conversationId]);
  pairs.push(['client', `${snapshot.userAgent ?? 'unknown'}${snapshot.stream ? ' (stream)' : ''}`]);
  const { error } = snapshot;
  pairs.push([
    'outcome',
    error
      ? `${snapshot.outcome}: ${error.status} ${error.type}${error.code ? `/${error.code}` : ''}: ${error.message}`
      : snapshot.outcome,
  ]);
  pairs.push([
    'tokens',
    `${tokens(snapshot.usage?.promptTokens)} in / ${tokens(snapshot.usage?.completionTokens)} out`,
  ]);
  for (const warning of snapshot.warnings) pairs.push(['warning', warning]);
  return pairs.map(([key, value]) => `  ${key.padEnd(13)}${safeText(value)}`);
}

function sourceLines(snapshot: Snapshot): string[] {
  if (snapshot.sources.length === 0) return ['  (no sources ran)'];
  const rows = snapshot.sources.map((source) => {
    const notes = [
      source.error ? `error: ${source.error}` : '',
      source.trimmed?.length ? `trimmed ${source.trimmed.join(', ')}` : '',
      source.skipped.length ? `skipped ${source.skipped.map((s) => `${s.path} (${s.reason})`).join(', ')}` : '',
    ].filter(Boolean);
    return [
      source.source,
      source.status,
      ms(source.ms),
      String(source.items),
      String(source.chars),
      tokens(source.tokens),
      safeText(notes.join('; ')),
    ];
  });
  const text = table(['SOURCE', 'STATUS', 'MS', 'ITEMS', 'CHARS', 'TOKENS', 'NOTES'], rows);
  return text.split('\n').map((line) => `  ${line}`);
}

/** Where a part came from: this request, or the turn (and snapshot) that first sent it. */
export function partOrigin(part: ContextPart): string {
  if (!part.carried) return `sent new (turn ${part.fromTurn})`;
  return `carried from turn ${part.fromTurn}${part.fromSnapshot ? ` (snapshot ${part.fromSnapshot})` : ''}`;
}

/** Every block and update in the forwarded messages, each source's share, and the framing around them. */
function contextLines(snapshot: Snapshot): string[] {
  const parts = snapshot.budget?.parts ?? [];
  if (parts.length === 0) return ['  no context in the forwarded messages'];
  const rows = parts.map((part) => {
    const framing = part.chars - part.sources.reduce((sum, source) => sum + source.chars, 0);
    const shares = part.sources.map((source) => `${source.source} ${source.tokens}`);
    return [
      `message ${part.message + 1}`,
      part.kind,
      partOrigin(part),
      String(part.chars),
      String(part.tokens),
      safeText([...shares, `framing ${framing} chars`].join(', ')),
    ];
  });
  const text = table(['WHERE', 'KIND', 'ORIGIN', 'CHARS', 'TOKENS', 'TOKENS BY SOURCE'], rows);
  return text.split('\n').map((line) => `  ${line}`);
}

/** Why each item was sent (or left out): the phrase its source gave, its tokens, and what became of it. */
function whyLines(snapshot: Snapshot): string[] {
  const parts = snapshot.budget?.parts ?? [];
  const sent = parts.flatMap((part) =>
    part.sources.flatMap((source) => {
      const state = part.carried
        ? `carried from turn ${part.fromTurn}`
        : part.kind === 'update'
          ? 'sent new (update)'
          : 'sent new';
      // A snapshot older than the per-item record knows the keys only.
      if (!source.items) return source.keys.map((key) => [key, '-', state, '(not recorded in this older snapshot)']);
      return source.items.map((item) => [
        item.key,
        String(item.tokens),
        `${state}${item.trimmed ? ', trimmed' : ''}`,
        item.why ?? '(no reason given)',
      ]);
    }),
  );
  const leftOut = (snapshot.budget?.leftOut ?? []).map((item) => [
    item.key,
    '-',
    `left out: ${item.reason}`,
    item.why ?? '(no reason given)',
  ]);
  const rows = [...sent, ...leftOut].map((row) => row.map((cell) => safeText(cell)));
  if (rows.length === 0) return ['  no context items'];
  return table(['ITEM', 'TOKENS', 'SENT?', 'WHY'], rows)
    .split('\n')
    .map((line) => `  ${line}`);
}

function budgetLines(snapshot: Snapshot): string[] {
  const lines: string[] = [];
  const redactions = Object.entries(snapshot.redactions);
  lines.push(
    `  redactions   ${redactions.length === 0 ? 'none' : redactions.map(([rule, count]) => `${rule} ×${count}`).join(', ')}`,
  );
  const { budget } = snapshot;
  if (budget) {
    lines.push(
      `  budget       window ${budget.window} · usable ${budget.usable} · reserve ${budget.reserve} · conversation ${budget.conversationTokens} · context ${budget.contextTokens}${budget.numCtx ? ` · num_ctx ${budget.numCtx}` : ''}`,
    );
    for (const entry of budget.perEntry) {
      const trimmed = entry.trimmed.length ? ` (trimmed ${entry.trimmed.join(', ')})` : '';
      lines.push(`    ${entry.items.padEnd(24)} ${entry.used}/${entry.budget}${trimmed}`);
    }
  }
  return lines;
}

function timingLine(snapshot: Snapshot): string {
  const { timings } = snapshot;
  const parts = [`total ${ms(timings.totalMs)} ms`];
  if (timings.collectMs !== undefined) parts.push(`collect ${ms(timings.collectMs)} ms`);
  if (timings.firstTokenMs !== undefined) parts.push(`first token ${ms(timings.firstTokenMs)} ms`);
  if (timings.upstreamMs !== undefined) parts.push(`upstream ${ms(timings.upstreamMs)} ms`);
  return `  ${parts.join(' · ')}`;
}

/** What the model saw, the report and the reply, in reading order. */
export function formatSnapshot(snapshot: Snapshot): string {
  const block = snapshot.contextBlock;
  const out: string[] = [`snapshot ${snapshot.id}`, ...facts(snapshot), '', 'sources', ...sourceLines(snapshot), ''];
  if (snapshot.question !== undefined) {
    out.push('asked (refused before anything was forwarded; redacted)', `  ${safeText(snapshot.question)}`, '');
  }
  out.push('why this context', ...whyLines(snapshot), '');
  out.push('context sent', ...contextLines(snapshot), '');
  out.push(...budgetLines(snapshot), '');
  snapshot.forwarded.forEach((message, index) => {
    const name = message.name ? ` (${message.name})` : '';
    const tool = message.tool_call_id ? ` for ${message.tool_call_id}` : '';
    out.push(heading(`message ${index + 1}/${snapshot.forwarded.length} · ${message.role}${name}${tool}`));
    out.push(messageBody(message, block), '');
  });
  if (block !== undefined) out.push(heading(`context block (${block.length} chars)`), safeText(block), '');
  const { reply } = snapshot;
  out.push(heading(`reply${reply.finishReason ? ` (${reply.finishReason})` : ''}`));
  if (reply.reasoning) out.push('[reasoning]', safeText(reply.reasoning), '[answer]');
  out.push(reply.content === '' ? '(empty)' : safeText(reply.content));
  for (const call of reply.toolCalls ?? []) {
    out.push(`[tool call ${safeText(call.id)}] ${safeText(call.function.name)}(${safeText(call.function.arguments)})`);
  }
  out.push('', 'timings', timingLine(snapshot));
  return out.join('\n');
}
