// An upstream that answers, then falls silent: after the idle timeout the client
// gets an error (a frame in a stream, a 504 otherwise), the upstream request is
// aborted, and the snapshot says `upstream_stalled` with what arrived.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { createOllamaUpstream } from '../../src/upstream/ollamaUpstream.ts';
import { createOpenAIUpstream } from '../../src/upstream/openaiUpstream.ts';
import { type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { type FakeOpenAI, startFakeOpenAI } from '../support/fakeOpenAI.ts';
import { type RunningProxy, startProxy } from '../support/proxy.ts';

const IDLE_MS = 300;
// Without an idle timeout these requests would hang: the test's own limit turns that into a failure.
const LIMIT = { timeout: 15_000 };

/** Streams until the proxy's error; returns the text that arrived and the error. */
async function streamUntilError(client: OpenAI, model: string) {
  const { data: stream, response } = await client.chat.completions
    .create({ model, stream: true, messages: [{ role: 'user', content: 'count to four' }] })
    .withResponse();
  let text = '';
  let failure: unknown;
  try {
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
  } catch (error) {
    failure = error;
  }
  return { text, failure, snapshotId: response.headers.get('x-ctx-snapshot-id') as string };
}

describe('the Ollama upstream stalls after its first chunk', LIMIT, () => {
  let fake: FakeOllama;
  let proxy: RunningProxy;
  before(async () => {
    fake = await startFakeOllama();
    fake.reply('qwen2.5-coder:7b', { content: 'one two three four', hangAfterChunks: 1 });
    proxy = await startProxy({
      upstreamUrl: fake.url,
      upstream: createOllamaUpstream({ baseUrl: fake.url, idleTimeoutMs: IDLE_MS }),
    });
  });
  after(async () => {
    await proxy.close();
    await fake.close();
  });

  test('a stream ends with an upstream_stalled error frame, the model is stopped, the snapshot says so', async () => {
    const chats = fake.chats.length;
    const { text, failure, snapshotId } = await streamUntilError(proxy.client(), 'qwen2.5-coder:7b');
    assert.equal(text, 'one ', 'what arrived before the stall reached the client');
    assert.ok(failure instanceof OpenAI.APIError, `expected an APIError, got ${String(failure)}`);
    assert.equal(failure.code, 'upstream_stalled');
    assert.match(failure.message, /sent nothing for 0\.3s/);
    await fake.closed(chats); // the upstream request was aborted

    const snapshot = proxy.store.get(snapshotId);
    assert.equal(snapshot?.outcome, 'error');
    assert.equal(snapshot?.error?.code, 'upstream_stalled');
    assert.equal(snapshot?.error?.status, 504);
    assert.equal(snapshot?.reply.content, 'one ');
  });

  test('without streaming the answer is a 504 upstream_stalled', async () => {
    const failure = await proxy
      .client()
      .chat.completions.create({ model: 'qwen2.5-coder:7b', messages: [{ role: 'user', content: 'x' }] })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    assert.ok(failure instanceof OpenAI.APIError);
    assert.equal(failure.status, 504);
    assert.equal(failure.code, 'upstream_stalled');
  });

  test('a client that reads slowly is not taken for a stalled upstream', async () => {
    fake.reply('llama3.2:3b', { content: 'a b c', wordPerChunk: true });
    const upstream = createOllamaUpstream({ baseUrl: fake.url, idleTimeoutMs: IDLE_MS });
    const events = await upstream.chat(
      { model: 'llama3.2:3b', messages: [{ role: 'user', content: 'x' }], params: {} },
      new AbortController().signal,
    );
    let text = '';
    for await (const event of events) {
      if (event.type === 'delta') text += event.content ?? '';
      // The consumer holds each event longer than the idle limit (backpressure from a slow client).
      await new Promise((resolve) => setTimeout(resolve, IDLE_MS * 2));
    }
    assert.equal(text, 'a b c');
  });

  test('a slow but steady stream is not cut off', async () => {
    fake.reply('llama3.2:3b', { content: 'a b c d e f', wordPerChunk: true, chunkDelayMs: IDLE_MS / 3 });
    const stream = await proxy.client().chat.completions.create({
      model: 'llama3.2:3b',
      stream: true,
      messages: [{ role: 'user', content: 'x' }],
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    assert.equal(text, 'a b c d e f');
  });
});

describe('the OpenAI-compatible upstream stalls after its first chunk', LIMIT, () => {
  let fake: FakeOpenAI;
  let proxy: RunningProxy;
  before(async () => {
    fake = await startFakeOpenAI({ models: ['local-model'] });
    fake.reply('local-model', { content: 'one two', hangAfterContent: true });
    proxy = await startProxy({
      upstreamUrl: fake.url,
      upstream: createOpenAIUpstream({ baseUrl: fake.url, idleTimeoutMs: IDLE_MS }),
      settings: { models: { 'local-model': { window: 8192 } } },
    });
  });
  after(async () => {
    await proxy.close();
    await fake.close();
  });

  test('a stream ends with an upstream_stalled error frame and the snapshot says so', async () => {
    const { text, failure, snapshotId } = await streamUntilError(proxy.client(), 'local-model');
    assert.equal(text, 'one two');
    assert.ok(failure instanceof OpenAI.APIError, `expected an APIError, got ${String(failure)}`);
    assert.equal(failure.code, 'upstream_stalled');
    const snapshot = proxy.store.get(snapshotId);
    assert.equal(snapshot?.error?.code, 'upstream_stalled');
    assert.equal(snapshot?.reply.content, 'one two');
  });

  test('without streaming the answer is a 504 upstream_stalled', async () => {
    const failure = await proxy
      .client()
      .chat.completions.create({ model: 'local-model', messages: [{ role: 'user', content: 'x' }] })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    assert.ok(failure instanceof OpenAI.APIError);
    assert.equal(failure.status, 504);
    assert.equal(failure.code, 'upstream_stalled');
  });
});
