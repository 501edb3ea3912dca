// Every answer carries the same security headers, each once: JSON, the SSE
// replies Node writes itself (the fast path that bypasses Hono's response),
// the audit and home pages, errors, refusals and CORS preflights. The real
// server on a real socket, read with node:http so repeated headers show.

import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { type RunningProxy, startProxy } from '../support/proxy.ts';

const MODEL = 'llama3.2:3b';
const APP_ORIGIN = 'http://localhost:3000';

/** The headers every answer must carry, with the values that matter spelled out. */
const SECURITY_HEADERS: Record<string, string | RegExp> = {
  'content-security-policy': /^default-src 'none'; script-src 'sha256-[A-Za-z0-9+/=]+';.*frame-ancestors 'none'/,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
};

interface RawAnswer {
  status: number;
  /** Header name (lowercase) → every value sent under it. */
  headers: Map<string, string[]>;
  body: string;
}

function send(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: init.method ?? 'GET', headers: init.headers }, (response) => {
      const headers = new Map<string, string[]>();
      const raw = response.rawHeaders;
      for (let i = 0; i < raw.length; i += 2) {
        const name = (raw[i] as string).toLowerCase();
        headers.set(name, [...(headers.get(name) ?? []), raw[i + 1] as string]);
      }
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers, body }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(init.body);
  });
}

const json = { 'content-type': 'application/json' };
const chat = (stream: boolean) =>
  JSON.stringify({ model: MODEL, stream, messages: [{ role: 'user', content: 'hello there' }] });

let fake: FakeOllama;
let proxy: RunningProxy;
before(async () => {
  fake = await startFakeOllama();
  proxy = await startProxy({ upstreamUrl: fake.url, allowedOrigins: [APP_ORIGIN] });
});
after(async () => {
  await proxy.close();
  await fake.close();
});

describe('the response head', () => {
  it('is the same on every kind of answer, with no header sent twice', async () => {
    const at = (route: string) => `${proxy.url}${route}`;
    const answers: Record<string, [RawAnswer, number]> = {
      'JSON chat': [await send(at('/v1/chat/completions'), { method: 'POST', headers: json, body: chat(false) }), 200],
      'SSE chat (Node fast path)': [
        await send(at('/v1/chat/completions'), { method: 'POST', headers: json, body: chat(true) }),
        200,
      ],
      'SSE Responses (Node fast path)': [
        await send(at('/v1/responses'), {
          method: 'POST',
          headers: json,
          body: JSON.stringify({ model: MODEL, stream: true, input: 'hello there' }),
        }),
        200,
      ],
      'SSE chat from an allowed origin': [
        await send(at('/v1/chat/completions'), {
          method: 'POST',
          headers: { ...json, origin: APP_ORIGIN, 'sec-fetch-site': 'same-site' },
          body: chat(true),
        }),
        200,
      ],
      healthz: [await send(at('/healthz')), 200],
      'audit page (HTML)': [await send(at('/audit')), 200],
      'audit API': [await send(at('/api/audit/snapshots')), 200],
      'home page (HTML)': [await send(at('/'), { headers: { accept: 'text/html' } }), 200],
      'unknown route': [await send(at('/v1/nothing-here')), 404],
      'bad JSON': [await send(at('/v1/chat/completions'), { method: 'POST', headers: json, body: '{"model": ' }), 400],
      'refused: not JSON': [
        await send(at('/v1/chat/completions'), {
          method: 'POST',
          headers: { 'content-type': 'text/plain' },
          body: chat(false),
        }),
        415,
      ],
      'refused: foreign Host': [await send(at('/healthz'), { headers: { host: 'evil.test' } }), 403],
      'refused: cross-site page': [
        await send(at('/api/audit/snapshots'), { headers: { origin: 'http://evil.test' } }),
        403,
      ],
      'CORS preflight': [
        await send(at('/v1/chat/completions'), {
          method: 'OPTIONS',
          headers: { origin: APP_ORIGIN, 'sec-fetch-site': 'same-site', 'access-control-request-method': 'POST' },
        }),
        204,
      ],
    };

    for (const [what, [answer, status]] of Object.entries(answers)) {
      assert.equal(answer.status, status, `${what}: ${answer.body.slice(0, 200)}`);
      for (const [name, values] of answer.headers) {
        if (name !== 'set-cookie') assert.equal(values.length, 1, `${what}: ${name} sent ${values.length} times`);
      }
      const one = (name: string) => answer.headers.get(name)?.[0];
      for (const [name, expected] of Object.entries(SECURITY_HEADERS)) {
        const value = one(name);
        assert.ok(value !== undefined, `${what}: ${name} is missing`);
        if (typeof expected === 'string') assert.equal(value, expected, `${what}: ${name}`);
        else assert.match(value, expected, `${what}: ${name}`);
      }
      assert.equal(one('strict-transport-security'), undefined, `${what}: no HSTS over plain HTTP`);
      assert.ok(one('x-request-id'), `${what}: X-Request-Id`);
      // Private data is never stored by a cache; the stream keeps its documented `no-cache`.
      const stream = one('content-type')?.startsWith('text/event-stream') === true;
      assert.equal(one('cache-control'), stream ? 'no-cache' : 'no-store', `${what}: Cache-Control`);
    }

    // The fast path really was taken, and wrote what middleware set on Hono's response.
    const [sse] = answers['SSE chat (Node fast path)'] as [RawAnswer, number];
    assert.match(sse.headers.get('content-type')?.[0] ?? '', /^text\/event-stream/);
    assert.match(sse.body, /data: \[DONE\]/);
    assert.ok(sse.headers.get('x-ctx-snapshot-id')?.[0]);
    const [cors] = answers['SSE chat from an allowed origin'] as [RawAnswer, number];
    assert.equal(cors.headers.get('access-control-allow-origin')?.[0], APP_ORIGIN);
    assert.match(cors.headers.get('access-control-expose-headers')?.[0] ?? '', /X-Ctx-Snapshot-Id/);
    assert.equal(cors.headers.get('vary')?.[0], 'Origin');
  });
});
