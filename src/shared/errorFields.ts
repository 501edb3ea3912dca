// What a log line says about a failure. An unforeseen error (a bug): its name,
// message and stack frames (and its cause's), never prompt text. A classified
// one (an upstream's answer, a timeout): its class, code and size only, since
// its message quotes what the upstream said, which can hold anything. Messages of library errors can
// quote their input (V8's JSON errors do: `Unexpected token 'x', "xxxx"… is not
// valid JSON`), so quoted spans are replaced by their length and the message is
// cut; the stack keeps only its `at …` frames, which name code, not data.

import type { LogFields } from './ports.ts';

const MAX_MESSAGE = 300;
const MAX_FRAMES = 12;

/** The message with every quoted span replaced by its length, cut to MAX_MESSAGE characters. */
export function scrubMessage(message: string): string {
  const scrubbed = message.replace(/"[^"]*"|'[^']*'|`[^`]*`/g, (span) => `<${span.length - 2} chars>`);
  return scrubbed.length > MAX_MESSAGE ? `${scrubbed.slice(0, MAX_MESSAGE)}…` : scrubbed;
}

function frames(stack: string | undefined): string | undefined {
  if (!stack) return undefined;
  const lines = stack
    .split('\n', 200)
    .filter((line) => /^\s+at /.test(line))
    .slice(0, MAX_FRAMES)
    .map((line) => line.trim());
  return lines.length > 0 ? lines.join(' | ') : undefined;
}

function describe(error: unknown): { name: string; message: string; stack?: string | undefined } {
  if (error instanceof Error) {
    return { name: error.name, message: scrubMessage(error.message), stack: frames(error.stack) };
  }
  return { name: typeof error, message: '(a non-Error value was thrown)' };
}

/** Log fields for `error`, following `cause` one level (a wrapped internal error is the interesting one). */
export function errorFields(error: unknown): LogFields {
  const own = describe(error);
  const fields: LogFields = { error: own.name, errorMessage: own.message, errorStack: own.stack };
  const cause = error instanceof Error ? error.cause : undefined;
  if (cause !== undefined) {
    const inner = describe(cause);
    fields.cause = inner.name;
    fields.causeMessage = inner.message;
    fields.causeStack = inner.stack;
  }
  return fields;
}

/**
 * Log fields for an error ctxproxy classified (a ProxyError: the upstream failed, timed out, …): the
 * error's class and code, its cause's class, and the message's length. Never the message: it quotes
 * the upstream's error body, which can echo the prompt or a credential.
 */
export function classifiedErrorFields(error: Error & { code?: unknown; type?: unknown }): LogFields {
  const fields: LogFields = {
    error: error.name,
    errorCode: typeof error.code === 'string' ? error.code : undefined,
    errorType: typeof error.type === 'string' ? error.type : undefined,
    messageChars: error.message.length,
  };
  if (error.cause !== undefined) fields.cause = error.cause instanceof Error ? error.cause.name : typeof error.cause;
  return fields;
}
