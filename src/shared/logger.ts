// The server's log on standard error. On a terminal it is text a person reads:
// one short line per API request and one line per problem, with the proxy's own
// hint as it was written; elsewhere (a file, a pipe, a supervisor) it is one JSON
// object per line. Callers pass only sizes, ids, hashes, rule ids and the proxy's
// own hints (ProxyError.hint): never prompt text, never an upstream's words.

import { setImmediate } from 'node:timers';
import { formatTextLine } from './logText.ts';
import type { LogFields, Logger } from './ports.ts';

export type LogFormat = 'json' | 'text';

export interface LoggerOptions {
  /** Where each finished line goes; standard error by default. */
  write?: ((line: string) => void) | undefined;
  /** `auto` (the default): text when `isTTY`, JSON lines otherwise. */
  format?: LogFormat | 'auto' | undefined;
  /** Whether the output is a terminal; standard error's by default. */
  isTTY?: boolean | undefined;
  /** Keep stack traces (errorFields' `errorStack`, `causeStack`); off, they are left out. */
  verbose?: boolean | undefined;
  now?: (() => Date) | undefined;
}

/** Fields that hold stack frames: a few hundred bytes each, for a developer, not for the user's terminal. */
const STACK_FIELDS = ['errorStack', 'causeStack'] as const;

export function resolveLogFormat(format: LogFormat | 'auto' | undefined, isTTY: boolean): LogFormat {
  if (format === 'json' || format === 'text') return format;
  return isTTY ? 'text' : 'json';
}

/**
 * Writes lines to `sink` once per event-loop turn, joined, after the turn's own work. A request
 * logs two lines (`http.request`, `request.done`) while its answer is being written; each write to
 * standard error is a system call that, on a pipe, also wakes its reader, and Node makes it
 * synchronously: written as they come, both land between the answer and the client
 * (bench/overhead/README.md, "From outside"). Queued, they leave in one call once the answer has
 * left. Warnings and errors are not held back, and the queue is written out at exit.
 */
export function turnBatchedWriter(sink: (text: string) => void): {
  write: (line: string) => void;
  flush: () => void;
} {
  let queued: string[] = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (queued.length === 0) return;
    const text = queued.length === 1 ? (queued[0] as string) : queued.join('');
    queued = [];
    sink(text);
  };
  return {
    write(line) {
      queued.push(line);
      if (scheduled) return;
      scheduled = true;
      setImmediate(flush).unref();
    },
    flush,
  };
}

let stderrWriter: ReturnType<typeof turnBatchedWriter> | undefined;

/** Standard error, batched per turn; one queue per process, written out when the process exits. */
function stderrLines(): ReturnType<typeof turnBatchedWriter> {
  if (stderrWriter) return stderrWriter;
  const writer = turnBatchedWriter((text) => process.stderr.write(text));
  process.once('exit', writer.flush);
  stderrWriter = writer;
  return writer;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const batched = options.write ? undefined : stderrLines();
  const write = options.write ?? (batched as ReturnType<typeof turnBatchedWriter>).write;
  // What a person or a supervisor must see now (a failure, the server stopping) is not held back.
  const writeNow = (line: string) => {
    if (!batched) return write(line);
    batched.flush();
    process.stderr.write(line);
  };
  const format = resolveLogFormat(options.format, options.isTTY ?? process.stderr.isTTY === true);
  const now = options.now ?? (() => new Date());
  const text = format === 'text' ? formatTextLine() : undefined;
  const emit = (level: string, event: string, given: LogFields = {}) => {
    let fields = given;
    if (!options.verbose && STACK_FIELDS.some((key) => given[key] !== undefined)) {
      fields = { ...given };
      for (const key of STACK_FIELDS) delete fields[key];
    }
    const time = now();
    const out = level === 'info' ? write : writeNow;
    if (text) {
      const line = text(time, level, event, fields);
      if (line !== undefined) out(line);
      return;
    }
    out(`${JSON.stringify({ t: time.toISOString(), level, event, ...fields })}\n`);
  };
  return {
    info: (event, fields) => emit('info', event, fields),
    warn: (event, fields) => emit('warn', event, fields),
    error: (event, fields) => emit('error', event, fields),
  };
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
