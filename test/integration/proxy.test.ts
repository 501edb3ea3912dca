// The real server, driven by the official `openai` client, in front of the fake Ollama.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { createApp } from '../../src/http/app.ts';
import { auditRoutes } from '../../src/http/auditRoutes.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import { assertAuditMatchesUpstream } from '../support/auditMatchesUpstream.ts';
import { DEFAULT_FAKE_CONTENT, type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { type RunningProxy, readSse, startProxy } from '../support/proxy.ts';

const MODEL = 'qwen2.5-coder:7b';
let fake: FakeOllama;
let proxy: RunningProxy;
let client: OpenAI;

before(async () => {
  fake = await startFakeOllama();
  proxy = await startProxy({ upstreamUrl: fake.url });
  client = proxy.client();
});
after(async () => {
  await proxy.close();
  await fake.close();
});

const lastChat = () => {
  const chat = fake.chats.at(-1);
  assert.ok(chat, 'the fake Ollama received no chat');
  return chat.body;
};
const post = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${proxy.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

describe('chat completions', () => {
  test('a non-streaming answer has OpenAI’s shape, usage and the ctx headers', async () => {
    const { data, response } = await client.chat.completions
      .create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    assert.match(data.id, /^chatcmpl-[\w-]{8,}$/);
    assert.equal(data.object, 'chat.completion');
    assert.equal(data.model, MODEL);
    assert.equal(data.choices[0]?.message.content, DEFAULT_FAKE_CONTENT);
    assert.equal(data.choices[0]?.finish_reason, 'stop');
    assert.ok(data.usage && data.usage.prompt_tokens > 0 && data.usage.completion_tokens > 0);
    assert.equal(data.usage.total_tokens, data.usage.prompt_tokens + data.usage.completion_tokens);
    const snapshotId = response.headers.get('x-ctx-snapshot-id');
    assert.ok(snapshotId);
    assert.equal(response.headers.get('link'), `</audit/${snapshotId}>; rel="describedby"`);
    assert.equal(response.headers.get('x-ctx-mode'), 'off');
    // The proxy always streams from Ollama, even for a non-streaming client.
    assert.equal(lastChat().stream, true);
  });

  test('two requests get different ids', async () => {
    const a = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'a' }] });
    const b = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'b' }] });
    assert.notEqual(a.id, b.id);
  });

  test('streaming through the openai client yields the whole reply', async () => {
    const stream = await client.chat.completions.create({
      model: MODEL,
      stream: true,
      messages: [{ role: 'user', content: 'stream please' }],
    });
    let text = '';
    const ids = new Set<string>();
    for await (const chunk of stream) {
      ids.add(chunk.id);
      text += chunk.choices[0]?.delta.content ?? '';
    }
    assert.equal(text, DEFAULT_FAKE_CONTENT);
    assert.equal(ids.size, 1, 'every chunk carries the same id');
  });

  test('the SSE frame sequence is exactly OpenAI’s', async () => {
    const response = await post({
      model: MODEL,
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'frames' }],
    });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
    const frames = await readSse(response);
    assert.equal(frames.at(-1), '[DONE]');
    const chunks = frames.slice(0, -1).map((f) => JSON.parse(f));
    const created = new Set(chunks.map((c) => c.created));
    assert.equal(created.size, 1, 'one created timestamp');
    const first = chunks[0];
    assert.equal(first.choices[0].delta.role, 'assistant');
    for (const chunk of chunks.slice(1)) {
      for (const choice of chunk.choices) assert.equal(choice.delta.role, undefined, 'role only on the first chunk');
    }
    const usageChunk = chunks.at(-1);
    assert.deepEqual(usageChunk.choices, []);
    assert.ok(usageChunk.usage.prompt_tokens > 0);
    const finish = chunks.at(-2);
    assert.deepEqual(finish.choices[0].delta, {});
    assert.equal(finish.choices[0].finish_reason, 'stop');
    for (const chunk of chunks.slice(0, -2)) assert.equal(chunk.choices[0].finish_reason, null);
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    assert.equal(text, DEFAULT_FAKE_CONTENT);
  });

  test('without include_usage there is no usage chunk', async () => {
    const frames = await readSse(
      await post({ model: MODEL, stream: true, messages: [{ role: 'user', content: 'no usage' }] }),
    );
    const chunks = frames.slice(0, -1).map((f) => JSON.parse(f));
    assert.ok(chunks.every((c) => c.choices.length === 1 && c.usage === undefined));
    assert.equal(chunks.at(-1).choices[0].finish_reason, 'stop');
  });

  test('a stream carries the ctx headers, and a host without Node’s response gets the same frames', async () => {
    const body = { model: MODEL, stream: true, messages: [{ role: 'user', content: 'headers too' }] };
    const response = await post(body);
    assert.match(response.headers.get('x-ctx-snapshot-id') ?? '', /^s_/);
    assert.equal(response.headers.get('x-ctx-mode'), 'off');
    assert.ok(response.headers.get('x-request-id'));
    assert.equal(response.headers.get('cache-control'), 'no-cache');
    const overNode = await readSse(response);

    // app.request() runs the app without @hono/node-server: the web-stream path.
    const app = createApp({
      pipeline: proxy.deps,
      maxBodyBytes: 1024 * 1024,
      logger: silentLogger,
      remoteAddress: () => '127.0.0.1',
    });
    const webResponse = await app.request('/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    assert.match(webResponse.headers.get('x-ctx-snapshot-id') ?? '', /^s_/);
    const overWeb = await readSse(webResponse);
    // Ids and timestamps differ per request; everything else must match frame for frame.
    const shape = (frames: string[]) => frames.map((frame) => (frame === '[DONE]' ? frame : JSON.parse(frame).choices));
    assert.deepEqual(shape(overWeb), shape(overNode));
    assert.equal(overNode.at(-1), '[DONE]');
  });

  test('the length finish reason wins over tool calls', async () => {
    fake.reply('llama3.2:3b', { content: 'cut', doneReason: 'length', toolCalls: [{ name: 'f', arguments: {} }] });
    const data = await client.chat.completions.create({
      model: 'llama3.2:3b',
      messages: [{ role: 'user', content: 'long' }],
    });
    assert.equal(data.choices[0]?.finish_reason, 'length');
    fake.reply('llama3.2:3b', {});
  });
});

describe('tools, both ways', () => {
  test('tool calls come back with ids and JSON-string arguments', async () => {
    const fakeWithTools = await startFakeOllama({ models: [{ name: 'tool-model:1b', contextLength: 8192 }] });
    fakeWithTools.reply('tool-model:1b', { toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] });
    const toolProxy = await startProxy({ upstreamUrl: fakeWithTools.url });
    try {
      const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
        {
          type: 'function',
          function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
        },
      ];
      const data = await toolProxy.client().chat.completions.create({
        model: 'tool-model:1b',
        tools,
        messages: [{ role: 'user', content: 'weather in Oslo?' }],
      });
      const choice = data.choices[0];
      assert.equal(choice?.finish_reason, 'tool_calls');
      assert.equal(choice?.message.content, null);
      const call = choice?.message.tool_calls?.[0];
      assert.ok(call && call.type === 'function');
      assert.match(call.id, /^call_/);
      assert.equal(call.function.name, 'get_weather');
      assert.deepEqual(JSON.parse(call.function.arguments), { city: 'Oslo' });
      assert.deepEqual((fakeWithTools.chats[0]?.body.tools as unknown[])?.length, 1);

      // Second leg: the client sends the tool result back.
      fakeWithTools.reply('tool-model:1b', { content: 'It is sunny.' });
      const second = await toolProxy.client().chat.completions.create({
        model: 'tool-model:1b',
        tools,
        messages: [
          { role: 'user', content: 'weather in Oslo?' },
          { role: 'assistant', content: null, tool_calls: [call] },
          { role: 'tool', tool_call_id: call.id, content: '{"sky":"clear"}' },
        ],
      });
      assert.equal(second.choices[0]?.message.content, 'It is sunny.');
      const sent = fakeWithTools.chats[1]?.body.messages as Record<string, unknown>[];
      const assistant = sent.find((m) => m.role === 'assistant');
      const sentCalls = (assistant?.tool_calls ?? []) as { function: { arguments: unknown } }[];
      assert.deepEqual(sentCalls[0]?.function.arguments, { city: 'Oslo' });
      const tool = sent.find((m) => m.role === 'tool');
      assert.equal(tool?.tool_name, 'get_weather');
      assert.equal(tool?.content, '{"sky":"clear"}');
    } finally {
      await toolProxy.close();
      await fakeWithTools.close();
    }
  });

  test('streamed tool calls arrive as tool_calls deltas and finish with tool_calls', async () => {
    fake.reply(MODEL, { toolCalls: [{ name: 'lookup', arguments: { q: 'x' }, id: 'up_1' }] });
    try {
      const stream = await client.chat.completions.create({
        model: MODEL,
        stream: true,
        tools: [{ type: 'function', function: { name: 'lookup' } }],
        messages: [{ role: 'user', content: 'look it up' }],
      });
      const calls: OpenAI.Chat.Completions.ChatCompletionChunk.Choice.Delta.ToolCall[] = [];
      let finish: string | null | undefined;
      for await (const chunk of stream) {
        calls.push(...(chunk.choices[0]?.delta.tool_calls ?? []));
        finish = chunk.choices[0]?.finish_reason ?? finish;
      }
      assert.equal(finish, 'tool_calls');
      assert.equal(calls.length, 1);
      assert.equal(calls[0]?.index, 0);
      assert.equal(calls[0]?.id, 'up_1', "the upstream's id is kept");
      assert.equal(calls[0]?.function?.arguments, '{"q":"x"}');
    } finally {
      fake.reply(MODEL, {});
    }
  });
});

describe('request mapping as Ollama receives it', () => {
  test('only the options the client set are sent', async () => {
    await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'plain' }] });
    const { num_ctx, ...options } = (lastChat().options ?? {}) as Record<string, unknown>;
    // num_ctx is ours by policy (never let Ollama truncate silently); nothing else may be added.
    assert.ok(typeof num_ctx === 'number' && num_ctx >= 2048);
    assert.deepEqual(options, {});
    assert.equal(lastChat().truncate, false);
  });

  test('sampling fields, limits, stop and format map to Ollama’s', async () => {
    await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'json please' }],
      temperature: 0.2,
      top_p: 0.9,
      seed: 7,
      presence_penalty: 0.5,
      frequency_penalty: 0.25,
      max_tokens: 50,
      max_completion_tokens: 99,
      stop: 'END',
      response_format: { type: 'json_object' },
    });
    const body = lastChat();
    const { num_ctx: _numCtx, ...options } = body.options as Record<string, unknown>;
    assert.deepEqual(options, {
      temperature: 0.2,
      top_p: 0.9,
      seed: 7,
      presence_penalty: 0.5,
      frequency_penalty: 0.25,
      num_predict: 99,
      stop: ['END'],
    });
    assert.equal(body.format, 'json');
  });

  test('json_schema becomes the format schema, and developer becomes system', async () => {
    const schema = { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] };
    await client.chat.completions.create({
      model: MODEL,
      messages: [
        { role: 'developer', content: 'be terse' },
        { role: 'user', content: 'schema' },
      ],
      response_format: { type: 'json_schema', json_schema: { name: 'x', schema } },
    });
    const body = lastChat();
    assert.deepEqual(body.format, schema);
    assert.deepEqual((body.messages as { role: string }[])[0]?.role, 'system');
  });

  test('content parts and data-URL images map to text and base64 images', async () => {
    await client.chat.completions.create({
      model: MODEL,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is this?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          ],
        },
      ],
    });
    const message = (lastChat().messages as Record<string, unknown>[]).at(-1);
    assert.equal(message?.content, 'what is this?');
    assert.deepEqual(message?.images, ['iVBORw0KGgo=']);
  });

  test('an http image URL, n > 1 and an unknown response_format are 400s', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [
        {
          messages: [
            { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.test/cat.png' } }] },
          ],
        },
        /base64 data URL/i,
      ],
      [{ n: 2 }, /\bn\b/],
      [{ response_format: { type: 'yaml' } }, /response_format/],
    ];
    for (const [extra, message] of cases) {
      const error = await client.chat.completions
        .create({ model: MODEL, messages: [{ role: 'user', content: 'x' }], ...extra } as never)
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      assert.ok(error instanceof OpenAI.BadRequestError, `expected a 400 for ${JSON.stringify(extra)}`);
      assert.match(error.message, message);
    }
  });
});

describe('errors in OpenAI’s shape', () => {
  test('malformed JSON is a 400 with an OpenAI error body, and leaves a snapshot', async () => {
    const response = await post('{"model": "x", "messages": [');
    assert.equal(response.status, 400);
    const body = (await response.json()) as { error: { message: string; type: string; code: string } };
    assert.equal(body.error.type, 'invalid_request_error');
    assert.equal(body.error.code, 'invalid_json');
    const id = response.headers.get('x-ctx-snapshot-id');
    assert.ok(id);
    await proxy.store.flush();
    assert.equal(proxy.store.get(id)?.outcome, 'error');
  });

  test('a body that is not a chat request names the bad field', async () => {
    const response = await post({ model: MODEL, messages: [{ role: 'wizard', content: 'x' }] });
    assert.equal(response.status, 400);
    const body = (await response.json()) as { error: { message: string } };
    assert.match(body.error.message, /messages\.0\.role/);
  });

  test('an unknown model is a 404 that says to pull it', async () => {
    const error = await client.chat.completions
      .create({ model: 'nope:1b', messages: [{ role: 'user', content: 'x' }] })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    assert.ok(error instanceof OpenAI.NotFoundError);
    assert.match(error.message, /ollama pull nope:1b/);
  });

  test('a body over the limit is a 413 the client can read', async () => {
    const small = await startProxy({ upstreamUrl: fake.url, maxBodyBytes: 64 * 1024 });
    try {
      const error = await small
        .client()
        .chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'x'.repeat(300_000) }] })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      assert.ok(error instanceof OpenAI.APIError, `expected an API error, got ${error}`);
      assert.equal(error.status, 413);
      assert.match(error.message, /larger than the limit/);
    } finally {
      await small.close();
    }
  });

  test('a dead upstream is a 502 that names the URL and says to start Ollama', async () => {
    const dead = await startProxy({ upstreamUrl: 'http://127.0.0.1:9' });
    try {
      const error = await dead
        .client()
        .chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'x' }] })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      assert.ok(error instanceof OpenAI.APIError);
      assert.equal(error.status, 502);
      assert.match(error.message, /127\.0\.0\.1:9/);
      assert.match(error.message, /ollama serve/);
      const models = await dead
        .client()
        .models.list()
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      assert.ok(models instanceof OpenAI.APIError && models.status === 502);
      const health = (await (await fetch(`${dead.url}/healthz`)).json()) as { upstream: { reachable: boolean } };
      assert.equal(health.upstream.reachable, false);
    } finally {
      await dead.close();
    }
  });

  test('an upstream that does not answer in time is a 504', async () => {
    const slowFake = await startFakeOllama();
    slowFake.reply(MODEL, { hangBeforeHeaders: true });
    const slow = await startProxy({ upstreamUrl: slowFake.url, firstByteTimeoutMs: 300 });
    try {
      const error = await slow
        .client()
        .chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'x' }] })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      assert.ok(error instanceof OpenAI.APIError);
      assert.equal(error.status, 504);
    } finally {
      await slow.close();
      await slowFake.close();
    }
  });

  test('an error after the stream started is an error frame, and no [DONE]', async () => {
    fake.reply(MODEL, { content: 'partial answer here', errorAfterChunks: 1 });
    try {
      const response = await post({ model: MODEL, stream: true, messages: [{ role: 'user', content: 'boom' }] });
      assert.equal(response.status, 200);
      const frames = await readSse(response);
      assert.notEqual(frames.at(-1), '[DONE]');
      const last = JSON.parse(frames.at(-1) as string);
      assert.ok(last.error?.message, 'the last frame is an error');
      const id = response.headers.get('x-ctx-snapshot-id') as string;
      await proxy.store.flush();
      const snapshot = proxy.store.get(id);
      assert.equal(snapshot?.outcome, 'error');
      assert.ok(snapshot?.reply.content.length, 'what arrived before the error is kept');
    } finally {
      fake.reply(MODEL, {});
    }
  });

  test('a stream that ends without Ollama’s done line is an error, not a silent success', async () => {
    fake.reply(MODEL, { content: 'never finished', endWithoutDone: true });
    try {
      const frames = await readSse(
        await post({ model: MODEL, stream: true, messages: [{ role: 'user', content: 'cut' }] }),
      );
      assert.notEqual(frames.at(-1), '[DONE]');
      assert.ok(JSON.parse(frames.at(-1) as string).error);
    } finally {
      fake.reply(MODEL, {});
    }
  });
});

describe('client abort', () => {
  test('a client that goes away stops the upstream and the snapshot keeps what arrived', async () => {
    fake.reply(MODEL, { content: 'one two three four', hangAfterChunks: 2 });
    try {
      const index = fake.chats.length;
      const controller = new AbortController();
      const { data: stream, response } = await client.chat.completions
        .create(
          { model: MODEL, stream: true, messages: [{ role: 'user', content: 'abort me' }] },
          { signal: controller.signal },
        )
        .withResponse();
      const snapshotId = response.headers.get('x-ctx-snapshot-id') as string;
      let received = '';
      // openai 6 ends the loop quietly on abort (it does not throw); either way we stop reading.
      try {
        for await (const chunk of stream) {
          received += chunk.choices[0]?.delta.content ?? '';
          if (received.length > 0) controller.abort();
        }
      } catch (error) {
        assert.ok(controller.signal.aborted, `unexpected error ${error}`);
      }
      assert.ok(received.length > 0);
      await fake.closed(index);
      // The snapshot is written when the aborted stream unwinds.
      let snapshot = proxy.store.get(snapshotId);
      for (let i = 0; i < 50 && !snapshot; i++) {
        await new Promise((r) => setTimeout(r, 20));
        await proxy.store.flush();
        snapshot = proxy.store.get(snapshotId);
      }
      assert.equal(snapshot?.outcome, 'aborted');
      assert.ok(snapshot?.reply.content.startsWith(received));
    } finally {
      fake.reply(MODEL, {});
    }
  });
});

describe('client abort before the answer', () => {
  test('a client that leaves while the model has not answered closes the upstream request; the snapshot says aborted', async () => {
    fake.reply(MODEL, { hangBeforeHeaders: true });
    try {
      const index = fake.chats.length;
      const controller = new AbortController();
      const pending = client.chat.completions
        .create(
          { model: MODEL, stream: true, messages: [{ role: 'user', content: 'leave before the answer' }] },
          { signal: controller.signal, maxRetries: 0 },
        )
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      // Bounded poll: the prompt reached the model (the in-flight record is on disk by then).
      for (let i = 0; i < 250 && fake.chats.length === index; i++) await new Promise((r) => setTimeout(r, 20));
      assert.equal(fake.chats.length, index + 1, 'the prompt reached the fake');
      controller.abort();
      assert.ok(await pending, 'the client saw its abort');
      // Only the client leaving can end this call: the fake never answers, the first-byte timer is 30 s.
      await fake.closed(index);
      const inFlight = proxy.store.list({ limit: 5 }).find((summary) => summary.question === 'leave before the answer');
      assert.ok(inFlight, 'the request is in the log');
      let snapshot = proxy.store.get(inFlight.id);
      for (let i = 0; i < 50 && snapshot?.outcome === 'in_flight'; i++) {
        await new Promise((r) => setTimeout(r, 20));
        snapshot = proxy.store.get(inFlight.id);
      }
      assert.equal(snapshot?.outcome, 'aborted');
    } finally {
      fake.reply(MODEL, {});
    }
  });
});

describe('models, health and the audit row', () => {
  test('/v1/models lists each model and its +mode variants', async () => {
    const list = await client.models.list();
    const ids = list.data.map((m) => m.id);
    assert.ok(ids.includes(MODEL));
    for (const mode of ['off', 'quick', 'git-aware', 'deep', 'debug']) assert.ok(ids.includes(`${MODEL}+${mode}`));
    assert.equal(list.data[0]?.object, 'model');
  });

  test('/healthz says the upstream answers', async () => {
    const health = (await (await fetch(`${proxy.url}/healthz`)).json()) as {
      status: string;
      upstream: { reachable: boolean; url: string };
    };
    assert.equal(health.status, 'ok');
    assert.equal(health.upstream.reachable, true);
    assert.equal(health.upstream.url, fake.url);
  });

  test('each answered request leaves one snapshot with messages, reply, usage and timings', async () => {
    const { data, response } = await client.chat.completions
      .create({ model: MODEL, messages: [{ role: 'user', content: 'audit me' }] })
      .withResponse();
    const id = response.headers.get('x-ctx-snapshot-id') as string;
    await proxy.store.flush();
    const snapshot = proxy.store.get(id);
    assert.ok(snapshot);
    assert.equal(snapshot.outcome, 'ok');
    assert.equal(snapshot.model, MODEL);
    assert.equal(snapshot.modeUsed, 'off');
    assert.deepEqual(snapshot.forwarded.at(-1), { role: 'user', content: 'audit me' });
    assert.equal(snapshot.reply.content, data.choices[0]?.message.content);
    assert.equal(snapshot.usage?.promptTokens, data.usage?.prompt_tokens);
    assert.ok(snapshot.timings.totalMs >= 0 && snapshot.timings.firstTokenMs !== undefined);
  });

  test('unknown routes get an OpenAI-shaped 404', async () => {
    const response = await fetch(`${proxy.baseURL}/no-such-route`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(response.status, 404);
    const body = (await response.json()) as { error: { type: string } };
    assert.equal(body.error.type, 'invalid_request_error');
  });
});

describe('auth token', () => {
  test('without a token, clients from another machine get a 403 everywhere, the audit pages included', async () => {
    const app = createApp({
      pipeline: proxy.deps,
      maxBodyBytes: 1024 * 1024,
      logger: silentLogger,
      audit: auditRoutes({ store: proxy.store }),
      // The socket's address cannot be faked on loopback; the guard reads it through this seam.
      remoteAddress: () => '192.168.7.20',
    });
    for (const route of ['/v1/models', '/audit', '/api/audit/snapshots', '/healthz']) {
      const response = await app.request(route);
      assert.equal(response.status, 403, route);
    }
    const local = createApp({
      pipeline: proxy.deps,
      maxBodyBytes: 1024 * 1024,
      logger: silentLogger,
      remoteAddress: () => '::ffff:127.0.0.1',
    });
    assert.equal((await local.request('/healthz')).status, 200);
  });

  test('with --auth-token, a request without it is a 401 and with it works', async () => {
    const locked = await startProxy({ upstreamUrl: fake.url, authToken: 'sekrit-token-123' });
    try {
      const denied = await locked
        .client({ apiKey: 'wrong-token' })
        .chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'x' }] })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      assert.ok(denied instanceof OpenAI.AuthenticationError);
      // Turned away, and still in the audit log.
      const deniedId = denied.headers?.get('x-ctx-snapshot-id');
      assert.ok(deniedId);
      await locked.store.flush();
      assert.equal(locked.store.get(deniedId)?.error?.status, 401);
      const ok = await locked
        .client({ apiKey: 'sekrit-token-123' })
        .chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'x' }] });
      assert.equal(ok.choices[0]?.message.content, DEFAULT_FAKE_CONTENT);
      // The client's token never reaches the model server.
      assert.equal(fake.chats.at(-1)?.headers.authorization, undefined);
    } finally {
      await locked.close();
    }
  });
});

test('every snapshot of this suite holds the messages the upstream received, its context accounted for', async () => {
  await assertAuditMatchesUpstream(proxy, fake);
});
