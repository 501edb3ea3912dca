// Every upstream failure is classified here, once (STYLE.md item 8): unreachable
// → 502, silent too long → 504, unknown model → 404, the upstream's own 4xx → that
// status, its 5xx → 502. Messages say what to do next. An abort caused by the
// caller's own signal is returned untouched: the client left, nobody is listening.

import {
  ContextLengthError,
  fixedError,
  NotFoundError,
  ProxyError,
  UpstreamResponseError,
  UpstreamTimeoutError,
  UpstreamUnavailableError,
} from '../shared/errors.ts';

export type UpstreamKind = 'ollama' | 'openai';

export interface UpstreamFailureContext {
  kind: UpstreamKind;
  baseUrl: string;
  /** The model asked for, when the failing call was about one (chat, show). */
  model?: string | undefined;
  /** The caller's signal; when it is aborted the failure is the caller's own doing. */
  signal?: AbortSignal | undefined;
  /** Set when our own first-byte timer fired, to the limit that was exceeded. */
  timedOutAfterMs?: number | undefined;
  /** Set when the upstream fell silent mid-answer for this long (the idle timeout). */
  stalledAfterMs?: number | undefined;
  /** `stream`: the upstream had already answered 200 and failed while streaming. */
  phase?: 'request' | 'stream' | undefined;
}

/**
 * An HTTP error answer from the upstream. Shaped like the `ollama` client's own
 * (unexported) `ResponseError`, so one branch below handles both adapters.
 */
export class UpstreamHttpError extends Error {
  override readonly name = 'ResponseError';
  constructor(
    readonly error: string,
    readonly status_code: number,
  ) {
    super(error);
  }
}

/** The upstream answered, then fell silent past the idle timeout: a 504 that names the stall. */
export class UpstreamStalledError extends fixedError(504, 'timeout_error', 'upstream_stalled') {}

/** A stream that ended without its final message (our own parsers throw this). */
export class StreamEndedEarly extends Error {
  override readonly name = 'StreamEndedEarly';
  constructor() {
    super('The stream ended before its final message.');
  }
}

/** Text the `ollama` client (0.6.x) throws when a stream ends without its `done` line. */
const CLIENT_MISSING_DONE = 'Did not receive done or success response in stream.';

/** Ollama (truncate: false), llama.cpp and vLLM phrasings of a prompt that does not fit. */
const CONTEXT_OVERFLOW =
  /exceeds the context length|context length exceeded|maximum context length|exceeds the available context size/i;

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);

/** Returns what to throw for `error`: a ProxyError, or the original error when the caller aborted. */
export function classifyUpstreamFailure(error: unknown, context: UpstreamFailureContext): unknown {
  if (context.signal?.aborted) return error;
  if (error instanceof ProxyError) return error;
  const name = upstreamName(context);

  if (context.stalledAfterMs !== undefined) {
    const seconds = Math.round(context.stalledAfterMs / 100) / 10;
    return new UpstreamStalledError(
      `${capitalized(name)} at ${context.baseUrl} started answering, then sent nothing for ${seconds}s; the answer was cut off. Try again, or raise --upstream-idle-timeout-ms.`,
      { cause: error, hint: 'The model fell silent mid-answer: try again, or raise --upstream-idle-timeout-ms.' },
    );
  }

  if (context.timedOutAfterMs !== undefined) {
    const seconds = Math.round(context.timedOutAfterMs / 100) / 10;
    return new UpstreamTimeoutError(
      `${capitalized(name)} at ${context.baseUrl} sent nothing for ${seconds}s (the model may still be loading). Try again, or raise the upstream timeout.`,
      { cause: error, hint: 'The model may still be loading: try again, or raise --upstream-timeout-ms.' },
    );
  }

  const status = httpStatusOf(error);
  if (status !== undefined) return classifyHttpAnswer(status, messageOf(error), context, error);

  const code = networkCodeOf(error);
  if (code !== undefined || isFetchFailure(error)) {
    const what = context.phase === 'stream' ? 'The connection to' : 'Cannot reach';
    const detail = code ? ` (${code})` : '';
    return new UpstreamUnavailableError(
      `${what} ${name} at ${context.baseUrl}${context.phase === 'stream' ? ' was lost mid-answer' : ''}${detail}. ${startHint(context.kind)}`,
      { cause: error, hint: startHint(context.kind) },
    );
  }

  const message = messageOf(error);
  if (error instanceof StreamEndedEarly || message === CLIENT_MISSING_DONE) return missingDoneError(context);
  // While streaming, the ollama client turns an `{"error": "..."}` line into a plain Error.
  return new UpstreamResponseError(502, `${capitalized(name)} at ${context.baseUrl} failed: ${message}`, {
    cause: error,
  });
}

/** The model's stream ended without its final line: the answer is incomplete. */
export function missingDoneError(context: UpstreamFailureContext): UpstreamResponseError {
  return new UpstreamResponseError(
    502,
    `The model stopped without finishing: ${upstreamName(context)} at ${context.baseUrl} closed the stream before its final message.`,
  );
}

function classifyHttpAnswer(status: number, message: string, context: UpstreamFailureContext, cause: unknown) {
  const name = upstreamName(context);
  const model = context.model;
  if (model !== undefined && (status === 404 || /model\b.*\bnot found/i.test(message))) {
    const hint =
      context.kind === 'ollama'
        ? `Pull it with \`ollama pull ${model}\`, or pick one of \`ollama list\`.`
        : 'Pick one of the models listed by GET /v1/models.';
    return new NotFoundError(
      `Model "${model}" is not available in ${name} at ${context.baseUrl}. ${hint}`,
      'model_not_found',
      'model',
      { hint: MODEL_HINT[context.kind] },
    );
  }
  if (CONTEXT_OVERFLOW.test(message)) {
    return new ContextLengthError(
      `The prompt is longer than the model's context window (${name} said: ${message}). Shorten the conversation or pick a lighter mode.`,
      { hint: 'The model said the prompt is longer than its window: shorten the conversation or pick a lighter mode.' },
    );
  }
  if (status === 401 || status === 403) {
    // Our credentials, not the client's: passing the status on would blame the client's token.
    return new UpstreamResponseError(
      502,
      `${capitalized(name)} at ${context.baseUrl} refused ctxproxy's credentials (${status}: ${message}). Check the upstream API key in ctxproxy's config.`,
      { cause, hint: "The upstream refused ctxproxy's credentials: check --upstream-api-key." },
    );
  }
  if (status >= 400 && status < 500) {
    return new UpstreamResponseError(status, `${capitalized(name)} rejected the request: ${message}`, { cause });
  }
  return new UpstreamResponseError(502, `${capitalized(name)} at ${context.baseUrl} failed (${status}): ${message}`, {
    cause,
  });
}

/** The log's words for a model the upstream does not have (the message names the model and the suggestions). */
const MODEL_HINT: Record<UpstreamKind, string> = {
  ollama:
    'A client asked for a model Ollama does not have: `ollama list` shows the installed ones, `ollama pull` adds one.',
  openai: 'A client asked for a model the upstream does not have: GET /v1/models lists the ones it has.',
};

function upstreamName(context: UpstreamFailureContext): string {
  return context.kind === 'ollama' ? 'Ollama' : 'the OpenAI-compatible upstream';
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function startHint(kind: UpstreamKind): string {
  return kind === 'ollama'
    ? 'Start Ollama with `ollama serve`, or point --upstream at where it runs.'
    : 'Start the server (llama.cpp server, LM Studio, vLLM …), or point --upstream at where it runs.';
}

function httpStatusOf(error: unknown): number | undefined {
  if (!(error instanceof Error) || error.name !== 'ResponseError') return undefined;
  const status = (error as Error & { status_code?: unknown }).status_code;
  return typeof status === 'number' ? status : undefined;
}

function networkCodeOf(error: unknown): string | undefined {
  // fetch wraps socket errors as `TypeError: fetch failed` with the real error as `cause`.
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 4; depth++) {
    const code = (current as Error & { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return code;
    current = current.cause;
  }
  return undefined;
}

function isFetchFailure(error: unknown): boolean {
  // `fetch failed` before any answer; `terminated` when the socket closed mid-body.
  return error instanceof TypeError && (error.message === 'fetch failed' || error.message === 'terminated');
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
