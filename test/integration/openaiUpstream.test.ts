// `--upstream-kind openai`: the real server in front of an OpenAI-compatible
// model server (llama.cpp server, LM Studio, vLLM), driven by the openai client.

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
    upstream: createOpenAIUpstream({ baseUrl: upstream.url, apiKey: 'server-side-key' }),
    settings: { models: { 'local-model': { window: 8192 } } },
  });
});
after(async () => {
  await proxy.close();
  await upstream.close();
});

test('streams through, and only the configured key reaches the model server', async () => {
  const client = proxy.client({ apiKey: 'the-clients-own-key' });
  const stream = await client.chat.completions.create({
    model: 'local-model',
    stream: true,
    messages: [{ role: 'user', content: 'hi' }],
  });
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
  assert.equal(text, 'Hello from the fake OpenAI server.');
  const received = upstream.requests.at(-1);
  assert.equal(received?.path, '/v1/chat/completions');
  assert.equal(received?.headers.authorization, 'Bearer server-side-key');
  assert.ok(!JSON.stringify(received).includes('the-clients-own-key'), 'the client’s key never leaves ctxproxy');
});

test('the models list and a non-streaming answer come back in OpenAI’s shapes', async () => {
  const client = proxy.client();
  const models = await client.models.list();
  assert.ok(models.data.some((m) => m.id === 'local-model+quick'));
  const reply = await client.chat.completions.create({
    model: 'local-model',
    messages: [{ role: 'user', content: 'x' }],
  });
  assert.equal(reply.choices[0]?.message.content, 'Hello from the fake OpenAI server.');
  assert.equal(reply.choices[0]?.finish_reason, 'stop');
});

test('an unknown model is a 404 and an upstream failure a 502, in OpenAI’s error shape', async () => {
  const client = proxy.client();
  const missing = await client.chat.completions
    .create({ model: 'nope', messages: [{ role: 'user', content: 'x' }] })
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  assert.ok(missing instanceof OpenAI.NotFoundError);
  upstream.reply('local-model', { status: 500, errorBody: 'slot crashed' });
  try {
    const failed = await client.chat.completions
      .create({ model: 'local-model', messages: [{ role: 'user', content: 'x' }] })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    assert.ok(failed instanceof OpenAI.APIError);
    assert.equal(failed.status, 502);
  } finally {
    upstream.reply('local-model', {});
  }
});
