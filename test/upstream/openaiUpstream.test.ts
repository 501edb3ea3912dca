import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import {
  BadRequestError,
  NotFoundError,
  UpstreamResponseError,
  UpstreamUnavailableError,
} from '../../src/shared/errors.ts';
import type { UpstreamRequest } from '../../src/shared/ports.ts';
import type { UpstreamEvent } from '../../src/shared/types.ts';
import { createOllamaUpstream } from '../../src/upstream/ollamaUpstream.ts';
import { openAIEvents, sseData } from '../../src/upstream/openaiStream.ts';
import { createOpenAIUpstream } from '../../src/upstream/openaiUpstream.ts';
import { type FakeOpenAI, startFakeOpenAI } from '../support/fakeOpenAI.ts';

async function collect(events: AsyncIterable<UpstreamEvent>): Promise<UpstreamEvent[]> {
  const out: UpstreamEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

function chatRequest(model: string, overrides: Partial<UpstreamRequest> = {}): UpstreamRequest {
  return { model, messages: [{ role: 'user', content: 'hello' }], params: {}, ...overrides };
}

function content(events: UpstreamEvent[], field: 'content' | 'reasoning' = 'content'): string {
  return events.map((e) => (e.type === 'delta' ? (e[field] ?? '') : '')).join('');
}

/** Headers fetch itself adds; anything else on the wire came from us. */
const TRANSPORT_HEADERS = new Set([
  'host',
  'connection',
  'content-length',
  'user-agent',
  'accept-encoding',
  'accept-language',
  'sec-fetch-mode',
]);

describe('OpenAI-compatible upstream against a fake SSE server', { timeout: 30_000 }, () => {
  let fake: FakeOpenAI;
  before(async () => {
    fake = await startFakeOpenAI({ models: ['local-model', 'tools-model', 'bad-model'] });
  });
  after(() => fake.close());

  test("forwards the client's fields with our messages, stream true and usage on; streams content and usage", async () => {
    const upstream = createOpenAIUpstream({ baseUrl: fake.url });
    const events = await collect(
      await upstream.chat(
        chatRequest('local-model', {
          params: { temperature: 0.3, top_k: 20, stream: false, model: 'ignored', messages: [] },
        }),
        new AbortController().signal,
      ),
    );
    assert.equal(content(events), 'Hello from the fake OpenAI server.');
    assert.deepEqual(events.at(-1), {
      type: 'done',
      finishReason: 'stop',
      usage: { promptTokens: 42, completionTokens: 7 },
    });
    const sent = fake.requests.at(-1);
    assert.equal(sent?.path, '/v1/chat/completions');
    assert.deepEqual(sent?.body, {
      temperature: 0.3,
      top_k: 20,
      model: 'local-model',
      messages: [{ role: 'user', content: 'hello' }],
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  test('developer becomes system; max_completion_tokens is mirrored to max_tokens for llama.cpp', async () => {
    const upstream = createOpenAIUpstream({ baseUrl: fake.url });
    await collect(
      await upstream.chat(
        chatRequest('local-model', {
          messages: [
            { role: 'developer', content: 'terse' },
            { role: 'user', content: 'hi', name: undefined },
          ],
          params: { max_completion_tokens: 77 },
        }),
        new AbortController().signal,
      ),
    );
    const body = fake.requests.at(-1)?.body;
    assert.deepEqual(body?.messages, [
      { role: 'system', content: 'terse' },
      { role: 'user', content: 'hi' },
    ]);
    assert.equal(body?.max_completion_tokens, 77);
    assert.equal(body?.max_tokens, 77);
  });

  test('accepts a base URL with or without /v1 and a trailing slash', async () => {
    for (const baseUrl of [`${fake.url}/v1`, `${fake.url}/v1/`, `${fake.url}/`]) {
      const upstream = createOpenAIUpstream({ baseUrl });
      const events = await collect(await upstream.chat(chatRequest('local-model'), new AbortController().signal));
      assert.equal(events.at(-1)?.type, 'done');
      assert.equal(fake.requests.at(-1)?.path, '/v1/chat/completions');
    }
  });

  test('sends no Authorization without an api key, and exactly Bearer KEY with one; nothing else of ours', async () => {
    await collect(
      await createOpenAIUpstream({ baseUrl: fake.url }).chat(chatRequest('local-model'), AbortSignal.timeout(5000)),
    );
    const without = fake.requests.at(-1)?.headers ?? {};
    assert.equal(without.authorization, undefined);

    const upstream = createOpenAIUpstream({ baseUrl: fake.url, apiKey: 'sk-local-123' });
    await collect(await upstream.chat(chatRequest('local-model'), AbortSignal.timeout(5000)));
    const withKey = fake.requests.at(-1)?.headers ?? {};
    assert.equal(withKey.authorization, 'Bearer sk-local-123');
    const ours = Object.keys(withKey)
      .filter((name) => !TRANSPORT_HEADERS.has(name))
      .sort();
    assert.deepEqual(ours, ['accept', 'authorization', 'content-type']);

    await upstream.listModels();
    assert.equal(fake.requests.at(-1)?.headers.authorization, 'Bearer sk-local-123');
  });

  test('tool call fragments are gathered and emitted whole, once, before done with tool_calls', async () => {
    fake.reply('tools-model', {
      content: 'Let me check.',
      toolCalls: [
        { name: 'get_weather', arguments: '{"city":"Paris"}', id: 'call_up_1' },
        { name: 'get_time', arguments: '{"tz":"UTC"}' },
      ],
    });
    const upstream = createOpenAIUpstream({ baseUrl: fake.url });
    const events = await collect(await upstream.chat(chatRequest('tools-model'), new AbortController().signal));
    const withCalls = events.filter((e) => e.type === 'delta' && e.toolCalls);
    assert.equal(withCalls.length, 1);
    assert.deepEqual(withCalls[0]?.type === 'delta' && withCalls[0].toolCalls, [
      { id: 'call_up_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
      { id: 'call_fake_1', type: 'function', function: { name: 'get_time', arguments: '{"tz":"UTC"}' } },
    ]);
    assert.equal(events.indexOf(withCalls[0] as UpstreamEvent), events.length - 2);
    const done = events.at(-1);
    assert.equal(done?.type === 'done' && done.finishReason, 'tool_calls');
  });

  test('reasoning_content becomes reasoning; length beats tool_calls', async () => {
    fake.reply('tools-model', {
      reasoning: 'thinking hard',
      content: 'cut sho',
      finishReason: 'length',
      toolCalls: [{ name: 'f', arguments: '{}' }],
    });
    const upstream = createOpenAIUpstream({ baseUrl: fake.url });
    const events = await collect(await upstream.chat(chatRequest('tools-model'), new AbortController().signal));
    assert.equal(content(events, 'reasoning'), 'thinking hard');
    const done = events.at(-1);
    assert.equal(done?.type === 'done' && done.finishReason, 'length');
  });

  test('an unknown model is a 404 NotFoundError pointing at /v1/models (not at ollama pull)', async () => {
    const upstream = createOpenAIUpstream({ baseUrl: fake.url });
    await assert.rejects(upstream.chat(chatRequest('gpt-4o'), new AbortController().signal), (error: unknown) => {
      assert.ok(error instanceof NotFoundError);
      assert.match(error.message, /gpt-4o/);
      assert.match(error.message, /\/v1\/models/);
      assert.doesNotMatch(error.message, /ollama pull/);
      return true;
    });
  });

  test('a 5xx is a 502 with the upstream message; an error event mid-stream is a 502; a cut stream is a 502', async () => {
    const upstream = createOpenAIUpstream({ baseUrl: fake.url });
    fake.reply('bad-model', { status: 503, errorBody: 'Loading model' });
    await assert.rejects(upstream.chat(chatRequest('bad-model'), new AbortController().signal), (error: unknown) => {
      return error instanceof UpstreamResponseError && error.status === 502 && /Loading model/.test(error.message);
    });

    fake.reply('bad-model', { content: 'partial', errorMidStream: true });
    await assert.rejects(
      collect(await upstream.chat(chatRequest('bad-model'), new AbortController().signal)),
      (error: unknown) =>
        error instanceof UpstreamResponseError && error.status === 502 && /slot crashed/.test(error.message),
    );

    fake.reply('bad-model', { content: 'partial', endEarly: true });
    await assert.rejects(
      collect(await upstream.chat(chatRequest('bad-model'), new AbortController().signal)),
      (error: unknown) =>
        error instanceof UpstreamResponseError &&
        error.status === 502 &&
        /stopped without finishing/.test(error.message),
    );
  });

  test('n > 1 is refused with a 400 before anything is sent', async () => {
    const upstream = createOpenAIUpstream({ baseUrl: fake.url });
    const count = fake.requests.length;
    await assert.rejects(
      upstream.chat(chatRequest('local-model', { params: { n: 3 } }), new AbortController().signal),
      (error: unknown) => error instanceof BadRequestError && error.param === 'n',
    );
    assert.equal(fake.requests.length, count);
  });

  test('listModels reads /v1/models; contextWindow is unknown', async () => {
    const upstream = createOpenAIUpstream({ baseUrl: `${fake.url}/v1` });
    const models = await upstream.listModels();
    assert.deepEqual(models[0], { id: 'local-model', created: 1_700_000_000, ownedBy: 'llamacpp' });
    assert.equal(models.length, 3);
    assert.equal(await upstream.contextWindow('local-model'), undefined);
  });

  test('each adapter says its kind; the OpenAI one passes the api key on', async () => {
    const upstream = createOpenAIUpstream({ baseUrl: `${fake.url}/v1`, apiKey: 'k1' });
    assert.equal(upstream.kind, 'openai');
    assert.equal(upstream.baseUrl, fake.url);
    await upstream.listModels();
    assert.equal(fake.requests.at(-1)?.headers.authorization, 'Bearer k1');
    assert.equal(createOllamaUpstream({ baseUrl: 'http://127.0.0.1:11434/' }).kind, 'ollama');
  });

  test('a pre-aborted signal rejects with the abort itself', async () => {
    const upstream = createOpenAIUpstream({ baseUrl: fake.url });
    await assert.rejects(upstream.chat(chatRequest('local-model'), AbortSignal.abort()), { name: 'AbortError' });
  });
});

test('with nothing listening: a 502 naming the URL and saying to start the server', { timeout: 10_000 }, async () => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  const upstream = createOpenAIUpstream({ baseUrl: url });
  await assert.rejects(upstream.chat(chatRequest('local-model'), new AbortController().signal), (error: unknown) => {
    assert.ok(error instanceof UpstreamUnavailableError);
    assert.ok(error.message.includes(url));
    assert.match(error.message, /Start the server/);
    assert.doesNotMatch(error.message, /ollama serve/);
    return true;
  });
});

describe('openAIEvents (SSE payloads → events)', () => {
  async function* from(...payloads: string[]) {
    yield* payloads;
  }

  test('fragments without ids get unique call_ ids; [DONE] without a finish reason means stop', async () => {
    let n = 0;
    const events = await collect(
      openAIEvents(
        from(
          JSON.stringify({
            choices: [{ delta: { tool_calls: [{ index: 0, function: { name: 'f', arguments: '{"a"' } }] } }],
          }),
          JSON.stringify({ choices: [{ delta: { tool_calls: [{ index: 0, function: { arguments: ':1}' } }] } }] }),
          '[DONE]',
        ),
        () => `call_gen_${n++}`,
      ),
    );
    assert.deepEqual(events, [
      {
        type: 'delta',
        toolCalls: [{ id: 'call_gen_0', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
      },
      { type: 'done', finishReason: 'tool_calls' },
    ]);
    const plain = await collect(
      openAIEvents(from(JSON.stringify({ choices: [{ delta: { content: 'x' } }] }), '[DONE]'), () => 'id'),
    );
    assert.deepEqual(plain.at(-1), { type: 'done', finishReason: 'stop' });
  });

  test('sseData splits events on blank lines, accepts CRLF and ignores comments', async () => {
    const bytes = new TextEncoder().encode(': keep-alive\r\ndata: {"a":1}\r\n\r\ndata: {"b":2}\n\ndata: [DONE]\n\n');
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        // Split mid-line to exercise the buffering.
        controller.enqueue(bytes.slice(0, 20));
        controller.enqueue(bytes.slice(20));
        controller.close();
      },
    });
    const payloads: string[] = [];
    for await (const payload of sseData(body)) payloads.push(payload);
    assert.deepEqual(payloads, ['{"a":1}', '{"b":2}', '[DONE]']);
  });
});
