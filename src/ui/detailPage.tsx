// `/audit/:id`: one request, exactly as the model saw it (each forwarded
// message in order, context folded per source), then the reply and the report.

import type { Snapshot } from '../shared/types.ts';
import { formatCount, formatMs, formatTime } from './format.ts';
import { conversationPath, Layout, OutcomeBadge } from './layout.tsx';
import { MessageView, Pre, ToolCalls } from './messageView.tsx';
import { BudgetBar, ContextParts, RedactionCounts, SourcesTable } from './reportSections.tsx';
import { ContextWhy } from './whySection.tsx';

function Facts({ snapshot }: { snapshot: Snapshot }) {
  const { timings, usage } = snapshot;
  return (
    <dl class="facts">
      <dt>Time</dt>
      <dd>{formatTime(snapshot.createdAt)}</dd>
      <dt>Model</dt>
      <dd class="mono">{snapshot.model}</dd>
      <dt>Mode asked → used</dt>
      <dd>
        {snapshot.modeAsked} → <strong>{snapshot.modeUsed}</strong>
        {snapshot.budget?.modeReason ? <div class="small mode-reason">Why: {snapshot.budget.modeReason}</div> : null}
        {snapshot.downgradeReason ? <div class="small">Downgraded: {snapshot.downgradeReason}</div> : null}
      </dd>
      <dt>Outcome</dt>
      <dd>
        <OutcomeBadge outcome={snapshot.outcome} />
      </dd>
      <dt>Tokens in / out</dt>
      <dd>
        {formatCount(usage?.promptTokens)} / {formatCount(usage?.completionTokens)}
      </dd>
      <dt>Timings</dt>
      <dd>
        total {formatMs(timings.totalMs)}
        {timings.collectMs !== undefined ? ` · collect ${formatMs(timings.collectMs)}` : ''}
        {timings.firstTokenMs !== undefined ? ` · first token ${formatMs(timings.firstTokenMs)}` : ''}
        {timings.upstreamMs !== undefined ? ` · upstream ${formatMs(timings.upstreamMs)}` : ''}
      </dd>
      <dt>Workspace</dt>
      <dd class="mono">{snapshot.workspace}</dd>
      {snapshot.conversationId ? (
        <>
          <dt>Conversation</dt>
          <dd>
            <a href={conversationPath(snapshot.conversationId, snapshot.id)} class="mono">
              {snapshot.conversationId}
            </a>
          </dd>
        </>
      ) : null}
      <dt>Client</dt>
      <dd>
        {snapshot.userAgent ?? 'unknown'} · {snapshot.stream ? 'streamed' : 'not streamed'}
      </dd>
      <dt>Ids</dt>
      <dd class="mono small">
        snapshot {snapshot.id} · request {snapshot.requestId}
      </dd>
    </dl>
  );
}

function Reply({ snapshot }: { snapshot: Snapshot }) {
  const { reply } = snapshot;
  return (
    <section class="reply">
      <p class="muted small">Finish reason: {reply.finishReason ?? 'none (the answer did not finish)'}</p>
      {reply.reasoning ? (
        <details class="reasoning">
          <summary>Reasoning · {formatCount(reply.reasoning.length)} chars</summary>
          <Pre text={reply.reasoning} />
        </details>
      ) : null}
      {reply.content !== '' ? <Pre class="reply-text" text={reply.content} /> : <p class="muted">(no text)</p>}
      {reply.toolCalls?.length ? (
        <>
          <h3>Tool calls</h3>
          <ToolCalls calls={reply.toolCalls} />
        </>
      ) : null}
    </section>
  );
}

export function DetailPage({ snapshot, signedIn }: { snapshot: Snapshot; signedIn: boolean }) {
  return (
    <Layout title={`Request ${formatTime(snapshot.createdAt)}`} signedIn={signedIn}>
      <h1>
        Request at {formatTime(snapshot.createdAt)} <OutcomeBadge outcome={snapshot.outcome} />
      </h1>
      <Facts snapshot={snapshot} />
      {snapshot.error ? (
        <div class="notice error" role="alert">
          <strong>
            Error {snapshot.error.status} {snapshot.error.type}
            {snapshot.error.code ? ` (${snapshot.error.code})` : ''}:
          </strong>{' '}
          {snapshot.error.message}
        </div>
      ) : null}
      {snapshot.warnings.length > 0 ? (
        <div class="notice warnings">
          <strong>Warnings</strong>
          <ul>
            {snapshot.warnings.map((warning) => (
              <li>{warning}</li>
            ))}
          </ul>
        </div>
      ) : null}

      {snapshot.question !== undefined ? (
        <section class="refused-question">
          <h2>What was asked</h2>
          <p class="muted small">
            Refused before anything was forwarded: the model saw nothing. The question, redacted:
          </p>
          <Pre text={snapshot.question} />
        </section>
      ) : null}

      <h2>What the model saw · {snapshot.forwarded.length} messages</h2>
      <p class="small toggles">
        <button class="plain" type="button" data-toggle-all="open" hidden>
          Expand all context
        </button>
        <button class="plain" type="button" data-toggle-all="close" hidden>
          Collapse all
        </button>
      </p>
      <div class="forwarded">
        {snapshot.forwarded.map((message, index) => (
          <MessageView
            message={message}
            index={index}
            sources={snapshot.sources}
            parts={snapshot.budget?.parts?.filter((part) => part.message === index)}
          />
        ))}
      </div>

      <h2>Reply</h2>
      <Reply snapshot={snapshot} />

      <h2>Why this context</h2>
      <ContextWhy budget={snapshot.budget} />

      <h2>Budget</h2>
      {snapshot.budget ? <BudgetBar budget={snapshot.budget} /> : <p class="muted">No budget was computed.</p>}

      <h2>Context sent</h2>
      <ContextParts parts={snapshot.budget?.parts ?? []} />

      <h2>Sources</h2>
      <SourcesTable sources={snapshot.sources} />

      <h2>Redactions</h2>
      <RedactionCounts redactions={snapshot.redactions} />

      <p class="small muted">
        As JSON: <a href={`/api/audit/snapshots/${encodeURIComponent(snapshot.id)}`}>/api/audit/snapshots/…</a>
      </p>
    </Layout>
  );
}
