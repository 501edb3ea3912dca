// POST /v1/responses through the real server with the real `openai` client:
// responses.create (stream and not), responses.stream, function tools and
// their outputs, previous_response_id and item_reference, on the chat pipeline.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { DEFAULT_FAKE_CONTENT, type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { makeRepo, type TempRepo } from '../support/gitRepo.ts';
import { type RunningProxy, startProxy } from '../support/proxy.ts';

const MODEL = 'qwen2.5-coder:7b';
const TOKEN = 'ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
type Sent = { role: string; content: string; tool_calls?: unknown[]; tool_name?: string };

let fake: FakeOllama;
let repo: TempRepo;
let proxy: RunningProxy;
let client: OpenAI;

before(async () => {
  fake = await startFakeOllama();
  repo = makeRepo({ files: { 'CLAUDE.md': 'Use tabs, never spaces.\n', 'index.js': 'console.log(1);\n' } });
  proxy = await startProxy({ upstreamUrl: fake.url, workspace: repo.dir });
  client = proxy.client();
});
after(async () => {
  await proxy.close();
  await fake.close();
  repo.cleanup();
});

const lastSent = () => (fake.chats.at(-1)?.body.messages ?? []) as Sent[];
const weather = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: false,
};

describe('responses.create', () => {
  test('non-streaming: a response object with output_text, usage, the ctx headers, and the same context as chat', async () => {
    const { data, response } = await client.responses
      .create(
        { model: MODEL, instructions: 'Answer briefly.', input: `What are the rules? my token is ${TOKEN}` },
        { headers: { 'X-Ctx-Mode': 'quick' } },
      )
      .withResponse();
    assert.match(data.id, /^resp_/);
    assert.equal(data.object, 'response');
    assert.equal(data.status, 'completed');
    assert.equal(data.output_text, DEFAULT_FAKE_CONTENT);
    assert.equal(data.output[0]?.type, 'message');
    assert.ok(data.usage && data.usage.input_tokens > 0 && data.usage.output_tokens > 0);
    assert.equal(data.usage.total_tokens, data.usage.input_tokens + data.usage.output_tokens);
    assert.equal(response.headers.get('x-ctx-mode'), 'quick');

    const sent = lastSent();
    const all = JSON.stringify(sent);
    assert.match(all, /Answer briefly\./, 'instructions are sent');
    assert.match(all, /Use tabs, never spaces\./, 'the repository context is added as for chat');
    assert.doesNotMatch(all, new RegExp(TOKEN), 'the input is redacted');
    assert.equal(sent.at(-1)?.role, 'user');

    const id = response.headers.get('x-ctx-snapshot-id');
    assert.ok(id);
    await proxy.store.flush();
    const snapshot = proxy.store.get(id);
    assert.equal(snapshot?.outcome, 'ok');
    assert.equal(snapshot?.reply.content, DEFAULT_FAKE_CONTENT);
    assert.deepEqual(JSON.parse(JSON.stringify(snapshot?.forwarded)).length, sent.length);
  });

  test('streaming: the Responses event sequence, deltas that add up, and response.completed with usage', async () => {
    fake.reply(MODEL, { content: 'one two three four' });
    try {
      const stream = await client.responses.create({ model: MODEL, input: 'count', stream: true });
      const types: string[] = [];
      let text = '';
      let completed: OpenAI.Responses.Response | undefined;
      let last = -1;
      for await (const event of stream) {
        types.push(event.type);
        assert.ok(event.sequence_number > last, 'sequence numbers increase');
        last = event.sequence_number;
        if (event.type === 'response.output_text.delta') text += event.delta;
        if (event.type === 'response.completed') completed = event.response;
      }
      assert.equal(text, 'one two three four');
      const distinct = types.filter((type, i) => type !== types[i - 1]);
      assert.deepEqual(distinct, [
        'response.created',
        'response.in_progress',
        'response.output_item.added',
        'response.content_part.added',
        'response.output_text.delta',
        'response.output_text.done',
        'response.content_part.done',
        'response.output_item.done',
        'response.completed',
      ]);
      assert.ok(completed?.usage && completed.usage.output_tokens > 0);
      assert.equal(completed?.output[0]?.type, 'message');
    } finally {
      fake.reply(MODEL, {});
    }
  });

  test('responses.stream: delta events and the final response', async () => {
    const stream = client.responses.stream({ model: MODEL, input: 'hi' });
    const deltas: string[] = [];
    stream.on('response.output_text.delta', (event) => deltas.push(event.delta));
    const final = await stream.finalResponse();
    const message = final.output[0];
    assert.ok(message?.type === 'message' && message.content[0]?.type === 'output_text');
    assert.equal(message.content[0].text, DEFAULT_FAKE_CONTENT);
    assert.equal(deltas.join(''), DEFAULT_FAKE_CONTENT);
  });
});

describe('function tools', () => {
  test('a tool call comes back as a function_call item, and its output goes to the model as a tool message', async () => {
    fake.reply(MODEL, { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] });
    let first: OpenAI.Responses.Response;
    try {
      first = await client.responses.create({ model: MODEL, input: 'Weather in Paris?', tools: [weather] });
    } finally {
      fake.reply(MODEL, {});
    }
    const call = first.output.find((item) => item.type === 'function_call');
    assert.ok(call && call.type === 'function_call');
    assert.equal(call.name, 'get_weather');
    assert.deepEqual(JSON.parse(call.arguments), { city: 'Paris' });
    assert.ok(call.call_id);
    const tools = fake.chats.at(-1)?.body.tools as { function: { name: string } }[];
    assert.equal(tools[0]?.function.name, 'get_weather');

    const second = await client.responses.create({
      model: MODEL,
      tools: [weather],
      input: [
        { role: 'user', content: 'Weather in Paris?' },
        call,
        { type: 'function_call_output', call_id: call.call_id, output: '{"celsius":21}' },
      ],
    });
    assert.equal(second.output_text, DEFAULT_FAKE_CONTENT);
    const sent = lastSent();
    const assistant = sent.find((m) => m.role === 'assistant');
    assert.ok(assistant?.tool_calls?.length === 1);
    const tool = sent.find((m) => m.role === 'tool');
    assert.equal(tool?.content, '{"celsius":21}');
    assert.equal(tool?.tool_name, 'get_weather');
  });

  test('streaming tool calls arrive as function_call items with their arguments', async () => {
    fake.reply(MODEL, { toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] });
    try {
      const stream = client.responses.stream({ model: MODEL, input: 'Weather in Oslo?', tools: [weather] });
      let args = '';
      stream.on('response.function_call_arguments.delta', (event) => {
        args += event.delta;
      });
      const final = await stream.finalResponse();
      const call = final.output.find((item) => item.type === 'function_call');
      assert.ok(call && call.type === 'function_call');
      assert.deepEqual(JSON.parse(call.arguments), { city: 'Oslo' });
      assert.equal(args, call.arguments);
    } finally {
      fake.reply(MODEL, {});
    }
  });
});

describe('previous_response_id and item_reference', () => {
  test('a follow-up with previous_response_id sends the earlier turns again', async () => {
    const first = await client.responses.create({ model: MODEL, input: 'My name is Ada.' });
    await client.responses.create({ model: MODEL, input: 'What is my name?', previous_response_id: first.id });
    const sent = lastSent().filter((m) => m.role !== 'system');
    assert.deepEqual(
      sent.map((m) => [m.role, m.content.replace(/\s*<context[\s\S]*$/, '')]),
      [
        ['user', 'My name is Ada.'],
        ['assistant', DEFAULT_FAKE_CONTENT],
        ['user', 'What is my name?'],
      ],
    );
  });

  test('an unknown previous_response_id, or one stored with store: false, is a 400 saying to resend the input', async () => {
    const unstored = await client.responses.create({ model: MODEL, input: 'hi', store: false });
    for (const id of ['resp_nope', unstored.id]) {
      const error = await client.responses
        .create({ model: MODEL, input: 'again', previous_response_id: id })
        .catch((e: unknown) => e);
      assert.ok(error instanceof OpenAI.BadRequestError);
      assert.match(error.message, /Resend the whole conversation in input/);
      assert.equal(error.code, 'previous_response_not_found');
    }
  });

  test('an item_reference to an earlier function call is resolved', async () => {
    fake.reply(MODEL, { toolCalls: [{ name: 'get_weather', arguments: { city: 'Rome' } }] });
    let first: OpenAI.Responses.Response;
    try {
      first = await client.responses.create({ model: MODEL, input: 'Weather in Rome?', tools: [weather] });
    } finally {
      fake.reply(MODEL, {});
    }
    const call = first.output.find((item) => item.type === 'function_call');
    assert.ok(call && call.type === 'function_call' && call.id);
    await client.responses.create({
      model: MODEL,
      tools: [weather],
      input: [
        { role: 'user', content: 'Weather in Rome?' },
        { type: 'item_reference', id: call.id },
        { type: 'function_call_output', call_id: call.call_id, output: 'sunny' },
      ],
    });
    const sent = lastSent();
    assert.ok(sent.some((m) => m.role === 'assistant' && m.tool_calls?.length === 1));
    assert.equal(sent.find((m) => m.role === 'tool')?.tool_name, 'get_weather');
  });
});

test('item references to an earlier assistant message (the AI SDK with store on) are resolved; unknown ones are a 400', async () => {
  const first = await client.responses.create({ model: MODEL, input: 'Say hello.' });
  const message = first.output.find((item) => item.type === 'message');
  assert.ok(message?.id);
  await client.responses.create({
    model: MODEL,
    input: [
      { role: 'user', content: [{ type: 'input_text', text: 'Say hello.' }] },
      { type: 'item_reference', id: 'rs_unknown_reasoning' },
      { type: 'item_reference', id: message.id },
      { role: 'user', content: [{ type: 'input_text', text: 'Again.' }] },
    ],
  });
  const sent = lastSent().filter((m) => m.role !== 'system');
  assert.deepEqual(
    sent.map((m) => m.role),
    ['user', 'assistant', 'user'],
  );
  assert.equal(sent[1]?.content, DEFAULT_FAKE_CONTENT);
  const error = await client.responses
    .create({ model: MODEL, input: [{ type: 'item_reference', id: 'msg_unknown' }] })
    .catch((e: unknown) => e);
  assert.ok(error instanceof OpenAI.BadRequestError);
  assert.match(error.message, /item_reference "msg_unknown" is not known/);
});

describe('failures', () => {
  test('a model failing mid-stream ends the stream with an error event and response.failed, and is audited', async () => {
    fake.reply(MODEL, { content: 'one two three four', errorAfterChunks: 2 });
    try {
      const { data: stream, response } = await client.responses
        .create({ model: MODEL, input: 'count', stream: true })
        .withResponse();
      const types: string[] = [];
      for await (const event of stream) types.push(event.type);
      assert.deepEqual(types.slice(-2), ['error', 'response.failed']);
      assert.ok(!types.includes('response.completed'));
      const id = response.headers.get('x-ctx-snapshot-id');
      assert.ok(id);
      await proxy.store.flush();
      assert.equal(proxy.store.get(id)?.outcome, 'error');
    } finally {
      fake.reply(MODEL, {});
    }
  });

  test('an unknown model is a 404 before any stream starts', async () => {
    const error = await client.responses
      .create({ model: 'nope:1b', input: 'x', stream: true })
      .catch((e: unknown) => e);
    assert.ok(error instanceof OpenAI.NotFoundError);
    assert.match(error.message, /ollama pull nope:1b/);
  });
});

describe('the audit records what the model received', () => {
  test('a developer message is recorded as the system message the model got, role and text, on both routes', async () => {
    const input = [
      {
        type: 'message' as const,
        role: 'developer' as const,
        content: [{ type: 'input_text' as const, text: 'be terse' }],
      },
      { type: 'message' as const, role: 'user' as const, content: 'hello' },
    ];
    const viaResponses = await client.responses.create({ model: MODEL, input }).withResponse();
    const responsesSnapshot = await proxy.snapshotOf(viaResponses.response);
    const responsesSent = lastSent();
    const viaChat = await client.chat.completions
      .create({
        model: MODEL,
        messages: [
          { role: 'developer', content: 'be terse' },
          { role: 'user', content: 'hello' },
        ],
      })
      .withResponse();
    const chatSnapshot = await proxy.snapshotOf(viaChat.response);
    const chatSent = lastSent();
    for (const [snapshot, sent] of [
      [responsesSnapshot, responsesSent],
      [chatSnapshot, chatSent],
    ] as const) {
      assert.ok(!snapshot.forwarded.some((m) => m.role === 'developer'), 'no role the model never saw');
      assert.deepEqual(
        snapshot.forwarded.map((m) => [m.role, m.content]),
        sent.map((m) => [m.role, m.content]),
      );
      assert.ok(sent.some((m) => m.role === 'system' && m.content.includes('be terse')));
    }
  });
});
