import type { LogFields, Logger } from './ports.ts';

/** One JSON line per event on stderr. Callers pass only sizes, ids, hashes and rule ids. */
export function createLogger(write: (line: string) => void = (line) => process.stderr.write(line)): Logger {
  const emit = (level: string, event: string, fields: LogFields = {}) => {
    write(`${JSON.stringify({ t: new Date().toISOString(), level, event, ...fields })}\n`);
  };
  return {
    info: (event, fields) => emit('info', event, fields),
    warn: (event, fields) => emit('warn', event, fields),
    error: (event, fields) => emit('error', event, fields),
  };
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
