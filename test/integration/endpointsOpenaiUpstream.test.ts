// Issue 17's endpoints with `--upstream-kind openai`: /v1/responses maps onto the
// upstream's chat API; embeddings and completions are a clear 501.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import { createOpenAIUpstream } from '../../src/upstream/openaiUpstream.ts';
import { type FakeOpenAI, startFakeOpenAI } from '../support/fakeOpenAI.ts';
import { type RunningProxy, startProxy } from '../support/proxy.ts';

let upstream: FakeOpenAI;
let proxy: RunningProxy;

before(async () => {
  upstream = await startFakeOpenAI({ models: ['local-model'] });
  proxy = await startProxy({
    upstreamUrl: upstream.url,
    upstream: createOpenAIUpstream({ baseUrl: upstream.url }),
    settings: { models: { 'local-model': { window: 8192 } } },
  });
});
after(async () => {
  await proxy.close();
  await upstream.close();
});

test('responses.create (stream and not) goes to the upstream as a chat completion', async () => {
  const client = proxy.client();
  const response = await client.responses.create({ model: 'local-model', instructions: 'Be brief.', input: 'hi' });
  assert.equal(response.output_text, 'Hello from the fake OpenAI server.');
  const received = upstream.requests.at(-1);
  assert.equal(received?.path, '/v1/chat/completions');
  const messages = received?.body?.messages as { role: string; content: string }[];
  assert.deepEqual(
    messages.map((m) => m.role),
    ['system', 'user'],
  );
  const final = await client.responses.stream({ model: 'local-model', input: 'hi' }).finalResponse();
  assert.equal(final.status, 'completed');
});

test('embeddings and completions are a 501 naming the upstream kind', async () => {
  const client = proxy.client();
  for (const call of [
    client.embeddings.create({ model: 'local-model', input: 'x' }),
    client.completions.create({ model: 'local-model', prompt: 'x' }),
  ]) {
    const error = await call.catch((e: unknown) => e);
    assert.ok(error instanceof OpenAI.APIError);
    assert.equal(error.status, 501);
    assert.match(error.message, /not supported with --upstream-kind openai/);
  }
});
