// `ctxproxy audit list|show|search|export|prune`. The caller parses the global
// options (--db …) and opens the store; this parses the sub-command's own
// options. Exit codes: 0 done, 1 not found, 2 bad usage.

import { type ParseArgsConfig, parseArgs } from 'node:util';
import type { AuditStoreFull } from '../audit/types.ts';
import { formatSnapshot, formatSummaries } from './auditFormat.ts';
import { safeJson } from './terminalText.ts';

export interface AuditCommandIo {
  store: AuditStoreFull;
  /** Raw text: every call here ends with its own newline (the caller writes it as is). */
  out: (text: string) => void;
  err: (text: string) => void;
  now?: (() => number) | undefined;
  /**
   * Asks the user a yes/no question; given only when standard input and output are a terminal.
   * Without it, a deleting command needs --yes.
   */
  confirm?: ((question: string) => Promise<boolean>) | undefined;
}

export const AUDIT_USAGE = `usage: ctxproxy audit <command>
  list [--limit N] [--json]                   newest snapshots first
  show ID [--json]                            what the model saw, the report, the reply
  search TEXT [--limit N] [--json]            full-text search over questions and replies
  export [--since T] [--format jsonl]         every snapshot as JSON lines (T: ISO date, or 7d, 12h …)
  prune --older-than 30d [--max-db-mb N] [--yes]
                                              delete old snapshots, then shrink the file (asks first
                                              in a terminal; --yes elsewhere)`;

/** Bad usage: the message names the option; exit code 2. */
class UsageError extends Error {}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `30d`, `12h`, `90m`, `45s`, `2w`, `500ms` → milliseconds. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d|w)$/.exec(text.trim());
  if (!match?.[1] || !match[2]) return undefined;
  return Number(match[1]) * (UNITS[match[2]] ?? 0);
}

/** An ISO date (`2026-11-01`, `2026-11-01T12:00:00Z`) or a duration back from now. */
export function parseSince(text: string, now: number): number | undefined {
  const duration = parseDuration(text);
  if (duration !== undefined) return now - duration;
  if (!/^\d{4}-\d{2}-\d{2}/.test(text)) return undefined;
  const time = Date.parse(text);
  return Number.isNaN(time) ? undefined : time;
}

function positiveInteger(option: string, value: string | undefined, max: number): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < 1 || number > max) {
    throw new UsageError(`${option}: expected a whole number from 1 to ${max}, got '${value}'`);
  }
  return number;
}

type Options = NonNullable<ParseArgsConfig['options']>;

function parse(command: string, args: string[], options: Options) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(`audit ${command}: ${(error as Error).message}`);
  }
}

const json = (value: unknown) => safeJson(value, 2);
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

function list(args: string[], io: AuditCommandIo): number {
  const { values, positionals } = parse('list', args, { limit: { type: 'string' }, json: { type: 'boolean' } });
  if (positionals.length > 0) throw new UsageError(`audit list: unexpected argument '${positionals[0]}'`);
  const summaries = io.store.list({ limit: positiveInteger('--limit', str(values.limit), 1000) ?? 20 });
  io.out(`${values.json ? json(summaries) : formatSummaries(summaries)}\n`);
  return 0;
}

function show(args: string[], io: AuditCommandIo): number {
  const { values, positionals } = parse('show', args, { json: { type: 'boolean' } });
  const [id, extra] = positionals;
  if (id === undefined) throw new UsageError('audit show: missing ID (see `ctxproxy audit list`)');
  if (extra !== undefined) throw new UsageError(`audit show: unexpected argument '${extra}'`);
  const snapshot = io.store.get(id);
  if (!snapshot) {
    io.err(`audit show: no snapshot with id '${id}' in ${io.store.path} (see \`ctxproxy audit list\`)\n`);
    return 1;
  }
  io.out(`${values.json ? json(snapshot) : formatSnapshot(snapshot)}\n`);
  return 0;
}

function search(args: string[], io: AuditCommandIo): number {
  const { values, positionals } = parse('search', args, { limit: { type: 'string' }, json: { type: 'boolean' } });
  const text = positionals.join(' ').trim();
  if (text === '') throw new UsageError('audit search: missing TEXT to search for');
  const limit = positiveInteger('--limit', str(values.limit), 1000) ?? 20;
  const results = io.store.search(text, limit);
  const shown = results.length === 0 ? `no snapshot matches '${text}'` : formatSummaries(results);
  io.out(`${values.json ? json(results) : shown}\n`);
  return 0;
}

function exportCommand(args: string[], io: AuditCommandIo): number {
  const { values, positionals } = parse('export', args, { since: { type: 'string' }, format: { type: 'string' } });
  if (positionals.length > 0) throw new UsageError(`audit export: unexpected argument '${positionals[0]}'`);
  const format = str(values.format) ?? 'jsonl';
  if (format !== 'jsonl') throw new UsageError(`--format: only 'jsonl' is supported, got '${format}'`);
  const sinceText = str(values.since);
  const now = (io.now ?? Date.now)();
  const since = sinceText === undefined ? undefined : parseSince(sinceText, now);
  if (sinceText !== undefined && since === undefined) {
    throw new UsageError(`--since: expected an ISO date (2026-11-01) or a duration (7d, 12h), got '${sinceText}'`);
  }
  for (const snapshot of io.store.export({ since })) io.out(`${safeJson(snapshot)}\n`);
  return 0;
}

async function prune(args: string[], io: AuditCommandIo): Promise<number> {
  const { values, positionals } = parse('prune', args, {
    'older-than': { type: 'string' },
    'max-db-mb': { type: 'string' },
    yes: { type: 'boolean', short: 'y' },
  });
  if (positionals.length > 0) throw new UsageError(`audit prune: unexpected argument '${positionals[0]}'`);
  const olderText = str(values['older-than']);
  const capText = str(values['max-db-mb']);
  if (olderText === undefined && capText === undefined) {
    throw new UsageError('audit prune: give --older-than (e.g. 30d) and/or --max-db-mb N');
  }
  const olderThanMs = olderText === undefined ? undefined : parseDuration(olderText);
  if (olderText !== undefined && olderThanMs === undefined) {
    throw new UsageError(`--older-than: expected a duration like 30d, 12h or 90m, got '${olderText}'`);
  }
  const megabytes = capText === undefined ? undefined : Number(capText);
  if (capText !== undefined && !(megabytes !== undefined && Number.isFinite(megabytes) && megabytes > 0)) {
    throw new UsageError(`--max-db-mb: expected a positive number of megabytes, got '${capText}'`);
  }
  if (values.yes !== true) {
    const what = [
      olderText === undefined ? undefined : `snapshots older than ${olderText}`,
      capText === undefined ? undefined : `the oldest snapshots until it is under ${capText} MB`,
    ]
      .filter(Boolean)
      .join(', then ');
    if (!io.confirm) {
      throw new UsageError(`audit prune: this deletes ${what} from ${io.store.path}; add --yes to confirm`);
    }
    if (!(await io.confirm(`Delete ${what} from ${io.store.path}? [y/N] `))) {
      io.err('audit prune: nothing deleted\n');
      return 1;
    }
  }
  const result = io.store.prune({
    olderThanMs,
    maxBytes: megabytes === undefined ? undefined : megabytes * 1024 * 1024,
  });
  const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(2);
  io.out(
    `deleted ${result.deleted} snapshot${result.deleted === 1 ? '' : 's'}; ${io.store.path}: ${mb(result.bytesBefore)} MB → ${mb(result.bytesAfter)} MB\n`,
  );
  return 0;
}

const COMMANDS: Record<string, (args: string[], io: AuditCommandIo) => number | Promise<number>> = {
  list,
  show,
  search,
  export: exportCommand,
  prune,
};

export async function runAuditCommand(args: string[], io: AuditCommandIo): Promise<number> {
  const [name, ...rest] = args;
  if (name === 'help' || name === '--help' || name === '-h') {
    io.out(`${AUDIT_USAGE}\n`);
    return 0;
  }
  const command = name !== undefined && Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) {
    io.err(`${name === undefined ? 'audit: missing command' : `audit: unknown command '${name}'`}\n${AUDIT_USAGE}\n`);
    return 2;
  }
  try {
    return await command(rest, io);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(`${error.message}\n`);
    return 2;
  }
}
