// Errors that know their HTTP response. One handler (http/) turns any of them
// into OpenAI's error body; nothing else builds error JSON.

export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'not_found_error'
  | 'upstream_error'
  | 'timeout_error'
  | 'server_error';

export class ProxyError extends Error {
  override readonly name: string = 'ProxyError';
  /** Set by the pipeline once the failed request's audit snapshot is queued. */
  snapshotId: string | undefined;
  constructor(
    readonly status: number,
    message: string,
    readonly type: ErrorType,
    readonly code: string | null = null,
    readonly param: string | null = null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  toBody(): { error: { message: string; type: string; param: string | null; code: string | null } } {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

export class BadRequestError extends ProxyError {
  override readonly name = 'BadRequestError';
  constructor(message: string, code: string | null = null, param: string | null = null) {
    super(400, message, 'invalid_request_error', code, param);
  }
}

export class AuthError extends ProxyError {
  override readonly name = 'AuthError';
  constructor(message: string) {
    super(401, message, 'authentication_error', 'invalid_api_key');
  }
}

export class NotFoundError extends ProxyError {
  override readonly name = 'NotFoundError';
  constructor(message: string, code: string | null = 'model_not_found', param: string | null = 'model') {
    super(404, message, 'invalid_request_error', code, param);
  }
}

/** Refused before any route ran: a `Host` or cross-site `Origin` ctxproxy does not serve. */
export class ForbiddenError extends ProxyError {
  override readonly name = 'ForbiddenError';
  constructor(message: string, code: string) {
    super(403, message, 'invalid_request_error', code);
  }
}

export class UnsupportedMediaTypeError extends ProxyError {
  override readonly name = 'UnsupportedMediaTypeError';
  constructor(message: string) {
    super(415, message, 'invalid_request_error', 'unsupported_media_type');
  }
}

export class PayloadTooLargeError extends ProxyError {
  override readonly name = 'PayloadTooLargeError';
  constructor(limitBytes: number) {
    super(
      413,
      `Request body is larger than the limit of ${limitBytes} bytes.`,
      'invalid_request_error',
      'request_too_large',
    );
  }
}

export class UpstreamUnavailableError extends ProxyError {
  override readonly name = 'UpstreamUnavailableError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(502, message, 'upstream_error', 'upstream_unavailable', null, options);
  }
}

export class UpstreamTimeoutError extends ProxyError {
  override readonly name = 'UpstreamTimeoutError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(504, message, 'timeout_error', 'upstream_timeout', null, options);
  }
}

/** The upstream answered with an error of its own (a 4xx we pass on, or a 5xx). */
export class UpstreamResponseError extends ProxyError {
  override readonly name = 'UpstreamResponseError';
  constructor(status: number, message: string, options?: { cause?: unknown }) {
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

export class ContextLengthError extends ProxyError {
  override readonly name = 'ContextLengthError';
  constructor(message: string) {
    super(400, message, 'invalid_request_error', 'context_length_exceeded', 'messages');
  }
}

/** Whatever was thrown, as a ProxyError (unknown failures become a 500 without internals). */
export function toProxyError(error: unknown): ProxyError {
  if (error instanceof ProxyError) return error;
  return new ProxyError(500, 'Internal error in ctxproxy; see its log.', 'server_error', 'internal_error', null, {
    cause: error,
  });
}

/** --require-audit is on and the audit log cannot be written: nothing is sent to the model. */
export class AuditUnavailableError extends ProxyError {
  override readonly name = 'AuditUnavailableError';
  constructor(reason: string) {
    super(
      503,
      `The audit log cannot be written (${reason}), and --require-audit (CTXPROXY_REQUIRE_AUDIT, config key requireAudit) is on: ctxproxy refuses chats it cannot record. Check /healthz; the request was not sent to the model.`,
      'server_error',
      'audit_unavailable',
    );
  }
}
