// The log's two forms, chosen by the terminal (injected here; the real one is
// tested through a pseudo-terminal in test/integration/terminalLog.test.ts).

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setImmediate } from 'node:timers';
import { createLogger, resolveLogFormat, turnBatchedWriter } from '../../src/shared/logger.ts';

const at = () => new Date('2026-12-07T01:35:25.000Z');

function capture(options: Parameters<typeof createLogger>[0]) {
  const lines: string[] = [];
  const logger = createLogger({ now: at, ...options, write: (line) => lines.push(line) });
  return { logger, lines };
}

describe('the log form', () => {
  test('text on a terminal, JSON lines elsewhere, and what was asked for either way', () => {
    assert.equal(resolveLogFormat('auto', true), 'text');
    assert.equal(resolveLogFormat('auto', false), 'json');
    assert.equal(resolveLogFormat('json', true), 'json');
    assert.equal(resolveLogFormat('text', false), 'text');
  });

  test('on a terminal: one human line per request, with mode, tokens and time', () => {
    const { logger, lines } = capture({ isTTY: true });
    logger.info('request.done', {
      id: 's_1',
      requestId: 'r1',
      mode: 'git-aware',
      promptTokens: 1234,
      completionTokens: 56,
    });
    logger.info('http.request', {
      requestId: 'r1',
      method: 'POST',
      route: '/v1/chat/completions',
      status: 200,
      ms: 1234,
    });
    assert.deepEqual(lines, ['01:35:25 200 POST /v1/chat/completions  git-aware  1234 in, 56 out tokens  1.2 s\n']);
  });

  test('a request without an audit record (GET /v1/models) still gets its line', () => {
    const { logger, lines } = capture({ isTTY: true });
    logger.info('http.request', { requestId: 'r2', method: 'GET', route: '/v1/models', status: 502, ms: 12 });
    assert.deepEqual(lines, ['01:35:25 502 GET /v1/models  12 ms\n']);
  });

  test("a problem's line keeps the proxy's hint as written, backticks and all", () => {
    const hint = 'Start Ollama with `ollama serve`, or point --upstream at where it runs.';
    for (const isTTY of [true, false]) {
      const { logger, lines } = capture({ isTTY });
      logger.error('http.server_error', { requestId: 'r3', status: 502, errorCode: 'upstream_unavailable', hint });
      assert.equal(lines.length, 1);
      assert.ok(lines[0]?.includes(isTTY ? hint : JSON.stringify(hint)), lines[0]);
      if (isTTY) assert.equal(lines[0], `01:35:25 error upstream_unavailable (502): ${hint}\n`);
    }
  });

  test('JSON lines carry the same events, one object per line', () => {
    const { logger, lines } = capture({ isTTY: false });
    logger.info('http.request', { requestId: 'r1', method: 'POST', route: '/v1/responses', status: 200, ms: 5 });
    const parsed = JSON.parse(lines[0] ?? '');
    assert.equal(parsed.event, 'http.request');
    assert.equal(parsed.route, '/v1/responses');
    assert.equal(parsed.t, '2026-12-07T01:35:25.000Z');
  });

  test('stack traces only with verbose, in either form', () => {
    const fields = { error: 'ProxyError', errorMessage: 'boom', errorStack: 'at a (x.ts:1:1) | at b (y.ts:2:2)' };
    for (const isTTY of [true, false]) {
      const quiet = capture({ isTTY });
      quiet.logger.error('http.unhandled', fields);
      assert.doesNotMatch(quiet.lines.join(''), /x\.ts/);
      assert.match(quiet.lines.join(''), /boom/);
      const verbose = capture({ isTTY, verbose: true });
      verbose.logger.error('http.unhandled', fields);
      assert.match(verbose.lines.join(''), /x\.ts:1:1/);
    }
  });

  test('other events as key=value; escape sequences from a field are shown, never obeyed', () => {
    const { logger, lines } = capture({ isTTY: true });
    logger.warn('context.key_clash', { key: 'files.\u001b[2Jevil\u009b31m', kept: 3 });
    assert.equal(lines.length, 1);
    assert.doesNotMatch(lines[0] ?? '', /[\u001b\u009b]/);
    assert.match(
      lines[0] ?? '',
      /^01:35:25 warn {2}context\.key_clash key="files\.\\u001b\[2Jevil\\u009b31m" kept=3\n$/,
    );
  });
});

describe('standard error, written once per turn', () => {
  test("a turn's lines leave together, in order, after the turn's own work; flush writes what is queued", async () => {
    const writes: string[] = [];
    const writer = turnBatchedWriter((text) => writes.push(text));
    writer.write('http.request\n');
    writer.write('request.done\n');
    assert.deepEqual(writes, [], 'nothing is written while the turn (the answer) is still running');
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(writes, ['http.request\nrequest.done\n']);
    writer.write('server.stopped\n');
    writer.flush();
    assert.deepEqual(writes, ['http.request\nrequest.done\n', 'server.stopped\n']);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(writes.length, 2, 'a flushed line is not written twice');
  });
});
