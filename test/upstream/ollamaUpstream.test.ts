import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import {
  NotFoundError,
  UpstreamResponseError,
  UpstreamTimeoutError,
  UpstreamUnavailableError,
} from '../../src/shared/errors.ts';
import type { UpstreamRequest } from '../../src/shared/ports.ts';
import type { UpstreamEvent } from '../../src/shared/types.ts';
import { createOllamaUpstream } from '../../src/upstream/ollamaUpstream.ts';
import { DEFAULT_FAKE_CONTENT, type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

async function collect(events: AsyncIterable<UpstreamEvent>): Promise<UpstreamEvent[]> {
  const out: UpstreamEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

function chatRequest(model: string, overrides: Partial<UpstreamRequest> = {}): UpstreamRequest {
  return { model, messages: [{ role: 'user', content: 'What is 2+2?' }], params: {}, ...overrides };
}

function text(events: UpstreamEvent[], field: 'content' | 'reasoning'): string {
  return events.map((event) => (event.type === 'delta' ? (event[field] ?? '') : '')).join('');
}

/** A port that nothing listens on: bind one, note it, close it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('Ollama upstream against the fake Ollama', { timeout: 30_000 }, () => {
  let fake: FakeOllama;
  before(async () => {
    fake = await startFakeOllama({
      models: [
        { name: 'qwen2.5-coder:7b', contextLength: 32768, family: 'qwen2' },
        { name: 'llama3.2:3b', contextLength: 8192, family: 'llama' },
        { name: 'qwen3:8b', contextLength: 40960, family: 'qwen3', capabilities: ['completion', 'tools', 'thinking'] },
        { name: 'tools:1b' },
        { name: 'hang:1b' },
        { name: 'slow:1b' },
        { name: 'broken:1b' },
        { name: 'nowindow:1b' },
      ],
    });
  });
  after(() => fake.close());

  test('streams content deltas, then exactly one done with stop and usage from the counts', async () => {
    const upstream = createOllamaUpstream({ baseUrl: fake.url });
    const events = await collect(await upstream.chat(chatRequest('qwen2.5-coder:7b'), new AbortController().signal));
    assert.equal(text(events, 'content'), DEFAULT_FAKE_CONTENT);
    assert.ok(events.filter((e) => e.type === 'delta').length > 1, 'content arrives in several deltas');
    const dones = events.filter((e) => e.type === 'done');
    assert.equal(dones.length, 1);
    assert.deepEqual(events.at(-1), {
      type: 'done',
      finishReason: 'stop',
      usage: { promptTokens: Math.ceil('What is 2+2?'.length / 4), completionTokens: 7 },
    });
  });

  test('sends the mapped request on the wire: options only when set, num_ctx, truncate, images, stream', async () => {
    const upstream = createOllamaUpstream({ baseUrl: fake.url });
    const before = fake.chats.length;
    await collect(
      await upstream.chat(
        chatRequest('llama3.2:3b', {
          messages: [
            { role: 'developer', content: 'be brief' },
            {
              role: 'user',
              content: [
                { type: 'text', text: 'what is this?' },
                { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
              ],
            },
          ],
          params: { temperature: 0.1, max_tokens: 64, stream: false },
          numCtx: 4096,
        }),
        new AbortController().signal,
      ),
    );
    const received = fake.chats[before];
    assert.ok(received);
    assert.deepEqual(received.body, {
      model: 'llama3.2:3b',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'what is this?', images: [PNG] },
      ],
      stream: true,
      options: { temperature: 0.1, num_predict: 64, num_ctx: 4096 },
      truncate: false,
    });
    assert.equal(received.headers['content-type'], 'application/json');
    assert.equal(received.headers.authorization, undefined);
  });

  test('an image "payload" that names a local file is sent as bytes, never read from disk', async () => {
    const upstream = createOllamaUpstream({ baseUrl: fake.url });
    const before = fake.chats.length;
    const sneaky = '///etc/hosts'; // valid base64 and an existing path
    await collect(
      await upstream.chat(
        chatRequest('llama3.2:3b', {
          messages: [{ role: 'user', content: [{ type: 'image_url', image_url: `data:image/png;base64,${sneaky}` }] }],
        }),
        new AbortController().signal,
      ),
    );
    const messages = fake.chats[before]?.body.messages as { images?: string[] }[] | undefined;
    const message = messages?.[0];
    assert.deepEqual(message?.images, [sneaky]);
  });

  test('reasoning arrives as reasoning deltas when think is on', async () => {
    fake.reply('qwen3:8b', { thinking: 'Two plus two is four.', content: '4' });
    const upstream = createOllamaUpstream({ baseUrl: fake.url });
    const events = await collect(
      await upstream.chat(
        chatRequest('qwen3:8b', { params: { reasoning_effort: 'high' } }),
        new AbortController().signal,
      ),
    );
    assert.equal(fake.chats.at(-1)?.body.think, true);
    assert.equal(text(events, 'reasoning'), 'Two plus two is four.');
    assert.equal(text(events, 'content'), '4');
    assert.equal(events.at(-1)?.type, 'done');
  });

  test('quick mode (think false) sends think: false and gets no reasoning', async () => {
    fake.reply('qwen3:8b', { thinking: 'hmm', content: '4' });
    const upstream = createOllamaUpstream({ baseUrl: fake.url });
    const events = await collect(
      await upstream.chat(
        chatRequest('qwen3:8b', { think: false, params: { reasoning_effort: 'high' } }),
        new AbortController().signal,
      ),
    );
    assert.equal(fake.chats.at(-1)?.body.think, false);
    assert.equal(text(events, 'reasoning'), '');
  });

  test('tool calls: JSON-string arguments, the upstream id when sent, else a unique call_ id; finish tool_calls', async () => {
    fake.reply('tools:1b', {
      toolCalls: [
        { name: 'get_weather', arguments: { city: 'Paris' } },
        { name: 'get_time', arguments: {}, id: 'call_from_ollama' },
        { name: 'get_weather', arguments: { city: 'Oslo' } },
      ],
    });
    const upstream = createOllamaUpstream({ baseUrl: fake.url });
    const events = await collect(await upstream.chat(chatRequest('tools:1b'), new AbortController().signal));
    const calls = events.flatMap((e) => (e.type === 'delta' ? (e.toolCalls ?? []) : []));
    assert.equal(calls.length, 3);
    assert.deepEqual(
      calls.map((c) => [c.type, c.function.name, c.function.arguments]),
      [
        ['function', 'get_weather', '{"city":"Paris"}'],
        ['function', 'get_time', '{}'],
        ['function', 'get_weather', '{"city":"Oslo"}'],
      ],
    );
    assert.equal(calls[1]?.id, 'call_from_ollama');
    assert.match(calls[0]?.id ?? '', /^call_[A-Za-z0-9_-]{8,}$/);
    assert.notEqual(calls[0]?.id, calls[2]?.id);
    const done = events.at(-1);
    assert.equal(done?.type === 'done' && done.finishReason, 'tool_calls');
  });

  test('finish reason precedence: length beats tool_calls', async () => {
    fake.reply('tools:1b', { content: 'cut', doneReason: 'length', toolCalls: [{ name: 'f', arguments: {} }] });
    const upstream = createOllamaUpstream({ baseUrl: fake.url });
    const events = await collect(await upstream.chat(chatRequest('tools:1b'), new AbortController().signal));
    const done = events.at(-1);
    assert.equal(done?.type === 'done' && done.finishReason, 'length');
  });

  test('a scripted prompt_eval_count is reported as prompt tokens', async () => {
    fake.reply('slow:1b', { content: 'x', promptEvalCount: 1234 });
    const upstream = createOllamaUpstream({ baseUrl: fake.url });
    const events = await collect(await upstream.chat(chatRequest('slow:1b'), new AbortController().signal));
    const done = events.at(-1);
    assert.equal(done?.type === 'done' && done.usage?.promptTokens, 1234);
  });

  test('an {"error"} line mid-stream throws a 502 carrying the upstream message, after the earlier deltas', async () => {
    fake.reply('broken:1b', { content: 'one two three four', errorAfterChunks: 2 });
    const upstream = createOllamaUpstream({ baseUrl: fake.url });
    const seen: UpstreamEvent[] = [];
    await assert.rejects(
      (async () => {
        for await (const event of await upstream.chat(chatRequest('broken:1b'), new AbortController().signal)) {
          seen.push(event);
        }
      })(),
      (error: unknown) => {
        assert.ok(error instanceof UpstreamResponseError);
        assert.equal(error.status, 502);
        assert.match(error.message, /error was encountered while running the model/);
        return true;
      },
    );
    assert.equal(seen.length, 2);
  });

  test('a stream that ends without its done line throws a 502 saying the model stopped without finishing', async () => {
    fake.reply('broken:1b', { content: 'half an answer', endWithoutDone: true });
    const upstream = createOllamaUpstream({ baseUrl: fake.url });
    const events = await upstream.chat(chatRequest('broken:1b'), new AbortController().signal);
    await assert.rejects(collect(events), (error: unknown) => {
      assert.ok(error instanceof UpstreamResponseError);
      assert.equal(error.status, 502);
      assert.match(error.message, /stopped without finishing/);
      return true;
    });
  });

  test('an unknown model is a 404 NotFoundError telling to `ollama pull NAME`, thrown by chat() itself', async () => {
    const upstream = createOllamaUpstream({ baseUrl: fake.url });
    await assert.rejects(upstream.chat(chatRequest('mistral:7b'), new AbortController().signal), (error: unknown) => {
      assert.ok(error instanceof NotFoundError);
      assert.equal(error.status, 404);
      assert.match(error.message, /`ollama pull mistral:7b`/);
      return true;
    });
  });

  test("Ollama's other 4xx keep their status and message; its 5xx become 502", async () => {
    const upstream = createOllamaUpstream({ baseUrl: fake.url });
    fake.reply('broken:1b', { status: 400, errorBody: 'invalid options: num_ctx' });
    await assert.rejects(upstream.chat(chatRequest('broken:1b'), new AbortController().signal), (error: unknown) => {
      assert.ok(error instanceof UpstreamResponseError);
      assert.equal(error.status, 400);
      assert.match(error.message, /invalid options: num_ctx/);
      return true;
    });
    fake.reply('broken:1b', { status: 500, errorBody: 'llama runner process has terminated' });
    await assert.rejects(upstream.chat(chatRequest('broken:1b'), new AbortController().signal), (error: unknown) => {
      assert.ok(error instanceof UpstreamResponseError);
      assert.equal(error.status, 502);
      assert.match(error.message, /llama runner process has terminated/);
      return true;
    });
  });

  test('think on a model without the thinking capability: Ollama’s 400 is passed on', async () => {
    const upstream = createOllamaUpstream({ baseUrl: fake.url });
    await assert.rejects(
      upstream.chat(chatRequest('llama3.2:3b', { params: { reasoning_effort: 'low' } }), new AbortController().signal),
      (error: unknown) =>
        error instanceof UpstreamResponseError && error.status === 400 && /thinking/.test(error.message),
    );
  });

  test('no answer before the first-byte timeout is a 504', async () => {
    fake.reply('hang:1b', { hangBeforeHeaders: true });
    const upstream = createOllamaUpstream({ baseUrl: fake.url, firstByteTimeoutMs: 150 });
    const started = Date.now();
    await assert.rejects(upstream.chat(chatRequest('hang:1b'), new AbortController().signal), (error: unknown) => {
      assert.ok(error instanceof UpstreamTimeoutError);
      assert.equal(error.status, 504);
      assert.match(error.message, new RegExp(fake.url.replaceAll('.', '\\.')));
      return true;
    });
    assert.ok(Date.now() - started < 5000);
  });

  test("aborting one request closes only that request's socket; a concurrent stream finishes", async () => {
    fake.reply('hang:1b', { content: 'never ending story', hangAfterChunks: 1 });
    fake.reply('slow:1b', { content: 'a b c d', chunkDelayMs: 60 });
    const upstream = createOllamaUpstream({ baseUrl: fake.url });
    const first = new AbortController();
    const hanging = await upstream.chat(chatRequest('hang:1b'), first.signal);
    const hangingIndex = fake.chats.length - 1;
    const other = await upstream.chat(chatRequest('slow:1b'), new AbortController().signal);
    const otherIndex = fake.chats.length - 1;

    const iterator = hanging[Symbol.asyncIterator]();
    const firstEvent = await iterator.next();
    assert.equal(firstEvent.done, false);
    const pending = iterator.next();
    first.abort();
    await assert.rejects(pending, (error: unknown) => {
      // The caller's own abort comes back as-is, not as a ProxyError.
      assert.equal((error as Error).name, 'AbortError');
      return true;
    });
    await fake.closed(hangingIndex);

    let otherClosed = false;
    void fake.closed(otherIndex).then(() => {
      otherClosed = true;
    });
    const events = await collect(other);
    assert.equal(text(events, 'content'), 'a b c d');
    assert.equal(events.at(-1)?.type, 'done');
    assert.equal(otherClosed, false, 'the other socket stayed open');
  });

  test('a consumer that stops reading early closes that socket', async () => {
    fake.reply('hang:1b', { content: 'never ending story', hangAfterChunks: 1 });
    const upstream = createOllamaUpstream({ baseUrl: fake.url });
    const events = await upstream.chat(chatRequest('hang:1b'), new AbortController().signal);
    const index = fake.chats.length - 1;
    for await (const _event of events) break;
    await fake.closed(index);
  });

  test('a signal aborted before the call rejects with the abort itself', async () => {
    const upstream = createOllamaUpstream({ baseUrl: fake.url });
    await assert.rejects(upstream.chat(chatRequest('llama3.2:3b'), AbortSignal.abort()), { name: 'AbortError' });
  });

  test('listModels reads /api/tags: id = name, created = modified_at in unix seconds, owned by ollama', async () => {
    const upstream = createOllamaUpstream({ baseUrl: `${fake.url}/` });
    const models = await upstream.listModels();
    assert.equal(models.length, 8);
    assert.deepEqual(models[0], {
      id: 'qwen2.5-coder:7b',
      created: Math.floor(Date.parse('2025-06-01T12:00:00Z') / 1000),
      ownedBy: 'ollama',
    });
  });

  test('contextWindow reads <arch>.context_length from show, once per model; undefined when unknown, rejects when absent', async () => {
    let shows = 0;
    const countingFetch: typeof fetch = (input, init) => {
      if (String(input).endsWith('/api/show')) shows++;
      return fetch(input, init);
    };
    const upstream = createOllamaUpstream({ baseUrl: fake.url, fetch: countingFetch });
    assert.equal(await upstream.contextWindow('qwen2.5-coder:7b'), 32768);
    assert.equal(await upstream.contextWindow('qwen2.5-coder:7b'), 32768);
    assert.equal(await upstream.contextWindow('qwen3:8b'), 40960);
    assert.equal(shows, 2);
    assert.equal(await upstream.contextWindow('nowindow:1b'), undefined);
    await assert.rejects(upstream.contextWindow('absent:1b'), NotFoundError);
  });
});

describe('Ollama upstream with nothing listening', { timeout: 30_000 }, () => {
  test('chat and listModels fail with a 502 that names the URL and says `ollama serve`', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const upstream = createOllamaUpstream({ baseUrl: url });
    const unavailable = (error: unknown) => {
      assert.ok(error instanceof UpstreamUnavailableError);
      assert.equal(error.status, 502);
      assert.ok(error.message.includes(url), error.message);
      assert.match(error.message, /ollama serve/);
      assert.match(error.message, /ECONNREFUSED/);
      return true;
    };
    await assert.rejects(upstream.chat(chatRequest('llama3.2:3b'), new AbortController().signal), unavailable);
    await assert.rejects(upstream.listModels(), unavailable);
    // A failed lookup rejects (the pipeline logs it and assumes a window); it is not mistaken for "no window".
    await assert.rejects(upstream.contextWindow('llama3.2:3b'), unavailable);
  });
});
