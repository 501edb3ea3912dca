// `/audit`: the newest requests first, with filters as a plain GET form and
// paging as plain links, so it works without JavaScript.

import type { SnapshotSummary } from '../shared/types.ts';
import { MODE_FILTERS, OUTCOMES, type PageFilterValues } from './auditFilters.ts';
import { excerpt, formatCount, formatMs, formatTime, modeLabel } from './format.ts';
import { conversationPath, Layout, OutcomeBadge, snapshotPath } from './layout.tsx';
import type { SnapshotPage } from './snapshotPaging.ts';

export interface ListPageProps {
  page: SnapshotPage;
  values: PageFilterValues;
  problems: string[];
  /** Whether this page is an older page (a `before` cursor was given). */
  paged: boolean;
  signedIn: boolean;
}

function listHref(values: PageFilterValues, before?: string): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(values)) if (value !== '') params.set(key, value);
  if (before !== undefined) params.set('before', before);
  const query = params.toString();
  return query === '' ? '/audit' : `/audit?${query}`;
}

/** A filter with a fixed list of values, `any` first (the empty value: no filter). */
function Choice(props: { label: string; name: string; options: readonly string[]; value: string }) {
  return (
    <label>
      {props.label}
      <select name={props.name}>
        <option value="">any</option>
        {props.options.map((option) => (
          <option value={option} selected={props.value === option}>
            {option}
          </option>
        ))}
      </select>
    </label>
  );
}

function Filters({ values, models }: { values: PageFilterValues; models: string[] }) {
  return (
    <form class="filters" method="get" action="/audit" data-autosubmit>
      <label class="grow">
        Search questions, replies and the context sent
        <input type="search" name="text" value={values.text} placeholder="e.g. stack trace, config.ts" />
      </label>
      <label>
        Model
        <input name="model" value={values.model} list="known-models" size={16} />
        <datalist id="known-models">
          {models.map((model) => (
            <option value={model} />
          ))}
        </datalist>
      </label>
      <Choice label="Mode" name="mode" options={MODE_FILTERS} value={values.mode} />
      <Choice label="Outcome" name="outcome" options={OUTCOMES} value={values.outcome} />
      <label>
        From
        <input type="date" name="from" value={values.from} />
      </label>
      <label>
        To
        <input type="date" name="to" value={values.to} />
      </label>
      <label class="check">
        <input type="checkbox" name="group" value="conversation" checked={values.group === 'conversation'} /> Group by
        conversation
      </label>
      {values.limit !== '' ? <input type="hidden" name="limit" value={values.limit} /> : null}
      <button type="submit">Filter</button>
      <a href="/audit">Clear</a>
    </form>
  );
}

/** The last folder of the workspace; the whole path on hover. */
function workspaceName(workspace: string): string {
  return workspace.split(/[\\/]/).filter(Boolean).at(-1) ?? workspace;
}

/** The question, and for a request that failed, why: a refused one (nothing forwarded) shows its reason in its place. */
function QuestionCell({ summary }: { summary: SnapshotSummary }) {
  const { error } = summary;
  const reason = error ? `${error.status} ${excerpt(error.message, 160)}` : undefined;
  return (
    <td class="question" data-label="Question">
      {summary.question !== '' ? excerpt(summary.question) : null}
      {reason !== undefined ? (
        <div class={summary.question === '' ? 'refusal' : 'refusal small'} data-refusal>
          {summary.outcome === 'error' ? 'refused' : summary.outcome}: {reason}
        </div>
      ) : summary.question === '' ? (
        <span class="muted">(no question)</span>
      ) : null}
    </td>
  );
}

function Row({ summary }: { summary: SnapshotSummary }) {
  const href = snapshotPath(summary.id);
  return (
    <tr data-href={href} data-outcome={summary.outcome}>
      <td class="nowrap" data-label="Time">
        <a href={href}>{formatTime(summary.createdAt)}</a>
      </td>
      <td data-label="Model">{summary.model !== '' ? summary.model : <span class="muted">(none given)</span>}</td>
      <td data-label="Workspace" title={summary.workspace}>
        {summary.workspace ? workspaceName(summary.workspace) : '–'}
      </td>
      <td class="nowrap" data-label="Mode">
        {modeLabel(summary.modeAsked, summary.modeUsed)}
      </td>
      <td class="num" data-label="Tokens in / out">
        {formatCount(summary.promptTokens)} / {formatCount(summary.completionTokens)}
      </td>
      <td class="num" data-label="Latency">
        {formatMs(summary.totalMs)}
      </td>
      <td data-label="Outcome">
        <OutcomeBadge outcome={summary.outcome} />
      </td>
      <QuestionCell summary={summary} />
    </tr>
  );
}

const COLUMNS = 8;

/** The page's requests by conversation, the conversation seen newest first; requests in none last. */
function Grouped({ rows }: { rows: SnapshotSummary[] }) {
  const groups = new Map<string, SnapshotSummary[]>();
  for (const summary of rows) {
    const key = summary.conversationId ?? '';
    groups.set(key, [...(groups.get(key) ?? []), summary]);
  }
  const ordered = [...groups.entries()].sort(([a], [b]) => Number(a === '') - Number(b === ''));
  return (
    <>
      {ordered.map(([conversationId, summaries]) => (
        <tbody data-conversation={conversationId}>
          <tr class="group">
            <th colspan={COLUMNS}>
              {conversationId === '' ? (
                'Not in a conversation'
              ) : (
                <a href={conversationPath(conversationId, summaries[0]?.id ?? '')}>
                  Conversation <span class="mono">{conversationId}</span>
                </a>
              )}{' '}
              <span class="muted small">
                · {summaries.length} request{summaries.length === 1 ? '' : 's'} on this page
              </span>
            </th>
          </tr>
          {summaries.map((summary) => (
            <Row summary={summary} />
          ))}
        </tbody>
      ))}
    </>
  );
}

export function ListPage({ page, values, problems, paged, signedIn }: ListPageProps) {
  const models = [...new Set(page.data.map((summary) => summary.model))].sort();
  const filtered = [values.model, values.mode, values.outcome, values.from, values.to, values.text].some(
    (value) => value !== '',
  );
  return (
    <Layout title="Requests" signedIn={signedIn}>
      <h1>Requests</h1>
      <Filters values={values} models={models} />
      {problems.length > 0 ? (
        <div class="notice" role="status">
          Ignored: {problems.join('; ')}.
        </div>
      ) : null}
      {page.data.length === 0 ? (
        <p class="muted">
          {filtered || paged
            ? 'No requests match.'
            : 'No requests yet. Point a client at this proxy and send one; it will appear here.'}
        </p>
      ) : (
        <table class="list">
          <thead>
            <tr>
              <th>Time</th>
              <th>Model</th>
              <th>Workspace</th>
              <th>Mode asked → used</th>
              <th class="num">Tokens in / out</th>
              <th class="num">Latency</th>
              <th>Outcome</th>
              <th>Question</th>
            </tr>
          </thead>
          {values.group === 'conversation' ? (
            <Grouped rows={page.data} />
          ) : (
            <tbody>
              {page.data.map((summary) => (
                <Row summary={summary} />
              ))}
            </tbody>
          )}
        </table>
      )}
      <nav class="pager">
        {paged ? <a href={listHref(values)}>« Newest</a> : <span />}
        {page.nextCursor !== null ? (
          <a href={listHref(values, page.nextCursor)} rel="next">
            Older »
          </a>
        ) : null}
      </nav>
    </Layout>
  );
}
