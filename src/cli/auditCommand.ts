// `ctxproxy audit list|show|search|export|prune`. The caller parses the global
// options (--db …) and opens the store; this parses the sub-command's own
// options. Exit codes: 0 done, 1 not found, 2 bad usage.

import { lstatSync } from 'node:fs';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { auditLocation } from '../audit/auditFiles.ts';
import type { AuditStoreFull } from '../audit/types.ts';
import { formatByConversation, formatSnapshot, formatSummaries } from './auditFormat.ts';
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

export const AUDIT_USAGE = `usage: ctxproxy audit <command> [--workspace DIR | --db PATH]
  list [--limit N] [--json] [--by-conversation]
                                              newest snapshots first (or grouped by conversation)
  show ID [--json]                            what the model saw, why each item was sent, the reply
  search TEXT [--limit N] [--json]            full-text search over questions, replies and the names
                                              of the context items sent (e.g. config.ts)
  export [--since T] [--format jsonl]         every snapshot as JSON lines (T: ISO date, or 7d, 12h …)
  prune --older-than AGE [--max-db-mb N] [--yes]
                                              say how many snapshots go, then delete them and shrink
                                              the file (asks first in a terminal; --yes elsewhere)
where the log is:
  --workspace DIR     the workspace whose log is read: DIR/.ctxproxy/audit.db (default: the current
                      directory) [CTXPROXY_WORKSPACE]
  --db PATH           the audit database itself (default: .ctxproxy/audit.db under the workspace)
                      [CTXPROXY_DB]
Each command names the database it reads on standard error, and never creates one.
AGE: a number and a unit: ${'`'}12h${'`'}, ${'`'}30d${'`'}, ${'`'}4w${'`'}, ${'`'}6mo${'`'}, ${'`'}1y${'`'} (also s, min).`;

/** Bad usage: the message names the option; exit code 2. */
class UsageError extends Error {}

const DAY = 86_400_000;
/** `m` is not among them: minutes or months? `min` and `mo` say which. A month is 30 days, a year 365. */
const UNITS: Record<string, number> = {
  s: 1000,
  min: 60_000,
  h: 3_600_000,
  d: DAY,
  w: 7 * DAY,
  mo: 30 * DAY,
  y: 365 * DAY,
};
export const DURATION_UNITS = Object.keys(UNITS);

/** `12h`, `30d`, `4w`, `6mo`, `1y`, `90min`, `45s` → milliseconds; undefined for anything else (`m` included). */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)([a-z]+)$/.exec(text.trim());
  const unit = match?.[2] === undefined ? undefined : UNITS[match[2]];
  if (!match?.[1] || unit === undefined) return undefined;
  return Number(match[1]) * unit;
}

/** What is wrong with a duration, for the message: `m` is named as the ambiguous unit it is. */
function durationProblem(option: string, text: string): string {
  const choices = `use a number and one of ${DURATION_UNITS.join(', ')}: 12h, 30d, 4w, 6mo, 1y`;
  if (/^\d+(?:\.\d+)?m$/.test(text.trim())) {
    return `${option}: '${text}' is ambiguous ('m' could be minutes or months); ${choices} (min for minutes, mo for months)`;
  }
  return `${option}: expected a duration, got '${text}'; ${choices}`;
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
  const { values, positionals } = parse('list', args, {
    limit: { type: 'string' },
    json: { type: 'boolean' },
    'by-conversation': { type: 'boolean' },
  });
  if (positionals.length > 0) throw new UsageError(`audit list: unexpected argument '${positionals[0]}'`);
  const summaries = io.store.list({ limit: positiveInteger('--limit', str(values.limit), 1000) ?? 20 });
  const shown = values['by-conversation'] ? formatByConversation(summaries) : formatSummaries(summaries);
  io.out(`${values.json ? json(summaries) : shown}\n`);
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
    throw new UsageError(
      /^\d+(?:\.\d+)?m$/.test(sinceText.trim())
        ? durationProblem('--since', sinceText)
        : `--since: expected an ISO date (2026-11-01) or a duration (7d, 12h, 6mo), got '${sinceText}'`,
    );
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
  if (olderText !== undefined && olderThanMs === undefined)
    throw new UsageError(durationProblem('--older-than', olderText));
  const megabytes = capText === undefined ? undefined : Number(capText);
  if (capText !== undefined && !(megabytes !== undefined && Number.isFinite(megabytes) && megabytes > 0)) {
    throw new UsageError(`--max-db-mb: expected a positive number of megabytes, got '${capText}'`);
  }
  const options = { olderThanMs, maxBytes: megabytes === undefined ? undefined : megabytes * 1024 * 1024 };
  // Said before anything is deleted, with or without --yes: how many, and from which file.
  const plan = io.store.prune({ ...options, dryRun: true });
  const what = [
    olderText === undefined ? undefined : `older than ${olderText}`,
    capText === undefined ? undefined : `the oldest until the file is under ${capText} MB`,
  ]
    .filter(Boolean)
    .join(', then ');
  const count = `${plan.estimated ? 'about ' : ''}${plan.deleted} snapshot${plan.deleted === 1 ? '' : 's'}`;
  io.err(`audit prune: ${count} to delete (${what}) of ${plan.total ?? '?'} in ${io.store.path}\n`);
  if (plan.deleted === 0) {
    io.out('nothing to delete\n');
    return 0;
  }
  if (values.yes !== true) {
    if (!io.confirm) {
      throw new UsageError(`audit prune: this deletes ${count} (${what}) from ${io.store.path}; add --yes to confirm`);
    }
    if (!(await io.confirm(`Delete ${count} (${what}) from ${io.store.path}? [y/N] `))) {
      io.err('audit prune: nothing deleted\n');
      return 1;
    }
  }
  const result = io.store.prune(options);
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

const wantsHelp = (args: readonly string[]) =>
  args[0] === 'help' || args.some((arg) => arg === '--help' || arg === '-h');

function commandOf(name: string | undefined) {
  return name !== undefined && Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
}

function badCommand(name: string | undefined, io: Pick<AuditCommandIo, 'err'>): number {
  io.err(`${name === undefined ? 'audit: missing command' : `audit: unknown command '${name}'`}\n${AUDIT_USAGE}\n`);
  return 2;
}

export type AuditCliIo = Omit<AuditCommandIo, 'store'>;

/**
 * `ctxproxy audit …` from the command line: help and usage mistakes need no database; otherwise
 * the log the settings point at is named on standard error and opened, and a missing one is an
 * error (exit 1), never created: a typo in --workspace must not leave an empty log behind.
 */
export async function runAuditCli(
  args: string[],
  settings: { db: string; workspace: string },
  io: AuditCliIo,
): Promise<number> {
  if (wantsHelp(args)) {
    io.out(`${AUDIT_USAGE}\n`);
    return 0;
  }
  if (!commandOf(args[0])) return badCommand(args[0], io);
  const location = auditLocation(settings);
  if (!exists(location.path)) {
    io.err(
      `audit: no audit log at ${location.path} (workspace ${location.workspace}); run \`ctxproxy serve\` there first, or name the log with --workspace DIR or --db PATH\n`,
    );
    return 1;
  }
  io.err(`audit: reading ${location.path}\n`);
  const { openAuditStore } = await import('../audit/store.ts');
  const store = openAuditStore(location);
  try {
    return await runAuditCommand(args, { ...io, store });
  } finally {
    await store.close();
  }
}

/** True for anything at the path, a dangling link included (the store then refuses it with its reason). */
function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

export async function runAuditCommand(args: string[], io: AuditCommandIo): Promise<number> {
  const [name, ...rest] = args;
  if (wantsHelp(args)) {
    io.out(`${AUDIT_USAGE}\n`);
    return 0;
  }
  const command = commandOf(name);
  if (!command) return badCommand(name, io);
  try {
    return await command(rest, io);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(`${error.message}\n`);
    return 2;
  }
}
