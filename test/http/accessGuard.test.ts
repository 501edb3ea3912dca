// The access guard through the whole app (app.request), with the real pipeline,
// a real SQLite audit log and the fake Ollama: who may talk to ctxproxy, what a
// refusal looks like, and that a refusal leaves no trace of the caller's text.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type AppDeps, createApp } from '../../src/http/app.ts';
import { auditRoutes } from '../../src/http/auditRoutes.ts';
import { readJsonBody } from '../../src/http/readJsonBody.ts';
import type { LogFields, Logger } from '../../src/shared/ports.ts';
import { type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { type RunningProxy, startProxy } from '../support/proxy.ts';

const MODEL = 'llama3.2:3b';
const HOST = '127.0.0.1:4141';
const ATTACKER_TEXT = 'ATTACKER-CONTROLLED-7f3a';

let fake: FakeOllama;
let proxy: RunningProxy;

before(async () => {
  fake = await startFakeOllama();
  proxy = await startProxy({ upstreamUrl: fake.url });
});
after(async () => {
  await proxy.close();
  await fake.close();
});

type LogLine = { level: string; event: string; fields: LogFields };

function harness(options: Partial<AppDeps> = {}) {
  const logs: LogLine[] = [];
  const logger: Logger = {
    info: (event, fields = {}) => logs.push({ level: 'info', event, fields }),
    warn: (event, fields = {}) => logs.push({ level: 'warn', event, fields }),
    error: (event, fields = {}) => logs.push({ level: 'error', event, fields }),
  };
  const app = createApp({
    pipeline: proxy.deps,
    maxBodyBytes: 1024 * 1024,
    logger,
    remoteAddress: () => '127.0.0.1',
    audit: auditRoutes({ store: proxy.store, authToken: options.authToken }),
    ...options,
  });
  const request = (route: string, init: RequestInit & { headers?: Record<string, string> } = {}) =>
    app.request(route, { ...init, headers: { host: HOST, ...init.headers } });
  return { app, logs, request };
}

const chatBody = (text = 'hello') => JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: text }] });
const JSON_HEADERS = { 'content-type': 'application/json' };

async function errorOf(response: Response): Promise<{ message: string; type: string; code: string | null }> {
  return ((await response.json()) as { error: { message: string; type: string; code: string | null } }).error;
}

async function snapshotCount(): Promise<number> {
  await proxy.store.flush();
  return proxy.store.stats().snapshots;
}

describe('Host allow-list (DNS rebinding)', () => {
  const ROUTES: [string, RequestInit][] = [
    ['/healthz', {}],
    ['/v1/models', {}],
    ['/v1/chat/completions', { method: 'POST', headers: JSON_HEADERS, body: chatBody() }],
    ['/audit', {}],
    ['/api/audit/snapshots', {}],
    // A route nobody has written yet is behind the guard too: it runs before routing.
    ['/v1/route-added-later', {}],
  ];

  it('refuses a foreign Host on every route with a 403 that names the setting', async () => {
    const { request } = harness();
    const chatsBefore = fake.chats.length;
    for (const [route, init] of ROUTES) {
      const response = await request(route, {
        ...init,
        headers: { ...(init.headers as Record<string, string>), host: 'evil.test:4141' },
      });
      assert.equal(response.status, 403, route);
      const error = await errorOf(response);
      assert.equal(error.code, 'host_not_allowed', route);
      assert.match(error.message, /--allowed-hosts/);
      assert.match(error.message, /CTXPROXY_ALLOWED_HOSTS/);
    }
    assert.equal(fake.chats.length, chatsBefore, 'nothing reached the model');
  });

  it('serves the loopback names on any port, the --host value and --allowed-hosts names', async () => {
    const { request } = harness({ host: 'devbox.lan', allowedHosts: ['ctx.internal'] });
    for (const host of [
      '127.0.0.1:4141',
      'localhost:4141',
      '[::1]:4141',
      'LOCALHOST:9000',
      'localhost',
      'devbox.lan:4141',
      'ctx.internal:8080',
    ]) {
      assert.equal((await request('/healthz', { headers: { host } })).status, 200, host);
    }
    for (const host of ['evil.test', 'localhost.evil.test:4141', '127.0.0.1.evil.test', 'devbox.lan.evil.test']) {
      assert.equal((await request('/healthz', { headers: { host } })).status, 403, host);
    }
  });
});

describe('cross-site browser requests', () => {
  it('refuses a cross-site Origin, Sec-Fetch-Site cross-site or same-site, and Origin null', async () => {
    const { request } = harness();
    const chatsBefore = fake.chats.length;
    const cases: Record<string, string>[] = [
      { origin: 'http://evil.test' },
      { origin: 'http://localhost:3000' },
      { origin: 'http://127.0.0.1:4142' },
      { origin: 'null' },
      // A sandboxed frame on another site.
      { origin: 'null', 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
    ];
    for (const headers of cases) {
      const read = await request('/api/audit/snapshots', { headers });
      assert.equal(read.status, 403, JSON.stringify(headers));
      const error = await errorOf(read);
      assert.equal(error.code, 'origin_not_allowed');
      assert.match(error.message, /--allowed-origins/);
      assert.match(error.message, /CTXPROXY_ALLOWED_ORIGINS/);
      const chat = await request('/v1/chat/completions', {
        method: 'POST',
        headers: { ...JSON_HEADERS, ...headers },
        body: chatBody(),
      });
      assert.equal(chat.status, 403, JSON.stringify(headers));
    }
    assert.equal(fake.chats.length, chatsBefore);
  });

  it("serves the page's own origin, the user's own navigation, and clients that send neither header", async () => {
    const { request } = harness();
    for (const headers of [
      { origin: `http://${HOST}` },
      { 'sec-fetch-site': 'same-origin' },
      { 'sec-fetch-site': 'none' },
      {},
    ]) {
      assert.equal((await request('/api/audit/snapshots', { headers })).status, 200, JSON.stringify(headers));
    }
    const chat = await request('/v1/chat/completions', {
      method: 'POST',
      headers: { ...JSON_HEADERS, origin: `http://${HOST}`, 'sec-fetch-site': 'same-origin' },
      body: chatBody(),
    });
    assert.equal(chat.status, 200);
  });

  it('lets a link from another site open an audit page, but not a frame or a script', async () => {
    const { request } = harness();
    const link = { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' };
    assert.equal((await request('/audit', { headers: link })).status, 200);
    const frame = { ...link, 'sec-fetch-dest': 'iframe' };
    assert.equal((await request('/audit', { headers: frame })).status, 403);
    const formPost = { ...link, origin: 'http://evil.test', 'content-type': 'text/plain' };
    assert.equal((await request('/v1/chat/completions', { method: 'POST', headers: formPost })).status, 403);
  });

  it('answers CORS for an origin in --allowed-origins, and for that origin only', async () => {
    const { request } = harness({ allowedOrigins: ['http://localhost:3000'] });
    const preflight = await request('/v1/chat/completions', {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:3000',
        'sec-fetch-site': 'same-site',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, authorization, x-stainless-os',
      },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), 'http://localhost:3000');
    assert.match(preflight.headers.get('access-control-allow-methods') ?? '', /POST/);
    assert.equal(preflight.headers.get('access-control-allow-headers'), 'content-type, authorization, x-stainless-os');

    const chat = await request('/v1/chat/completions', {
      method: 'POST',
      headers: { ...JSON_HEADERS, origin: 'http://localhost:3000', 'sec-fetch-site': 'same-site' },
      body: chatBody(),
    });
    assert.equal(chat.status, 200);
    assert.equal(chat.headers.get('access-control-allow-origin'), 'http://localhost:3000');
    assert.match(chat.headers.get('access-control-expose-headers') ?? '', /X-Ctx-Snapshot-Id/);

    const other = await request('/v1/chat/completions', {
      method: 'OPTIONS',
      headers: { origin: 'http://evil.test', 'access-control-request-method': 'POST' },
    });
    assert.equal(other.status, 403);
    assert.equal(other.headers.get('access-control-allow-origin'), null);
    const sameOrigin = await request('/healthz');
    assert.equal(sameOrigin.headers.get('access-control-allow-origin'), null);
  });
});

describe('CORS on a real socket', () => {
  it('a streamed chat to an allowed origin carries Access-Control-Allow-Origin (Node writes that head itself)', async () => {
    const open = await startProxy({ upstreamUrl: fake.url, allowedOrigins: ['http://localhost:3000'] });
    try {
      const response = await fetch(`${open.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { ...JSON_HEADERS, origin: 'http://localhost:3000', 'sec-fetch-site': 'same-site' },
        body: JSON.stringify({ model: MODEL, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
      });
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
      assert.equal(response.headers.get('access-control-allow-origin'), 'http://localhost:3000');
      assert.match(await response.text(), /\[DONE\]/);
    } finally {
      await open.close();
    }
  });
});

describe('request bodies must be JSON', () => {
  it('answers 415 to a POST without Content-Type or with a type a page may send anywhere', async () => {
    const { request } = harness();
    const chatsBefore = fake.chats.length;
    for (const type of [undefined, 'text/plain', 'text/plain;charset=UTF-8', 'application/x-www-form-urlencoded']) {
      const headers: Record<string, string> = type ? { 'content-type': type } : {};
      const response = await request('/v1/chat/completions', { method: 'POST', headers, body: chatBody() });
      assert.equal(response.status, 415, String(type));
      const error = await errorOf(response);
      assert.equal(error.code, 'unsupported_media_type');
      assert.equal(error.type, 'invalid_request_error');
    }
    assert.equal(fake.chats.length, chatsBefore);
    const ok = await request('/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: chatBody(),
    });
    assert.equal(ok.status, 200);
  });

  it('the JSON reader itself refuses a body without a Content-Type (for routes mounted elsewhere)', async () => {
    const bare = new Request('http://127.0.0.1/x', { method: 'POST', body: new Blob([chatBody()]) });
    await assert.rejects(readJsonBody(bare, 1024 * 1024), (error: Error & { status?: number }) => {
      assert.equal(error.status, 415);
      return true;
    });
  });

  it('takes the audit sign-in form from the audit page itself only', async () => {
    const { request } = harness({ authToken: 'correct horse battery' });
    const form = (headers: Record<string, string>) =>
      request('/audit/login', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams({ token: 'correct horse battery', next: '/audit' }).toString(),
      });
    const own = await form({ origin: `http://${HOST}`, 'sec-fetch-site': 'same-origin' });
    assert.equal(own.status, 303);
    assert.match(own.headers.get('set-cookie') ?? '', /^ctxproxy_audit=/);
    // The audit pages send no referrer, so Chrome sends `Origin: null` with their form; Sec-Fetch-Site decides.
    assert.equal((await form({ origin: 'null', 'sec-fetch-site': 'same-origin' })).status, 303);
    // No proof of origin (a script's form, an old client): not a form we take.
    assert.equal((await form({})).status, 415);
    assert.equal((await form({ origin: 'http://evil.test', 'sec-fetch-site': 'cross-site' })).status, 403);
    // The exception is for the audit forms, never the API.
    const chat = await request('/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: `http://${HOST}` },
      body: 'a=1',
    });
    assert.equal(chat.status, 415);
  });
});

describe('refusals', () => {
  it('are counted in /healthz, logged with sizes only, and leave nothing in the audit log', async () => {
    const { request, logs } = harness();
    const before = await snapshotCount();
    const hostile = { 'user-agent': `${ATTACKER_TEXT} ${'x'.repeat(14_000)}` };
    await request('/v1/chat/completions', {
      method: 'POST',
      headers: { ...hostile, host: `${ATTACKER_TEXT}.test` },
      body: chatBody(ATTACKER_TEXT),
    });
    await request('/v1/chat/completions', {
      method: 'POST',
      headers: { ...hostile, ...JSON_HEADERS, origin: `http://${ATTACKER_TEXT}.test` },
      body: chatBody(ATTACKER_TEXT),
    });
    await request('/v1/chat/completions', {
      method: 'POST',
      headers: { ...hostile, 'content-type': 'text/plain' },
      body: chatBody(ATTACKER_TEXT),
    });
    assert.equal(await snapshotCount(), before, 'no audit row for a refused request');

    const health = (await (await request('/healthz')).json()) as { refused: Record<string, number> };
    assert.deepEqual(health.refused, { total: 3, 'remote-address': 0, host: 1, origin: 1, 'content-type': 1 });

    const refused = logs.filter((line) => line.event === 'http.refused');
    assert.deepEqual(
      refused.map((line) => line.fields.reason),
      ['host', 'origin', 'content-type'],
    );
    for (const line of refused) {
      assert.equal(line.fields.route, '/v1/chat/completions');
      assert.equal(typeof line.fields.bodyBytes, 'number');
    }
    assert.ok(!JSON.stringify(logs).includes(ATTACKER_TEXT), 'no header value or body text in the log');
  });

  it('a malformed request from a local client is still audited, its User-Agent capped at 512 bytes', async () => {
    const { request } = harness();
    const response = await request('/v1/chat/completions', {
      method: 'POST',
      headers: { ...JSON_HEADERS, 'user-agent': `curl/8 ${'é'.repeat(7000)}` },
      body: '{"model": ',
    });
    assert.equal(response.status, 400);
    const id = response.headers.get('x-ctx-snapshot-id');
    assert.ok(id, 'audited');
    await proxy.store.flush();
    const stored = proxy.store.get(id)?.userAgent ?? '';
    assert.ok(stored.startsWith('curl/8 '));
    assert.ok(new TextEncoder().encode(stored).length <= 512, `${stored.length} chars stored`);
  });

  it('turns away a client on another machine when no token is set, and does not audit it', async () => {
    const { request } = harness({ remoteAddress: () => '192.168.7.20' });
    const before = await snapshotCount();
    const response = await request('/v1/chat/completions', {
      method: 'POST',
      headers: { ...JSON_HEADERS, 'user-agent': ATTACKER_TEXT },
      body: chatBody(),
    });
    assert.equal(response.status, 403);
    assert.equal((await errorOf(response)).code, 'remote_client_not_allowed');
    assert.equal(await snapshotCount(), before);
  });
});

describe('/healthz with an auth token', () => {
  it('tells a caller without the token only that ctxproxy is up', async () => {
    const { request } = harness({ authToken: 'sekrit-token-123' });
    const anonymous = await request('/healthz');
    assert.equal(anonymous.status, 200);
    assert.deepEqual(await anonymous.json(), { status: 'ok' });
    const wrong = await request('/healthz', { headers: { authorization: 'Bearer nope' } });
    assert.deepEqual(await wrong.json(), { status: 'ok' });
    const right = (await (
      await request('/healthz', { headers: { authorization: 'Bearer sekrit-token-123' } })
    ).json()) as { upstream: { url: string }; refused: { total: number } };
    assert.equal(right.upstream.url, fake.url);
    assert.equal(typeof right.refused.total, 'number');
  });
});
