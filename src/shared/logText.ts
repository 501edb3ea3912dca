// The log as a person reads it on a terminal: one short line per API request
// (status, route, mode, tokens in and out, time), one line per problem with the
// proxy's hint as written, and `key=value` lines for the rest. The request line
// joins two events: `request.done` (the audit's close: mode and tokens) comes
// first and is held by request id; `http.request` (the HTTP layer: status, route,
// time) prints the line. Every value is made printable: a field may hold a name
// from a repository, and a terminal obeys escape sequences.

import type { LogFields } from './ports.ts';

/** Requests whose `request.done` waits for its `http.request`: a few in flight, bounded all the same. */
const HELD_MAX = 256;

interface Held {
  mode?: string | undefined;
  promptTokens?: number | undefined;
  completionTokens?: number | undefined;
}

export type TextLineFormatter = (time: Date, level: string, event: string, fields: LogFields) => string | undefined;

export function formatTextLine(): TextLineFormatter {
  const held = new Map<string, Held>();
  return (time, level, event, fields) => {
    const clock = time.toISOString().slice(11, 19);
    if (event === 'request.done') {
      const id = typeof fields.requestId === 'string' ? fields.requestId : undefined;
      if (id === undefined) return undefined;
      held.set(id, {
        mode: typeof fields.mode === 'string' ? fields.mode : undefined,
        promptTokens: numberOf(fields.promptTokens),
        completionTokens: numberOf(fields.completionTokens),
      });
      if (held.size > HELD_MAX) held.delete(held.keys().next().value as string);
      return undefined;
    }
    if (event === 'http.request') {
      const id = typeof fields.requestId === 'string' ? fields.requestId : '';
      const done = held.get(id);
      held.delete(id);
      return `${clock} ${requestLine(fields, done)}\n`;
    }
    if (typeof fields.hint === 'string') return `${clock} ${problemLine(level, fields)}\n`;
    return `${clock} ${level.padEnd(5)} ${event}${pairs(fields)}${stacks(fields)}\n`;
  };
}

/** `200 POST /v1/chat/completions  git-aware  1234 in, 56 out tokens  1.2 s` */
function requestLine(fields: LogFields, done: Held | undefined): string {
  const parts = [
    `${fields.status ?? '-'} ${printable(String(fields.method ?? ''))} ${printable(String(fields.route ?? ''))}`,
  ];
  if (done?.mode) parts.push(printable(done.mode));
  if (done?.promptTokens !== undefined || done?.completionTokens !== undefined) {
    parts.push(`${done.promptTokens ?? '?'} in, ${done.completionTokens ?? '?'} out tokens`);
  }
  parts.push(duration(numberOf(fields.ms)));
  return parts.join('  ');
}

/** `error upstream_unavailable (502): Start Ollama with `ollama serve`, …` */
function problemLine(level: string, fields: LogFields): string {
  const what = fields.errorCode ?? fields.error ?? 'problem';
  const status = fields.status === undefined ? '' : ` (${fields.status})`;
  return `${level.padEnd(5)} ${printable(String(what))}${status}: ${printable(String(fields.hint))}`;
}

const SHOWN_APART = new Set(['hint', 'errorStack', 'causeStack']);

function pairs(fields: LogFields): string {
  let out = '';
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined || SHOWN_APART.has(key)) continue;
    const text = String(value);
    out += ` ${key}=${/^[\x21-\x7e]+$/.test(text) ? text : printable(JSON.stringify(text))}`;
  }
  return out;
}

/** Stack frames (present only with --verbose), each on its own indented line. */
function stacks(fields: LogFields): string {
  let out = '';
  for (const key of ['errorStack', 'causeStack'] as const) {
    const stack = fields[key];
    if (typeof stack === 'string') out += `\n    ${printable(stack).split(' | ').join('\n    ')}`;
  }
  return out;
}

function duration(ms: number | undefined): string {
  if (ms === undefined) return '-';
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

function numberOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** Control characters (C0, DEL, C1) and bidirectional overrides shown as escapes, never obeyed. */
export function printable(text: string): string {
  return text.replace(
    /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
