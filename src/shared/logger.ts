// The server's log on standard error. On a terminal it is text a person reads:
// one short line per API request and one line per problem, with the proxy's own
// hint as it was written; elsewhere (a file, a pipe, a supervisor) it is one JSON
// object per line. Callers pass only sizes, ids, hashes, rule ids and the proxy's
// own hints (ProxyError.hint): never prompt text, never an upstream's words.

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

export function createLogger(options: LoggerOptions = {}): Logger {
  const write = options.write ?? ((line: string) => process.stderr.write(line));
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
    if (text) {
      const line = text(time, level, event, fields);
      if (line !== undefined) write(line);
      return;
    }
    write(`${JSON.stringify({ t: time.toISOString(), level, event, ...fields })}\n`);
  };
  return {
    info: (event, fields) => emit('info', event, fields),
    warn: (event, fields) => emit('warn', event, fields),
    error: (event, fields) => emit('error', event, fields),
  };
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
