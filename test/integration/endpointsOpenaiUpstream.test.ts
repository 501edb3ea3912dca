// Issue 17's endpoints with `--upstream-kind openai`: /v1/responses maps onto the
// upstream's chat API; embeddings and completions go to its endpoints of the same name.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
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

test('embeddings and completions go to the upstream endpoints of the same name, redacted, with only the configured key', async () => {
  const client = proxy.client({ apiKey: 'the-clients-own-key' });
  const token = 'ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
  const embeddings = await client.embeddings.create({ model: 'local-model', input: ['abc', `token ${token}`] });
  assert.deepEqual(embeddings.data[0]?.embedding, [3, 0]);
  const sentEmbed = upstream.requests.at(-1);
  assert.equal(sentEmbed?.path, '/v1/embeddings');
  assert.doesNotMatch(JSON.stringify(sentEmbed?.body), new RegExp(token));
  assert.ok(!JSON.stringify(sentEmbed).includes('the-clients-own-key'));

  const completion = await client.completions.create({
    model: 'local-model',
    prompt: 'function add(a, b) {',
    suffix: '}',
  });
  assert.equal(completion.choices[0]?.text, 'return a + b;');
  assert.deepEqual(completion.usage, { prompt_tokens: 11, completion_tokens: 4, total_tokens: 15 });
  const sentCompletion = upstream.requests.at(-1);
  assert.equal(sentCompletion?.path, '/v1/completions');
  assert.equal(sentCompletion?.body?.suffix, '}');

  const stream = await client.completions.create({ model: 'local-model', prompt: 'x', stream: true });
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.text ?? '';
  assert.equal(text, 'return a + b;');
});
