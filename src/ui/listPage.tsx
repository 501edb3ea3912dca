// `/audit`: the newest requests first, with filters as a plain GET form and
// paging as plain links, so it works without JavaScript.

import type { SnapshotSummary } from '../shared/types.ts';
import { MODE_FILTERS, OUTCOMES, type PageFilterValues } from './auditFilters.ts';
import { excerpt, formatCount, formatMs, formatTime, modeLabel } from './format.ts';
import { Layout, OutcomeBadge, snapshotPath } from './layout.tsx';
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
        Search questions and replies
        <input type="search" name="text" value={values.text} placeholder="e.g. stack trace" />
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
      {values.limit !== '' ? <input type="hidden" name="limit" value={values.limit} /> : null}
      <button type="submit">Filter</button>
      <a href="/audit">Clear</a>
    </form>
  );
}

function Row({ summary }: { summary: SnapshotSummary }) {
  const href = snapshotPath(summary.id);
  return (
    <tr data-href={href}>
      <td class="nowrap" data-label="Time">
        <a href={href}>{formatTime(summary.createdAt)}</a>
      </td>
      <td data-label="Model">{summary.model}</td>
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
      <td class="question" data-label="Question">
        {excerpt(summary.question)}
      </td>
    </tr>
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
              <th>Mode asked → used</th>
              <th class="num">Tokens in / out</th>
              <th class="num">Latency</th>
              <th>Outcome</th>
              <th>Question</th>
            </tr>
          </thead>
          <tbody>
            {page.data.map((summary) => (
              <Row summary={summary} />
            ))}
          </tbody>
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
