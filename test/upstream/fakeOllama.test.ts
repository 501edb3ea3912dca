// The fake Ollama is what every integration test stands on, so its wire shapes
// are checked here: with raw fetch, and with the real `ollama` client.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Ollama } from 'ollama';
import { ContextLengthError, UpstreamResponseError } from '../../src/shared/errors.ts';
import { createOllamaUpstream } from '../../src/upstream/ollamaUpstream.ts';
import {
  DEFAULT_FAKE_CONTENT,
  FAKE_OLLAMA_VERSION,
  type FakeOllama,
  fakePromptTokens,
  startFakeOllama,
} from '../support/fakeOllama.ts';

function post(url: string, body: unknown): Promise<Response> {
  return fetch(url, { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body) });
}

describe('fake Ollama', { timeout: 30_000 }, () => {
  let fake: FakeOllama;
  before(async () => {
    fake = await startFakeOllama({
      models: [
        { name: 'qwen2.5-coder:7b', contextLength: 32768, family: 'qwen2' },
        { name: 'tiny:latest', contextLength: 2048 },
        { name: 'failing:1b' },
      ],
    });
  });
  after(() => fake.close());

  test('/api/embed and /api/generate answer in the documented shapes, through the real ollama client', async () => {
    const client = new Ollama({ host: fake.url });
    const embedded = await client.embed({ model: 'qwen2.5-coder:7b', input: ['a', 'bb'] });
    assert.equal(embedded.model, 'qwen2.5-coder:7b');
    assert.equal(embedded.embeddings.length, 2);
    assert.equal(embedded.embeddings[0]?.length, 8);
    assert.ok(embedded.total_duration > 0 && embedded.load_duration > 0 && embedded.prompt_eval_count > 0);

    const lines = [];
    for await (const line of await client.generate({
      model: 'qwen2.5-coder:7b',
      prompt: 'def f(',
      suffix: ')',
      stream: true,
    })) {
      lines.push(line);
    }
    assert.equal(lines.map((line) => line.response).join(''), DEFAULT_FAKE_CONTENT);
    const last = lines.at(-1);
    assert.ok(last?.done && last.done_reason === 'stop' && last.eval_count > 0 && last.prompt_eval_count > 0);
    assert.ok(lines.slice(0, -1).every((line) => !line.done));
    const whole = await client.generate({ model: 'qwen2.5-coder:7b', prompt: 'x', stream: false });
    assert.equal(whole.response, DEFAULT_FAKE_CONTENT);
    assert.equal(fake.generates.at(-2)?.body.suffix, ')');

    const missing = await post(`${fake.url}/api/embed`, { model: 'nope:1b', input: 'x' });
    assert.equal(missing.status, 404);
    assert.match(((await missing.json()) as { error: string }).error, /not found, try pulling it first/);
  });

  test('listens on 127.0.0.1 and answers /, /api/version, unknown paths and wrong methods like Ollama', async () => {
    assert.match(fake.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    const root = await fetch(`${fake.url}/`);
    assert.equal(await root.text(), 'Ollama is running');
    assert.deepEqual(await (await fetch(`${fake.url}/api/version`)).json(), { version: FAKE_OLLAMA_VERSION });
    const missing = await fetch(`${fake.url}/api/nothing`);
    assert.equal(missing.status, 404);
    assert.equal(await missing.text(), '404 page not found');
    assert.equal((await fetch(`${fake.url}/api/chat`)).status, 405);
  });

  test('malformed or incomplete bodies are 400s with an {"error"} body', async () => {
    for (const [body, message] of [
      ['{not json', /invalid character/],
      ['', /missing request body/],
      [{ messages: [] }, /model is required/],
    ] as const) {
      const response = await post(`${fake.url}/api/chat`, body);
      assert.equal(response.status, 400);
      assert.equal(response.headers.get('content-type'), 'application/json; charset=utf-8');
      const error = ((await response.json()) as { error: string }).error;
      assert.match(error, message);
    }
  });

  test('an unknown model is a 404 with Ollama’s exact message; a name without a tag means :latest', async () => {
    const response = await post(`${fake.url}/api/chat`, { model: 'mistral', messages: [] });
    assert.equal(response.status, 404);
    assert.deepEqual(await response.json(), { error: 'model "mistral" not found, try pulling it first' });
    const tiny = await post(`${fake.url}/api/chat`, { model: 'tiny', messages: [], stream: false });
    assert.equal(tiny.status, 200);
  });

  test('streams NDJSON lines of the documented shape, ending with one done line carrying the metrics', async () => {
    const response = await post(`${fake.url}/api/chat`, {
      model: 'qwen2.5-coder:7b',
      messages: [{ role: 'user', content: 'x'.repeat(40) }],
    });
    assert.equal(response.headers.get('content-type'), 'application/x-ndjson');
    const lines = (await response.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.ok(lines.length >= 3);
    for (const line of lines.slice(0, -1)) {
      assert.equal(line.model, 'qwen2.5-coder:7b');
      assert.equal(typeof line.created_at, 'string');
      assert.equal((line.message as { role: string }).role, 'assistant');
      assert.equal(line.done, false);
    }
    const last = lines.at(-1) as Record<string, unknown>;
    assert.equal(last.done, true);
    assert.equal(last.done_reason, 'stop');
    for (const field of ['total_duration', 'load_duration', 'prompt_eval_duration', 'eval_count', 'eval_duration']) {
      assert.equal(typeof last[field], 'number', field);
    }
    assert.equal(last.prompt_eval_count, 10);
    const text = lines.map((line) => (line.message as { content: string }).content).join('');
    assert.equal(text, DEFAULT_FAKE_CONTENT);
  });

  test('stream: false returns one JSON object with the whole message', async () => {
    fake.reply('failing:1b', { content: 'whole answer', toolCalls: [{ name: 'f', arguments: { a: 1 } }] });
    const response = await post(`${fake.url}/api/chat`, { model: 'failing:1b', messages: [], stream: false });
    const body = (await response.json()) as Record<string, unknown>;
    assert.deepEqual(body.message, {
      role: 'assistant',
      content: 'whole answer',
      tool_calls: [{ function: { index: 0, name: 'f', arguments: { a: 1 } } }],
    });
    assert.equal(body.done, true);
  });

  test('records each chat body and its headers', async () => {
    const count = fake.chats.length;
    await fetch(`${fake.url}/api/chat`, {
      method: 'POST',
      headers: { 'X-Probe': 'yes' },
      body: JSON.stringify({ model: 'tiny', messages: [], stream: false }),
    });
    assert.equal(fake.chats.length, count + 1);
    assert.equal(fake.chats[count]?.headers['x-probe'], 'yes');
    assert.deepEqual(fake.chats[count]?.body, { model: 'tiny', messages: [], stream: false });
    await assert.rejects(fake.closed(10_000), /no chat number/);
  });

  test('the real ollama client reads the fake: chat stream, show, list', async () => {
    const client = new Ollama({ host: fake.url });
    const parts: string[] = [];
    for await (const part of await client.chat({
      model: 'qwen2.5-coder:7b',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    })) {
      parts.push(part.message.content);
    }
    assert.equal(parts.join(''), DEFAULT_FAKE_CONTENT);
    const info = await client.show({ model: 'qwen2.5-coder:7b' });
    const modelInfo = info.model_info as unknown as Record<string, unknown>;
    assert.equal(modelInfo['general.architecture'], 'qwen2');
    assert.equal(modelInfo['qwen2.context_length'], 32768);
    assert.deepEqual(info.capabilities, ['completion', 'tools']);
    assert.equal(info.details.family, 'qwen2');
    const list = await client.list();
    assert.deepEqual(
      list.models.map((model) => model.name),
      ['qwen2.5-coder:7b', 'tiny:latest', 'failing:1b'],
    );
  });

  test('a prompt over num_ctx with truncate false is Ollama’s 400, which the adapter turns into ContextLengthError', async () => {
    const messages = [{ role: 'user' as const, content: 'y'.repeat(400) }];
    assert.equal(fakePromptTokens({ messages }), 100);
    const upstream = createOllamaUpstream({ baseUrl: fake.url });
    await assert.rejects(
      upstream.chat({ model: 'tiny', messages, params: {}, numCtx: 64 }, new AbortController().signal),
      (error: unknown) => error instanceof ContextLengthError && error.status === 400,
    );
    const fits = await upstream.chat(
      { model: 'tiny', messages, params: {}, numCtx: 128 },
      new AbortController().signal,
    );
    for await (const _event of fits) {
      // drain
    }
  });

  test('an error before any chunk is an HTTP 500, as Ollama sends it; the adapter makes it a 502', async () => {
    fake.reply('failing:1b', { content: 'a b', errorAfterChunks: 0 });
    const response = await post(`${fake.url}/api/chat`, { model: 'failing:1b', messages: [] });
    assert.equal(response.status, 500);
    await response.body?.cancel();
    const upstream = createOllamaUpstream({ baseUrl: fake.url });
    await assert.rejects(
      upstream.chat({ model: 'failing:1b', messages: [], params: {} }, new AbortController().signal),
      (error: unknown) => error instanceof UpstreamResponseError && error.status === 502,
    );
  });
});
