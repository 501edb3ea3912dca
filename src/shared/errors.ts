// Errors that know their HTTP response. One handler (http/) turns any of them
// into OpenAI's error body; nothing else builds error JSON.

export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'not_found_error'
  | 'upstream_error'
  | 'timeout_error'
  | 'rate_limit_error'
  | 'server_error';

/** What an error may carry besides its message: its cause, and the proxy's own advice. */
export interface ProxyErrorOptions {
  cause?: unknown;
  /**
   * What to do, in ctxproxy's own words only (never text from the request or the upstream): the
   * log prints it as it is, where the message, which may quote either, is left out or scrubbed.
   */
  hint?: string | undefined;
}

export class ProxyError extends Error {
  /** The class's own name (`AuthError`), for the log: subclasses need not repeat it. */
  override readonly name: string;
  readonly hint: string | undefined;
  constructor(
    readonly status: number,
    message: string,
    readonly type: ErrorType,
    readonly code: string | null = null,
    readonly param: string | null = null,
    options?: ProxyErrorOptions,
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.hint = options?.hint;
  }

  toBody(): { error: { message: string; type: string; param: string | null; code: string | null } } {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

/**
 * The base of an error whose response is fixed by what it is (status, OpenAI
 * `type`, `code`, `param`): only the message and its cause vary. Each such
 * error is then one line that says what it answers, like openai-node's
 * `class BadRequestError extends APIError<400> {}`.
 */
export function fixedError(status: number, type: ErrorType, code: string, param: string | null = null) {
  return class extends ProxyError {
    constructor(message: string, options?: ProxyErrorOptions) {
      super(status, message, type, code, param, options);
    }
  };
}

export class AuthError extends fixedError(401, 'authentication_error', 'invalid_api_key') {}
/** Too many wrong auth tokens from one address (http/authThrottle.ts). */
export class TooManyAuthFailuresError extends fixedError(429, 'rate_limit_error', 'too_many_auth_failures') {}
export class UnsupportedMediaTypeError extends fixedError(415, 'invalid_request_error', 'unsupported_media_type') {}
export class ContextLengthError extends fixedError(
  400,
  'invalid_request_error',
  'context_length_exceeded',
  'messages',
) {}
export class UpstreamUnavailableError extends fixedError(502, 'upstream_error', 'upstream_unavailable') {}
export class UpstreamTimeoutError extends fixedError(504, 'timeout_error', 'upstream_timeout') {}

export class BadRequestError extends ProxyError {
  constructor(message: string, code: string | null = null, param: string | null = null) {
    super(400, message, 'invalid_request_error', code, param);
  }
}

export class NotFoundError extends ProxyError {
  constructor(
    message: string,
    code: string | null = 'model_not_found',
    param: string | null = 'model',
    options?: ProxyErrorOptions,
  ) {
    super(404, message, 'invalid_request_error', code, param, options);
  }
}

/** Refused before any route ran: a `Host` or cross-site `Origin` ctxproxy does not serve. */
export class ForbiddenError extends ProxyError {
  constructor(message: string, code: string) {
    super(403, message, 'invalid_request_error', code);
  }
}

export class PayloadTooLargeError extends ProxyError {
  constructor(limitBytes: number) {
    super(
      413,
      `Request body is larger than the limit of ${limitBytes} bytes.`,
      'invalid_request_error',
      'request_too_large',
    );
  }
}

/** The upstream answered with an error of its own (a 4xx we pass on, or a 5xx). */
export class UpstreamResponseError extends ProxyError {
  constructor(status: number, message: string, options?: ProxyErrorOptions) {
    super(
      status,
      message,
      status >= 500 ? 'upstream_error' : 'invalid_request_error',
      status >= 500 ? 'upstream_error' : null,
      null,
      options,
    );
  }
}

/** Whatever was thrown, as a ProxyError (unknown failures become a 500 without internals). */
export function toProxyError(error: unknown): ProxyError {
  if (error instanceof ProxyError) return error;
  if (error instanceof RecordedFailure) return error.failure;
  return new ProxyError(500, 'Internal error in ctxproxy; see its log.', 'server_error', 'internal_error', null, {
    cause: error,
  });
}

/**
 * A failure whose request is recorded: the error and the audit snapshot that holds it, as a value
 * (the error itself is not changed). The HTTP layer answers with the error and names the snapshot.
 */
export class RecordedFailure extends Error {
  override readonly name = 'RecordedFailure';
  constructor(
    readonly failure: ProxyError,
    readonly snapshotId: string,
  ) {
    super(failure.message, { cause: failure });
  }
}

/** --require-audit is on and the audit log cannot be written: nothing is sent to the model. */
export class AuditUnavailableError extends ProxyError {
  constructor(reason: string) {
    super(
      503,
      `The audit log cannot be written (${reason}), and --require-audit (CTXPROXY_REQUIRE_AUDIT, config key requireAudit) is on: ctxproxy refuses chats it cannot record. Check /healthz; the request was not sent to the model.`,
      'server_error',
      'audit_unavailable',
    );
  }
}
