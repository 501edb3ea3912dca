// /v1/messages with `--upstream-kind openai`: the Anthropic request goes to the
// upstream as a chat completion (fields the chat table forwards to that kind
// included), and the answer comes back in Anthropic's shapes.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
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

test('messages.create and messages.stream go to the upstream as chat completions, without the client key', async () => {
  const client = new Anthropic({ baseURL: proxy.url, apiKey: 'the-clients-own-key', maxRetries: 0 });
  const message = await client.messages.create({
    model: 'local-model',
    max_tokens: 100,
    system: [{ type: 'text', text: 'Be brief.' }],
    messages: [{ role: 'user', content: 'hi' }],
    metadata: { user_id: 'user-7' },
    stop_sequences: ['END'],
    ...({ top_k: 20 } as object),
  });
  assert.deepEqual(message.content, [{ type: 'text', text: 'Hello from the fake OpenAI server.' }]);
  assert.equal(message.stop_reason, 'end_turn');
  const received = upstream.requests.at(-1);
  assert.equal(received?.path, '/v1/chat/completions');
  const body = received?.body as Record<string, unknown>;
  assert.deepEqual(
    (body.messages as { role: string }[]).map((m) => m.role),
    ['system', 'user'],
  );
  assert.equal(body.max_tokens, 100);
  assert.equal(body.top_k, 20);
  assert.equal(body.user, 'user-7');
  assert.deepEqual(body.stop, ['END']);
  assert.ok(!JSON.stringify(received).includes('the-clients-own-key'));

  const final = await client.messages
    .stream({ model: 'local-model', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] })
    .finalMessage();
  assert.equal(final.content[0]?.type === 'text' && final.content[0].text, 'Hello from the fake OpenAI server.');
  assert.ok(final.usage.output_tokens > 0);
});
