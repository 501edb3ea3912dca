// A model name without its tag (`qwen2.5-coder`, when only `qwen2.5-coder:7b` is
// pulled) or a near miss: every route that takes a model answers 404
// model_not_found naming what is installed, through the real server and clients.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { type RunningProxy, startProxy } from '../support/proxy.ts';

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

async function notFound(call: Promise<unknown>): Promise<InstanceType<typeof OpenAI.NotFoundError>> {
  const error = await call.then(
    () => assert.fail('the model should be unknown'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof OpenAI.NotFoundError, String(error));
  assert.equal(error.code, 'model_not_found');
  return error;
}

const TAGS = /Installed tags of qwen2\.5-coder: "qwen2\.5-coder:7b"/;
const messages = [{ role: 'user' as const, content: 'hello' }];

describe('a model asked for without its tag', () => {
  test('chat completions: the 404 names the installed tag', async () => {
    const error = await notFound(proxy.client().chat.completions.create({ model: 'qwen2.5-coder', messages }));
    assert.match(error.message, TAGS);
  });

  test('chat completions, streamed and with a +mode suffix: the same', async () => {
    const error = await notFound(
      proxy.client().chat.completions.create({ model: 'qwen2.5-coder+quick', messages, stream: true }),
    );
    assert.match(error.message, TAGS);
  });

  test('responses: the same', async () => {
    const error = await notFound(proxy.client().responses.create({ model: 'qwen2.5-coder', input: 'hello' }));
    assert.match(error.message, TAGS);
  });

  test('messages: the same, in Anthropic shape', async () => {
    const client = new Anthropic({ baseURL: proxy.url, apiKey: 'unused', maxRetries: 0 });
    const error = await client.messages.create({ model: 'qwen2.5-coder', max_tokens: 50, messages }).then(
      () => assert.fail('the model should be unknown'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof Anthropic.NotFoundError, String(error));
    const body = error.error as { error?: { type?: string; message?: string } };
    assert.equal(body.error?.type, 'not_found_error');
    assert.match(body.error?.message ?? '', TAGS);
  });

  test('completions and embeddings: the same', async () => {
    const completion = await notFound(proxy.client().completions.create({ model: 'qwen2.5-coder', prompt: 'def f(' }));
    assert.match(completion.message, TAGS);
    const embedding = await notFound(proxy.client().embeddings.create({ model: 'qwen2.5-coder', input: 'x' }));
    assert.match(embedding.message, TAGS);
  });

  test('GET /v1/models/{id}: the same', async () => {
    const error = await notFound(proxy.client().models.retrieve('qwen2.5-coder'));
    assert.match(error.message, TAGS);
  });

  test('a near miss names the similar names; an unrelated name keeps the pull hint alone', async () => {
    const near = await notFound(proxy.client().chat.completions.create({ model: 'llama3', messages }));
    assert.match(near.message, /Did you mean "llama3\.2:3b"\?/);
    const far = await notFound(proxy.client().chat.completions.create({ model: 'mistral', messages }));
    assert.doesNotMatch(far.message, /Did you mean|Installed tags/);
    assert.match(far.message, /ollama pull mistral/);
  });

  test('the refused request is audited with the same message', async () => {
    const error = await notFound(proxy.client().chat.completions.create({ model: 'qwen2.5-coder', messages }));
    await proxy.store.flush();
    const snapshot = proxy.store.get(error.headers?.get('x-ctx-snapshot-id') ?? '');
    assert.ok(snapshot);
    assert.match(snapshot.error?.message ?? '', TAGS);
  });
});
