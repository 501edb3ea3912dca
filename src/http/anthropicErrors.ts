// Anthropic's error body, for the /v1/messages routes: what Claude Code and
// @anthropic-ai/sdk read (`{"type":"error","error":{"type","message"}}`). The
// one error handler in app.ts writes it for these paths instead of OpenAI's;
// the status is the ProxyError's own, and the type follows from it as in
// Anthropic's API (and Ollama's layer), so clients retry what is worth retrying.

import type { ProxyError } from '../shared/errors.ts';

/** The paths whose errors are written in Anthropic's shape. */
export function speaksAnthropic(path: string): boolean {
  return path === '/v1/messages' || path.startsWith('/v1/messages/');
}

export type AnthropicErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'request_too_large'
  | 'rate_limit_error'
  | 'api_error'
  | 'timeout_error'
  | 'overloaded_error';

export function anthropicErrorType(status: number): AnthropicErrorType {
  switch (status) {
    case 401:
      return 'authentication_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit_error';
    case 503:
    case 529:
      return 'overloaded_error';
    case 504:
      return 'timeout_error';
    default:
      return status >= 400 && status < 500 ? 'invalid_request_error' : 'api_error';
  }
}

export function anthropicErrorBody(error: ProxyError): {
  type: 'error';
  error: { type: AnthropicErrorType; message: string };
} {
  // Anthropic words an overflow "prompt is too long: …", and Claude Code compacts the conversation on it.
  const message = error.code === 'context_length_exceeded' ? `prompt is too long: ${error.message}` : error.message;
  return { type: 'error', error: { type: anthropicErrorType(error.status), message } };
}
