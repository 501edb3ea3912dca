// The request id in the audit: the client's X-Request-Id is the client's text,
// scanned for secrets like every header the log keeps; an id ctxproxy minted
// (the client sent none) is stored as it is, and the redactor never sees it (a
// unique text per request would only crowd its result cache; issue 15).

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { type RunningProxy, startProxy } from '../support/proxy.ts';

describe('the request id the audit keeps', () => {
  let fake: FakeOllama;
  let proxy: RunningProxy;
  const scanned: string[] = [];

  before(async () => {
    fake = await startFakeOllama();
    proxy = await startProxy({ upstreamUrl: fake.url });
    const { redactor } = proxy.deps;
    const redact = redactor.redact.bind(redactor);
    redactor.redact = (text, options) => {
      scanned.push(text);
      return redact(text, options);
    };
  });
  after(async () => {
    await proxy.close();
    await fake.close();
  });

  const chat = (headers: Record<string, string> = {}) =>
    fetch(`${proxy.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify({ model: 'qwen2.5-coder:7b', messages: [{ role: 'user', content: 'which id?' }] }),
    });

  it('stores a minted id as the response names it, without scanning it', async () => {
    scanned.length = 0;
    const response = await chat();
    assert.equal(response.status, 200);
    await response.text();
    const id = response.headers.get('x-request-id') ?? '';
    assert.match(id, /^[0-9a-f-]{36}$/);
    assert.equal((await proxy.snapshotOf(response)).requestId, id);
    assert.ok(scanned.length > 0, 'the message was scanned');
    assert.ok(!scanned.some((text) => text.includes(id)), 'the minted id was not');
  });

  it('stores a minted id without scanning it on /v1/responses too', async () => {
    scanned.length = 0;
    const response = await fetch(`${proxy.baseURL}/responses`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ model: 'qwen2.5-coder:7b', input: 'which id?' }),
    });
    assert.equal(response.status, 200);
    await response.text();
    const id = response.headers.get('x-request-id') ?? '';
    assert.match(id, /^[0-9a-f-]{36}$/);
    assert.equal((await proxy.snapshotOf(response)).requestId, id);
    assert.ok(scanned.length > 0, 'the input was scanned');
    assert.ok(!scanned.some((text) => text.includes(id)), 'the minted id was not');
  });

  it("scans the client's own id", async () => {
    scanned.length = 0;
    const response = await chat({ 'X-Request-Id': 'client-chosen-id-42' });
    await response.text();
    assert.equal(response.headers.get('x-request-id'), 'client-chosen-id-42');
    assert.equal((await proxy.snapshotOf(response)).requestId, 'client-chosen-id-42');
    assert.ok(scanned.includes('client-chosen-id-42'));
  });
});
