// The report parts of a snapshot's detail page: the budget as a bar, the
// per-source table, what was trimmed, and the redaction counts by rule.

import type { BudgetReport, ContextPart, SourceReport } from '../shared/types.ts';
import { formatCount, formatMs } from './format.ts';

type Segment = { name: 'context' | 'conversation' | 'reserve'; label: string; tokens: number };

export function BudgetBar({ budget }: { budget: BudgetReport }) {
  const segments: Segment[] = [
    { name: 'context', label: 'Context', tokens: budget.contextTokens },
    { name: 'conversation', label: 'Conversation', tokens: budget.conversationTokens },
    // The limit forwarded when the client set one (its ask, or what the window left); else the reserve kept.
    budget.outputLimit !== undefined
      ? { name: 'reserve', label: 'Reply limit', tokens: budget.outputLimit }
      : { name: 'reserve', label: 'Reply reserve', tokens: budget.reserve },
  ];
  const used = segments.reduce((sum, segment) => sum + segment.tokens, 0);
  // A request over the window still draws a full bar; the legend says by how much.
  const scale = Math.max(budget.window, used, 1);
  const free = budget.window - used;
  const percent = (tokens: number) => `${((100 * tokens) / scale).toFixed(2)}%`;
  return (
    <div class="budget">
      <div
        class="bar"
        role="img"
        aria-label={`Window ${budget.window} tokens: context ${budget.contextTokens}, conversation ${budget.conversationTokens}, reserve ${budget.reserve}`}
      >
        {segments
          .filter((segment) => segment.tokens > 0)
          .map((segment) => (
            <span
              class={`seg-${segment.name}`}
              style={{ width: percent(segment.tokens) }}
              title={`${segment.label}: ${segment.tokens} tokens`}
            />
          ))}
      </div>
      <div class="legend">
        {segments.map((segment) => (
          <span>
            <span class={`swatch seg-${segment.name}`} />
            {segment.label} {formatCount(segment.tokens)}
          </span>
        ))}
        <span>
          <span class="swatch" style={{ border: '1px solid var(--line)' }} />
          {free >= 0 ? `Free ${formatCount(free)}` : `Over the window by ${formatCount(-free)}`}
        </span>
      </div>
      <p class="muted small">
        Window {formatCount(budget.window)} tokens · usable for the prompt {formatCount(budget.usable)}
        {budget.numCtx !== undefined ? ` · num_ctx sent ${formatCount(budget.numCtx)}` : ''}
      </p>
      {budget.perEntry.length > 0 ? (
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th>Plan entry</th>
                <th class="num">Budget</th>
                <th class="num">Used</th>
                <th>Trimmed</th>
              </tr>
            </thead>
            <tbody>
              {budget.perEntry.map((entry) => (
                <tr>
                  <td class="mono">{entry.items}</td>
                  <td class="num">{formatCount(entry.budget)}</td>
                  <td class="num">{formatCount(entry.used)}</td>
                  <td class="mono small">{entry.trimmed.length > 0 ? entry.trimmed.join(', ') : '–'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </div>
  );
}

/** A number cell of a list table: right-aligned, and labelled for the narrow layout that stacks the cells. */
function NumCell({ label, value }: { label: string; value: string }) {
  return (
    <td class="num" data-label={label}>
      {value}
    </td>
  );
}

export function SourcesTable({ sources }: { sources: SourceReport[] }) {
  if (sources.length === 0) return <p class="muted">No context sources ran (mode off, or nothing wanted).</p>;
  return (
    <div class="scroll">
      <table class="list sources">
        <thead>
          <tr>
            <th>Source</th>
            <th>Status</th>
            <th class="num">Time</th>
            <th class="num">Items</th>
            <th class="num">Chars</th>
            <th class="num">Tokens</th>
            <th>Trimmed / skipped</th>
          </tr>
        </thead>
        <tbody>
          {sources.map((report) => (
            <tr>
              <td class="mono source" data-label="Source">
                {report.source}
              </td>
              <td data-label="Status">
                {report.status}
                {report.error ? <div class="small muted">{report.error}</div> : null}
              </td>
              <NumCell label="Time" value={formatMs(report.ms)} />
              <NumCell label="Items" value={formatCount(report.items)} />
              <NumCell label="Chars" value={formatCount(report.chars)} />
              <NumCell label="Tokens" value={formatCount(report.tokens)} />
              <td class="small" data-label="Trimmed / skipped">
                {report.trimmed?.length ? <div>trimmed: {report.trimmed.join(', ')}</div> : null}
                {report.skipped.map((skip) => (
                  <div>
                    skipped <span class="mono">{skip.path}</span>: {skip.reason}
                  </div>
                ))}
                {!report.trimmed?.length && report.skipped.length === 0 ? '–' : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function RedactionCounts({ redactions }: { redactions: Record<string, number> }) {
  const rules = Object.entries(redactions).sort(([a], [b]) => a.localeCompare(b));
  if (rules.length === 0) return <p class="muted">Nothing was redacted.</p>;
  return (
    <ul class="redactions">
      {rules.map(([ruleId, count]) => (
        <li>
          <mark class="redacted">{`[REDACTED:${ruleId}]`}</mark> × {formatCount(count)}
        </li>
      ))}
    </ul>
  );
}

export function partKind(part: ContextPart): string {
  return part.kind === 'block' ? 'context block' : 'context update';
}

/** "carried from turn N (snapshot)" or "sent new", with the turn when asked for. */
export function PartOrigin({ part, newTurn = false }: { part: ContextPart; newTurn?: boolean }) {
  if (!part.carried) return <>{newTurn ? `sent new (turn ${part.fromTurn})` : 'sent new'}</>;
  return (
    <>
      carried from turn {part.fromTurn}
      {part.fromSnapshot ? (
        <>
          {' '}
          (<a href={`/audit/${encodeURIComponent(part.fromSnapshot)}`}>snapshot</a>)
        </>
      ) : null}
    </>
  );
}

/** Every block and `<context-update>` the forwarded messages hold, new or carried from an earlier turn. */
export function ContextParts({ parts }: { parts: ContextPart[] }) {
  if (parts.length === 0) return <p class="muted">No context in the forwarded messages.</p>;
  return (
    <div class="scroll">
      <table class="list parts">
        <thead>
          <tr>
            <th>Where</th>
            <th>Kind</th>
            <th>Origin</th>
            <th class="num">Chars</th>
            <th class="num">Tokens</th>
            <th>Tokens by source</th>
          </tr>
        </thead>
        <tbody>
          {parts.map((part) => (
            <tr data-part={part.kind} data-carried={part.carried ? 'yes' : 'no'}>
              <td data-label="Where">message {part.message + 1}</td>
              <td data-label="Kind">{partKind(part)}</td>
              <td data-label="Origin">
                <PartOrigin part={part} newTurn />
              </td>
              <NumCell label="Chars" value={formatCount(part.chars)} />
              <NumCell label="Tokens" value={formatCount(part.tokens)} />
              <td class="small mono" data-label="Tokens by source">
                {part.sources.map((source) => `${source.source} ${formatCount(source.tokens)}`).join(' · ')}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
