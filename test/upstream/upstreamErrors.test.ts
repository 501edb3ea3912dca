import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  AuthError,
  BadRequestError,
  ContextLengthError,
  NotFoundError,
  UpstreamResponseError,
  UpstreamTimeoutError,
  UpstreamUnavailableError,
} from '../../src/shared/errors.ts';
import { classifyUpstreamFailure, StreamEndedEarly, UpstreamHttpError } from '../../src/upstream/upstreamErrors.ts';

const ollama = { kind: 'ollama' as const, baseUrl: 'http://127.0.0.1:11434' };

/** What fetch throws when the socket cannot connect: a TypeError whose cause carries the code. */
function fetchFailed(code: string): TypeError {
  return new TypeError('fetch failed', { cause: Object.assign(new Error(`connect ${code}`), { code }) });
}

describe('classifyUpstreamFailure', () => {
  test("an abort by the caller's own signal is returned untouched", () => {
    const controller = new AbortController();
    controller.abort();
    const abort = new DOMException('This operation was aborted', 'AbortError');
    assert.equal(classifyUpstreamFailure(abort, { ...ollama, signal: controller.signal }), abort);
    // Even a timeout flag does not turn the client's own leaving into a 504.
    assert.equal(classifyUpstreamFailure(abort, { ...ollama, signal: controller.signal, timedOutAfterMs: 10 }), abort);
  });

  test('our own timer firing is a 504, even though the error is an AbortError', () => {
    const abort = new DOMException('This operation was aborted', 'AbortError');
    const error = classifyUpstreamFailure(abort, {
      ...ollama,
      signal: new AbortController().signal,
      timedOutAfterMs: 300_000,
    });
    assert.ok(error instanceof UpstreamTimeoutError);
    assert.equal(error.status, 504);
    assert.match(error.message, /300s/);
  });

  test('refused, DNS and reset connections are 502s naming the URL and `ollama serve`', () => {
    for (const code of ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNRESET']) {
      const error = classifyUpstreamFailure(fetchFailed(code), ollama);
      assert.ok(error instanceof UpstreamUnavailableError, code);
      assert.equal(error.status, 502);
      assert.ok(error.message.includes('http://127.0.0.1:11434'));
      assert.match(error.message, /ollama serve/);
      assert.ok(error.message.includes(code));
    }
  });

  test('a socket lost mid-answer says so', () => {
    const error = classifyUpstreamFailure(new TypeError('terminated'), { ...ollama, phase: 'stream' });
    assert.ok(error instanceof UpstreamUnavailableError);
    assert.match(error.message, /lost mid-answer/);
  });

  test('HTTP answers: 404 with a model → NotFoundError; "model … not found" in any status too', () => {
    const notFound = classifyUpstreamFailure(new UpstreamHttpError('model "x" not found', 404), {
      ...ollama,
      model: 'x',
    });
    assert.ok(notFound instanceof NotFoundError);
    assert.match(notFound.message, /`ollama pull x`/);
    const viaMessage = classifyUpstreamFailure(new UpstreamHttpError("model 'x' not found", 400), {
      ...ollama,
      model: 'x',
    });
    assert.ok(viaMessage instanceof NotFoundError);
  });

  test('other 4xx keep status and message; 401/403 (our credentials) and 5xx become 502', () => {
    const tooMany = classifyUpstreamFailure(new UpstreamHttpError('slow down', 429), { ...ollama, model: 'x' });
    assert.ok(tooMany instanceof UpstreamResponseError);
    assert.equal(tooMany.status, 429);
    assert.match(tooMany.message, /slow down/);
    const unauthorized = classifyUpstreamFailure(new UpstreamHttpError('bad key', 401), { ...ollama, kind: 'openai' });
    assert.ok(unauthorized instanceof UpstreamResponseError);
    assert.equal(unauthorized.status, 502);
    assert.match(unauthorized.message, /API key/);
    const crashed = classifyUpstreamFailure(new UpstreamHttpError('CUDA out of memory', 500), ollama);
    assert.ok(crashed instanceof UpstreamResponseError);
    assert.equal(crashed.status, 502);
    assert.match(crashed.message, /CUDA out of memory/);
  });

  test('a stream that ended early is a 502 "stopped without finishing"; ProxyErrors pass through', () => {
    const cut = classifyUpstreamFailure(new StreamEndedEarly(), ollama);
    assert.ok(cut instanceof UpstreamResponseError);
    assert.match(cut.message, /stopped without finishing/);
    const bad = new BadRequestError('no');
    assert.equal(classifyUpstreamFailure(bad, ollama), bad);
  });
});

describe('errors that know their response', () => {
  test('each error keeps its own class, name and OpenAI body, and carries its cause', () => {
    const cause = new Error('socket closed');
    const down = new UpstreamUnavailableError('start Ollama', { cause });
    assert.ok(down instanceof UpstreamUnavailableError);
    assert.ok(!(down instanceof UpstreamTimeoutError));
    assert.equal(down.name, 'UpstreamUnavailableError');
    assert.equal(down.cause, cause);
    assert.deepEqual(
      [down.status, down.toBody()],
      [502, { error: { message: 'start Ollama', type: 'upstream_error', param: null, code: 'upstream_unavailable' } }],
    );
    const auth = new AuthError('send a token');
    assert.equal(auth.name, 'AuthError');
    assert.deepEqual([auth.status, auth.type, auth.code], [401, 'authentication_error', 'invalid_api_key']);
    const long = new ContextLengthError('too long');
    assert.deepEqual(
      [long.name, long.status, long.code, long.param],
      ['ContextLengthError', 400, 'context_length_exceeded', 'messages'],
    );
    assert.equal(new BadRequestError('no').name, 'BadRequestError');
  });
});
