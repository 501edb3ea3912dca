// Anthropic's error body for the /v1/messages routes: the type follows from the
// status for every class of failure, and an overflow reads as Anthropic words it.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { anthropicErrorBody, anthropicErrorType, speaksAnthropic } from '../../src/http/anthropicErrors.ts';
import {
  AuditUnavailableError,
  AuthError,
  BadRequestError,
  ContextLengthError,
  ForbiddenError,
  NotFoundError,
  PayloadTooLargeError,
  type ProxyError,
  toProxyError,
  UnsupportedMediaTypeError,
  UpstreamResponseError,
  UpstreamTimeoutError,
  UpstreamUnavailableError,
} from '../../src/shared/errors.ts';

describe('anthropicErrorBody', () => {
  test('each error class gets the Anthropic type of its status', () => {
    const cases: [ProxyError, string][] = [
      [new BadRequestError('bad'), 'invalid_request_error'],
      [new UnsupportedMediaTypeError('json please'), 'invalid_request_error'],
      [new AuthError('no token'), 'authentication_error'],
      [new ForbiddenError('no', 'host_not_allowed'), 'permission_error'],
      [new NotFoundError('no model'), 'not_found_error'],
      [new PayloadTooLargeError(10), 'request_too_large'],
      [new UpstreamResponseError(429, 'slow down'), 'rate_limit_error'],
      [new UpstreamResponseError(422, 'odd'), 'invalid_request_error'],
      [toProxyError(new Error('boom')), 'api_error'],
      [new UpstreamUnavailableError('down'), 'api_error'],
      [new UpstreamTimeoutError('slow'), 'timeout_error'],
      [new AuditUnavailableError('disk full'), 'overloaded_error'],
    ];
    for (const [error, type] of cases) {
      const body = anthropicErrorBody(error);
      assert.equal(body.type, 'error');
      assert.equal(body.error.type, type, error.name);
      assert.equal(body.error.message, error.message);
    }
    for (let status = 400; status < 600; status++) {
      assert.ok(anthropicErrorType(status).length > 0);
      assert.equal(anthropicErrorType(status).endsWith('_error') || status === 413, true, String(status));
    }
  });

  test('a prompt over the window reads "prompt is too long", as Anthropic says it', () => {
    const body = anthropicErrorBody(new ContextLengthError('needs ~9000 tokens but the window allows 4000'));
    assert.equal(body.error.type, 'invalid_request_error');
    assert.match(body.error.message, /^prompt is too long: needs ~9000 tokens/);
  });

  test('only the /v1/messages paths speak Anthropic', () => {
    assert.ok(speaksAnthropic('/v1/messages'));
    assert.ok(speaksAnthropic('/v1/messages/count_tokens'));
    assert.ok(!speaksAnthropic('/v1/chat/completions'));
    assert.ok(!speaksAnthropic('/v1/messagesx'));
  });
});
