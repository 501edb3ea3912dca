// The access guard, first part: who may talk to ctxproxy. The Host allow-list
// (DNS rebinding), cross-site Origin / Sec-Fetch-Site, and CORS for the origins
// in --allowed-origins. Through the whole app, for every route.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startProxy } from '../support/proxy.ts';
import { chatBody, errorOf, type GuardHarness, HOST, JSON_HEADERS, MODEL, startGuardHarness } from './guardHarness.ts';

let h: GuardHarness;
before(async () => {
  h = await startGuardHarness();
});
after(() => h.close());

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
    const { request } = h.app();
    const chatsBefore = h.fake.chats.length;
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
    assert.equal(h.fake.chats.length, chatsBefore, 'nothing reached the model');
  });

  it('serves the loopback names on any port, the --host value and --allowed-hosts names', async () => {
    const { request } = h.app({ host: 'devbox.lan', allowedHosts: ['ctx.internal'] });
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
    const { request } = h.app();
    const chatsBefore = h.fake.chats.length;
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
    assert.equal(h.fake.chats.length, chatsBefore);
  });

  it("serves the page's own origin, the user's own navigation, and clients that send neither header", async () => {
    const { request } = h.app();
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
    const { request } = h.app();
    const link = { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' };
    assert.equal((await request('/audit', { headers: link })).status, 200);
    const frame = { ...link, 'sec-fetch-dest': 'iframe' };
    assert.equal((await request('/audit', { headers: frame })).status, 403);
    const formPost = { ...link, origin: 'http://evil.test', 'content-type': 'text/plain' };
    assert.equal((await request('/v1/chat/completions', { method: 'POST', headers: formPost })).status, 403);
  });

  it('answers CORS for an origin in --allowed-origins, and for that origin only', async () => {
    const { request } = h.app({ allowedOrigins: ['http://localhost:3000'] });
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
    const allowHeaders = (preflight.headers.get('access-control-allow-headers') ?? '').split(',').map((h) => h.trim());
    assert.deepEqual(allowHeaders, ['content-type', 'authorization', 'x-stainless-os']);

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
    const open = await startProxy({ upstreamUrl: h.fake.url, allowedOrigins: ['http://localhost:3000'] });
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
