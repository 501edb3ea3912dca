// POST /v1/messages (and count_tokens) through the real server with the real
// @anthropic-ai/sdk, the wire format Claude Code speaks: a plain turn, the
// streamed event sequence with thinking, a tool-use round trip, images,
// redaction, modes, errors in Anthropic's shape, tokens and the audit snapshot.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { DEFAULT_FAKE_CONTENT, DEFAULT_FAKE_MODELS, type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { makeRepo, type TempRepo } from '../support/gitRepo.ts';
import { type RunningProxy, startProxy } from '../support/proxy.ts';

const MODEL = 'qwen2.5-coder:7b';
const THINKER = 'qwen3:8b';
const TOKEN = 'ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
// A 1x1 transparent PNG.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
type Sent = { role: string; content: string; images?: string[]; tool_calls?: unknown[]; tool_name?: string };

let fake: FakeOllama;
let repo: TempRepo;
let proxy: RunningProxy;
let client: Anthropic;

before(async () => {
  fake = await startFakeOllama({
    models: [
      ...DEFAULT_FAKE_MODELS,
      { name: THINKER, contextLength: 32768, capabilities: ['completion', 'tools', 'thinking'] },
    ],
  });
  repo = makeRepo({ files: { 'CLAUDE.md': 'Use tabs, never spaces.\n', 'index.js': 'console.log(1);\n' } });
  proxy = await startProxy({ upstreamUrl: fake.url, workspace: repo.dir });
  client = new Anthropic({ baseURL: proxy.url, apiKey: 'unused', maxRetries: 0 });
});
after(async () => {
  await proxy.close();
  await fake.close();
  repo.cleanup();
});

const lastChat = () => fake.chats.at(-1)?.body ?? {};
const lastSent = () => (lastChat().messages ?? []) as Sent[];
const weather: Anthropic.Tool = {
  name: 'get_weather',
  description: 'The weather in a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

async function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${proxy.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

describe('messages.create', () => {
  test('a plain turn: an Anthropic message, the ctx headers, system blocks, context and redaction as for chat', async () => {
    const { data, response } = await client.messages
      .create(
        {
          model: MODEL,
          max_tokens: 512,
          system: [
            { type: 'text', text: 'You are a coding agent.', cache_control: { type: 'ephemeral' } },
            { type: 'text', text: 'Answer briefly.' },
          ],
          messages: [{ role: 'user', content: [{ type: 'text', text: `What are the rules? my token is ${TOKEN}` }] }],
          // Not in this SDK's types any more, but Anthropic's API and Claude Code still send them.
          ...({ temperature: 0.2, top_p: 0.9, top_k: 40 } as object),
          stop_sequences: ['\n\nHuman:'],
          metadata: { user_id: 'user-1' },
        },
        { headers: { 'X-Ctx-Mode': 'quick' } },
      )
      .withResponse();
    assert.match(data.id, /^msg_/);
    assert.equal(data.type, 'message');
    assert.equal(data.role, 'assistant');
    assert.equal(data.model, MODEL);
    assert.deepEqual(data.content, [{ type: 'text', text: DEFAULT_FAKE_CONTENT }]);
    assert.equal(data.stop_reason, 'end_turn');
    assert.ok(data.usage.input_tokens > 0 && data.usage.output_tokens > 0);
    assert.equal(response.headers.get('x-ctx-mode'), 'quick');

    const sent = lastSent();
    assert.equal(sent[0]?.role, 'system');
    assert.match(sent[0]?.content ?? '', /^You are a coding agent\.\n\nAnswer briefly\./);
    const all = JSON.stringify(sent);
    assert.match(all, /Use tabs, never spaces\./, 'the repository context is added as for chat');
    assert.doesNotMatch(all, /ghp_/, 'the message is redacted');
    assert.equal(sent.at(-1)?.role, 'user');
    const options = lastChat().options as Record<string, unknown>;
    assert.equal(options.num_predict, 512);
    assert.equal(options.temperature, 0.2);
    assert.equal(options.top_p, 0.9);
    assert.equal(options.top_k, 40);
    assert.deepEqual(options.stop, ['\n\nHuman:']);

    const snapshot = await proxy.snapshotOf(response);
    assert.equal(snapshot.outcome, 'ok');
    assert.equal(snapshot.modeUsed, 'quick');
    assert.equal(snapshot.reply.content, DEFAULT_FAKE_CONTENT);
    assert.deepEqual(
      snapshot.forwarded.map((m) => m.role),
      sent.map((m) => m.role),
      'the snapshot records the roles the model received',
    );
    assert.doesNotMatch(JSON.stringify(snapshot), /ghp_/);
  });

  test('the beta route Claude Code calls (/v1/messages?beta=true, anthropic-beta headers) is the same route', async () => {
    const { data, response } = await client.beta.messages
      .create({
        model: MODEL,
        max_tokens: 64,
        messages: [{ role: 'user', content: 'hi' }],
        betas: ['some-beta-2025-01-01'],
      })
      .withResponse();
    assert.equal(response.status, 200);
    assert.deepEqual(data.content, [{ type: 'text', text: DEFAULT_FAKE_CONTENT }]);
    const raw = await post(
      '/v1/messages?beta=true',
      { model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] },
      { 'anthropic-version': '2023-06-01', 'anthropic-beta': 'some-beta-2025-01-01' },
    );
    assert.equal(raw.status, 200);
    assert.equal(((await raw.json()) as { type: string }).type, 'message');
  });

  test('max_tokens reached is stop_reason max_tokens', async () => {
    fake.reply(MODEL, { content: 'cut short', doneReason: 'length' });
    try {
      const message = await client.messages.create({
        model: MODEL,
        max_tokens: 2,
        messages: [{ role: 'user', content: 'hi' }],
      });
      assert.equal(message.stop_reason, 'max_tokens');
    } finally {
      fake.reply(MODEL, {});
    }
  });

  test('+off passes the request through: no context, the suffix stripped, X-Ctx-Mode off', async () => {
    const { response } = await client.messages
      .create({
        model: `${MODEL}+off`,
        max_tokens: 64,
        system: 'Be terse.',
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: 'hello' },
          { role: 'user', content: 'what rules?' },
        ],
      })
      .withResponse();
    assert.equal(response.headers.get('x-ctx-mode'), 'off');
    assert.equal(lastChat().model, MODEL);
    assert.deepEqual(
      lastSent().map((m) => [m.role, m.content]),
      [
        ['system', 'Be terse.'],
        ['user', 'hi'],
        ['assistant', 'hello'],
        ['user', 'what rules?'],
      ],
    );
  });

  test('a base64 image reaches the model as image bytes; a url image is refused, since ctxproxy fetches nothing', async () => {
    await client.messages.create({
      model: MODEL,
      max_tokens: 64,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
            { type: 'text', text: 'What is this?' },
          ],
        },
      ],
    });
    const user = lastSent().at(-1);
    assert.equal(user?.content, 'What is this?');
    assert.deepEqual(user?.images, [PNG]);

    const chats = fake.chats.length;
    const error = await client.messages
      .create({
        model: MODEL,
        max_tokens: 64,
        messages: [
          { role: 'user', content: [{ type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } }] },
        ],
      })
      .catch((e: unknown) => e);
    assert.ok(error instanceof Anthropic.BadRequestError);
    assert.equal((error.error as { error: { type: string } }).error.type, 'invalid_request_error');
    assert.match(error.message, /does not fetch remote content/);
    assert.equal(fake.chats.length, chats, 'nothing reached the model');
  });
});

describe('streaming', () => {
  test('the Anthropic event sequence with a thinking block, assembled by the SDK into the final message', async () => {
    fake.reply(THINKER, { thinking: 'Let me think about it.', content: 'one two three four' });
    try {
      const stream = client.messages.stream({
        model: THINKER,
        max_tokens: 256,
        thinking: { type: 'enabled', budget_tokens: 1024 },
        messages: [{ role: 'user', content: 'count' }],
      });
      const types: string[] = [];
      const deltas: string[] = [];
      for await (const event of stream) {
        types.push(event.type);
        if (event.type === 'content_block_delta') deltas.push(event.delta.type);
      }
      const final = await stream.finalMessage();
      assert.equal(lastChat().think, true, 'thinking on reaches Ollama as think');
      const distinct = types.filter((type, i) => type !== types[i - 1]);
      assert.deepEqual(distinct, [
        'message_start',
        'content_block_start',
        'content_block_delta',
        'content_block_stop',
        'content_block_start',
        'content_block_delta',
        'content_block_stop',
        'message_delta',
        'message_stop',
      ]);
      assert.ok(deltas.includes('thinking_delta') && deltas.includes('text_delta'));
      assert.equal(final.content[0]?.type, 'thinking');
      assert.equal(final.content[0]?.type === 'thinking' && final.content[0].thinking, 'Let me think about it.');
      assert.deepEqual(final.content[1], { type: 'text', text: 'one two three four' });
      assert.equal(final.stop_reason, 'end_turn');
      assert.ok(final.usage.output_tokens > 0 && final.usage.input_tokens > 0);
    } finally {
      fake.reply(THINKER, {});
    }
  });

  test('the raw stream starts with message_start then ping, and thinking disabled turns Ollama thinking off', async () => {
    const response = await post('/v1/messages', {
      model: THINKER,
      max_tokens: 64,
      stream: true,
      thinking: { type: 'disabled' },
      messages: [{ role: 'user', content: 'hi' }],
    });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /text\/event-stream/);
    assert.ok(response.headers.get('x-ctx-snapshot-id'));
    const events = (await response.text()).split('\n\n').filter((frame) => frame.trim() !== '');
    assert.match(events[0] ?? '', /^event: message_start\ndata: /);
    assert.match(events[1] ?? '', /^event: ping\ndata: \{"type":"ping"\}/);
    assert.match(events.at(-1) ?? '', /^event: message_stop/);
    assert.equal(lastChat().think, false);
  });

  test('an upstream failure after the stream began is an Anthropic error event, which the SDK throws', async () => {
    fake.reply(MODEL, { content: 'one two three four', errorAfterChunks: 1 });
    try {
      const stream = client.messages.stream({
        model: MODEL,
        max_tokens: 64,
        messages: [{ role: 'user', content: 'hi' }],
      });
      const error = await stream.finalMessage().catch((e: unknown) => e);
      assert.ok(error instanceof Anthropic.APIError, String(error));
    } finally {
      fake.reply(MODEL, {});
    }
  });
});

describe('tool use', () => {
  test('a tool call comes back as tool_use, and its tool_result goes to the model as a tool message', async () => {
    fake.reply(MODEL, { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] });
    let first: Anthropic.Message;
    let response: Response;
    try {
      ({ data: first, response } = await client.messages
        .create({
          model: MODEL,
          max_tokens: 256,
          tools: [weather, { type: 'web_search_20250305', name: 'web_search', max_uses: 3 }],
          tool_choice: { type: 'auto' },
          messages: [{ role: 'user', content: 'Weather in Paris?' }],
        })
        .withResponse());
    } finally {
      fake.reply(MODEL, {});
    }
    assert.equal(first.stop_reason, 'tool_use');
    const use = first.content.find((block) => block.type === 'tool_use');
    assert.ok(use && use.type === 'tool_use');
    assert.equal(use.name, 'get_weather');
    assert.deepEqual(use.input, { city: 'Paris' });
    const tools = lastChat().tools as { function: { name: string; parameters: unknown } }[];
    assert.deepEqual(
      tools.map((tool) => tool.function.name),
      ['get_weather'],
      'the server tool is left out',
    );
    assert.deepEqual(tools[0]?.function.parameters, weather.input_schema);
    assert.match(response.headers.get('x-ctx-warning') ?? '', /left out 1 server tool\(s\) web_search/);
    const snapshot = await proxy.snapshotOf(response);
    assert.ok(snapshot.warnings.some((warning) => /server tool/.test(warning)));

    await client.messages.create({
      model: MODEL,
      max_tokens: 256,
      tools: [weather],
      messages: [
        { role: 'user', content: 'Weather in Paris and Oslo?' },
        { role: 'assistant', content: [{ type: 'text', text: 'Checking.' }, use] },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: use.id, content: '{"celsius":21}' },
            {
              type: 'tool_result',
              tool_use_id: use.id,
              content: [{ type: 'text', text: 'no such city' }],
              is_error: true,
            },
            { type: 'text', text: 'And now?' },
          ],
        },
      ],
    });
    const sent = lastSent();
    const assistant = sent.find((m) => m.role === 'assistant');
    assert.equal(assistant?.content, 'Checking.');
    assert.equal(assistant?.tool_calls?.length, 1);
    const results = sent.filter((m) => m.role === 'tool');
    assert.deepEqual(
      results.map((m) => [m.content, m.tool_name]),
      [
        ['{"celsius":21}', 'get_weather'],
        ['Error: no such city', 'get_weather'],
      ],
    );
    assert.equal(sent.at(-1)?.role, 'user', 'the text after the results is the last user turn');
    assert.equal(sent.indexOf(results[0] as Sent), sent.indexOf(assistant as Sent) + 1, 'results follow the call');
  });

  test('streamed tool use: input_json_delta assembled by the SDK into the input object', async () => {
    fake.reply(MODEL, { content: 'Let me look.', toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] });
    try {
      const stream = client.messages.stream({
        model: MODEL,
        max_tokens: 256,
        tools: [weather],
        tool_choice: { type: 'tool', name: 'get_weather' },
        messages: [{ role: 'user', content: 'Weather in Oslo?' }],
      });
      const final = await stream.finalMessage();
      assert.equal(final.content[0]?.type, 'text');
      const use = final.content[1];
      assert.ok(use?.type === 'tool_use');
      assert.deepEqual(use.input, { city: 'Oslo' });
      assert.equal(final.stop_reason, 'tool_use');
    } finally {
      fake.reply(MODEL, {});
    }
  });

  test('tool_choice none withholds the tools from Ollama', async () => {
    await client.messages.create({
      model: MODEL,
      max_tokens: 64,
      tools: [weather],
      tool_choice: { type: 'none' },
      messages: [{ role: 'user', content: 'hi' }],
    });
    assert.equal(lastChat().tools, undefined);
  });
});

describe('every string the client sends is redacted', () => {
  test('a secret in each string field reaches neither the model nor the audit log', async () => {
    const secret = (label: string) => `${label} ${TOKEN}`;
    const response = await post(
      '/v1/messages',
      {
        model: MODEL,
        max_tokens: 64,
        system: [{ type: 'text', text: secret('system') }],
        metadata: { user_id: TOKEN },
        stop_sequences: [TOKEN],
        tools: [
          {
            name: 'get_weather',
            description: secret('description'),
            input_schema: { type: 'object', title: TOKEN, properties: { [TOKEN]: { type: 'string', default: TOKEN } } },
          },
        ],
        tool_choice: { type: 'auto' },
        messages: [
          { role: 'user', content: secret('first') },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: secret('thinking'), signature: TOKEN },
              { type: 'text', text: secret('assistant') },
              { type: 'tool_use', id: TOKEN, name: 'get_weather', input: { city: TOKEN, [TOKEN]: [TOKEN] } },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: TOKEN, content: [{ type: 'text', text: secret('result') }] },
              { type: 'tool_result', tool_use_id: TOKEN, content: secret('plain result') },
              { type: 'text', text: secret('last') },
            ],
          },
        ],
      },
      { 'X-Ctx-Mode': 'quick' },
    );
    assert.equal(response.status, 200);
    await response.json();
    const upstream = JSON.stringify(lastChat());
    assert.doesNotMatch(upstream, /ghp_/);
    assert.match(upstream, /system \[REDACTED/);
    assert.match(upstream, /description \[REDACTED/);
    const snapshot = await proxy.snapshotOf(response);
    assert.doesNotMatch(JSON.stringify(snapshot), /ghp_/);
  });
});

describe('errors in Anthropic shape, still audited', () => {
  test('bad JSON is a 400 invalid_request_error, and leaves a snapshot', async () => {
    const before = proxy.store.list({ limit: 1000 }).length;
    const response = await post('/v1/messages', '{"model": ');
    assert.equal(response.status, 400);
    const body = (await response.json()) as { type: string; error: { type: string; message: string } };
    assert.equal(body.type, 'error');
    assert.equal(body.error.type, 'invalid_request_error');
    assert.ok(body.error.message.length > 0);
    await proxy.store.flush();
    assert.equal(proxy.store.list({ limit: 1000 }).length, before + 1);
  });

  test('a missing max_tokens is a 400 naming it', async () => {
    const response = await post('/v1/messages', { model: MODEL, messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(response.status, 400);
    const body = (await response.json()) as { error: { type: string; message: string } };
    assert.equal(body.error.type, 'invalid_request_error');
    assert.match(body.error.message, /max_tokens/);
  });

  test('an unknown model is a 404 not_found_error', async () => {
    const error = await client.messages
      .create({ model: 'no-such-model:1b', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    assert.ok(error instanceof Anthropic.NotFoundError, String(error));
    assert.equal((error.error as { type: string; error: { type: string } }).error.type, 'not_found_error');
  });

  test('a prompt over the window is a 400 that reads "prompt is too long", on which Claude Code compacts', async () => {
    const error = await client.messages
      .create({
        model: 'llama3.2:3b',
        max_tokens: 16,
        messages: [{ role: 'user', content: 'word '.repeat(40_000) }],
      })
      .catch((e: unknown) => e);
    assert.ok(error instanceof Anthropic.BadRequestError, String(error));
    const body = error.error as { type: string; error: { type: string; message: string } };
    assert.equal(body.error.type, 'invalid_request_error');
    assert.match(body.error.message, /^prompt is too long: /);
  });

  test('an unknown /v1/messages path is a 404 in Anthropic shape', async () => {
    const response = await post('/v1/messages/batches', {});
    assert.equal(response.status, 404);
    assert.equal(((await response.json()) as { error: { type: string } }).error.type, 'not_found_error');
  });
});

describe('authentication', () => {
  test('with a token set: none is a 401 authentication_error; x-api-key or a bearer token pass', async () => {
    const guarded = await startProxy({ upstreamUrl: fake.url, authToken: 'sk-local-secret' });
    try {
      const response = await fetch(`${guarded.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: MODEL, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
      });
      assert.equal(response.status, 401);
      const body = (await response.json()) as { type: string; error: { type: string } };
      assert.deepEqual([body.type, body.error.type], ['error', 'authentication_error']);

      const wrong = new Anthropic({ baseURL: guarded.url, apiKey: 'sk-wrong', maxRetries: 0 });
      const error = await wrong.messages
        .create({ model: MODEL, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] })
        .catch((e: unknown) => e);
      assert.ok(error instanceof Anthropic.AuthenticationError);

      for (const credentials of [{ apiKey: 'sk-local-secret' }, { authToken: 'sk-local-secret', apiKey: null }]) {
        const ok = new Anthropic({ baseURL: guarded.url, maxRetries: 0, ...credentials });
        const message = await ok.messages.create({
          model: MODEL,
          max_tokens: 16,
          messages: [{ role: 'user', content: 'hi' }],
        });
        assert.equal(message.type, 'message', JSON.stringify(Object.keys(credentials)));
      }
    } finally {
      await guarded.close();
    }
  });
});

describe('count_tokens', () => {
  test('counts what ctxproxy would forward: the context it adds included, nothing sent to the model', async () => {
    const chats = fake.chats.length;
    const request = {
      model: MODEL,
      system: 'Be terse.',
      tools: [weather],
      messages: [{ role: 'user' as const, content: 'What are the rules of this repository?' }],
    };
    const off = await client.messages.countTokens({ ...request, model: `${MODEL}+off` });
    const { data: withContext, response } = await client.messages
      .countTokens(request, { headers: { 'X-Ctx-Mode': 'quick' } })
      .withResponse();
    assert.equal(response.headers.get('x-ctx-mode'), 'quick');
    const bare = await client.messages.countTokens({ model: `${MODEL}+off`, messages: request.messages });
    assert.ok(off.input_tokens > 0);
    assert.ok(off.input_tokens > bare.input_tokens, 'the system prompt and tools count');
    assert.ok(withContext.input_tokens > off.input_tokens, 'the repository context counts');
    assert.equal(fake.chats.length, chats, 'no model was asked');
  });
});
