// Turns the query string of `/audit` and `/api/audit/snapshots` into a
// SnapshotQuery. The API is strict (a bad value is the client's bug: 400); the
// page is forgiving (a hand-edited URL shows the list and says what it ignored).

import type { SnapshotQuery } from '../shared/ports.ts';
import { MODE_NAMES, type Outcome } from '../shared/types.ts';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;
export const OUTCOMES: readonly Outcome[] = ['ok', 'error', 'aborted', 'interrupted', 'in_flight'];
/** The mode filter matches the mode used or asked for, so `auto` (only ever asked) is a valid filter too. */
export const MODE_FILTERS: readonly string[] = ['auto', ...MODE_NAMES];

export interface ParsedFilters {
  query: SnapshotQuery & { limit: number };
  /** Human-readable problems, one per rejected parameter. */
  problems: string[];
}

type Params = Record<string, string | undefined>;

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

function parseLimit(raw: string | undefined, problems: string[]): number {
  if (raw === undefined) return DEFAULT_PAGE_SIZE;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > MAX_PAGE_SIZE) {
    problems.push(`limit must be an integer from 1 to ${MAX_PAGE_SIZE}`);
    return DEFAULT_PAGE_SIZE;
  }
  return value;
}

/** An instant as epoch milliseconds or any date string `Date.parse` reads (ISO 8601). */
function parseInstant(name: string, raw: string | undefined, problems: string[]): number | undefined {
  if (raw === undefined) return undefined;
  const value = /^\d+$/.test(raw) ? Number(raw) : Date.parse(raw);
  if (!Number.isFinite(value)) {
    problems.push(`${name} must be epoch milliseconds or an ISO 8601 date`);
    return undefined;
  }
  return value;
}

/**
 * `YYYY-MM-DD` from a date input, in the server's local time. The store's
 * `until` is exclusive, so the inclusive "to" day becomes the next midnight.
 */
function parseDay(name: string, raw: string | undefined, nextDay: boolean, problems: string[]): number | undefined {
  if (raw === undefined) return undefined;
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(raw);
  if (!match) {
    problems.push(`${name} must be a date like 2026-01-31`);
    return undefined;
  }
  const day = new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3]) + (nextDay ? 1 : 0));
  if (Number.isNaN(day.getTime())) {
    problems.push(`${name} must be a date like 2026-01-31`);
    return undefined;
  }
  return day.getTime();
}

function parseCommon(params: Params, problems: string[]): SnapshotQuery & { limit: number } {
  const query: SnapshotQuery & { limit: number } = { limit: parseLimit(nonEmpty(params.limit), problems) };
  const before = nonEmpty(params.before);
  if (before !== undefined) query.before = before;
  const model = nonEmpty(params.model);
  if (model !== undefined) query.model = model;
  const mode = nonEmpty(params.mode);
  if (mode !== undefined) {
    if (MODE_FILTERS.includes(mode)) query.mode = mode;
    else problems.push(`mode must be one of ${MODE_FILTERS.join(', ')}`);
  }
  const outcome = nonEmpty(params.outcome);
  if (outcome !== undefined) {
    if ((OUTCOMES as readonly string[]).includes(outcome)) query.outcome = outcome;
    else problems.push(`outcome must be one of ${OUTCOMES.join(', ')}`);
  }
  const text = nonEmpty(params.text);
  if (text !== undefined) query.text = text;
  return query;
}

/** `/api/audit/snapshots`: since/until are instants (since inclusive, until exclusive, as the store reads them). */
export function parseApiFilters(params: Params): ParsedFilters {
  const problems: string[] = [];
  const query = parseCommon(params, problems);
  const since = parseInstant('since', nonEmpty(params.since), problems);
  if (since !== undefined) query.since = since;
  const until = parseInstant('until', nonEmpty(params.until), problems);
  if (until !== undefined) query.until = until;
  return { query, problems };
}

/** `/audit`: from/to are whole days from `<input type="date">`, both inclusive. */
export function parsePageFilters(params: Params): ParsedFilters {
  const problems: string[] = [];
  const query = parseCommon(params, problems);
  const since = parseDay('from', nonEmpty(params.from), false, problems);
  if (since !== undefined) query.since = since;
  const until = parseDay('to', nonEmpty(params.to), true, problems);
  if (until !== undefined) query.until = until;
  return { query, problems };
}

/** The page's filter values as the form shows them (raw, so the user sees what they typed). */
export interface PageFilterValues {
  model: string;
  mode: string;
  outcome: string;
  from: string;
  to: string;
  text: string;
  /** Page size, kept in the paging links and the form when the URL set it. */
  limit: string;
  /** `conversation`: the page's requests grouped by conversation (a view: it filters nothing). */
  group: string;
}

export function pageFilterValues(params: Params): PageFilterValues {
  return {
    model: params.model ?? '',
    mode: params.mode ?? '',
    outcome: params.outcome ?? '',
    from: params.from ?? '',
    to: params.to ?? '',
    text: params.text ?? '',
    limit: params.limit ?? '',
    group: params.group === 'conversation' ? 'conversation' : '',
  };
}
