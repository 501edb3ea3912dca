// The access guard, second part: bodies must be JSON (415), and what a refusal
// leaves behind: a count, a log line with sizes, and nothing in the audit log.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { readJsonBody } from '../../src/http/readJsonBody.ts';
import { chatBody, errorOf, type GuardHarness, HOST, JSON_HEADERS, startGuardHarness } from './guardHarness.ts';

const ATTACKER_TEXT = 'ATTACKER-CONTROLLED-7f3a';

let h: GuardHarness;
before(async () => {
  h = await startGuardHarness();
});
after(() => h.close());

describe('request bodies must be JSON', () => {
  it('answers 415 to a POST without Content-Type or with a type a page may send anywhere', async () => {
    const { request } = h.app();
    const chatsBefore = h.fake.chats.length;
    for (const type of [undefined, 'text/plain', 'text/plain;charset=UTF-8', 'application/x-www-form-urlencoded']) {
      const headers: Record<string, string> = type ? { 'content-type': type } : {};
      const response = await request('/v1/chat/completions', { method: 'POST', headers, body: chatBody() });
      assert.equal(response.status, 415, String(type));
      const error = await errorOf(response);
      assert.equal(error.code, 'unsupported_media_type');
      assert.equal(error.type, 'invalid_request_error');
    }
    assert.equal(h.fake.chats.length, chatsBefore);
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
    const { request } = h.app({ authToken: 'correct horse battery' });
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
    const { request, logs } = h.app();
    const before = await h.snapshotCount();
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
    assert.equal(await h.snapshotCount(), before, 'no audit row for a refused request');

    const health = (await (await request('/healthz')).json()) as { refused: Record<string, number> };
    assert.deepEqual(health.refused, {
      total: 3,
      'remote-address': 0,
      host: 1,
      origin: 1,
      'content-type': 1,
      'auth-throttle': 0,
    });

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
    const { request } = h.app();
    const response = await request('/v1/chat/completions', {
      method: 'POST',
      headers: { ...JSON_HEADERS, 'user-agent': `curl/8 ${'é'.repeat(7000)}` },
      body: '{"model": ',
    });
    assert.equal(response.status, 400);
    const id = response.headers.get('x-ctx-snapshot-id');
    assert.ok(id, 'audited');
    await h.proxy.store.flush();
    const stored = h.proxy.store.get(id)?.userAgent ?? '';
    assert.ok(stored.startsWith('curl/8 '));
    assert.ok(new TextEncoder().encode(stored).length <= 512, `${stored.length} chars stored`);
  });

  it('turns away a client on another machine when no token is set, and does not audit it', async () => {
    const { request } = h.app({ remoteAddress: () => '192.168.7.20' });
    const before = await h.snapshotCount();
    const response = await request('/v1/chat/completions', {
      method: 'POST',
      headers: { ...JSON_HEADERS, 'user-agent': ATTACKER_TEXT },
      body: chatBody(),
    });
    assert.equal(response.status, 403);
    assert.equal((await errorOf(response)).code, 'remote_client_not_allowed');
    assert.equal(await h.snapshotCount(), before);
  });
});

describe('/healthz with an auth token', () => {
  it('tells a caller without the token only that ctxproxy is up', async () => {
    const { request } = h.app({ authToken: 'sekrit-token-123' });
    const anonymous = await request('/healthz');
    assert.equal(anonymous.status, 200);
    assert.deepEqual(await anonymous.json(), { status: 'ok' });
    const wrong = await request('/healthz', { headers: { authorization: 'Bearer nope' } });
    assert.deepEqual(await wrong.json(), { status: 'ok' });
    const right = (await (
      await request('/healthz', { headers: { authorization: 'Bearer sekrit-token-123' } })
    ).json()) as { upstream: { url: string }; refused: { total: number } };
    assert.equal(right.upstream.url, h.fake.url);
    assert.equal(typeof right.refused.total, 'number');
  });
});
