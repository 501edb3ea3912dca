// LangChain (`@langchain/openai`) against the real server, as users wire it:
// `ChatOpenAI` with `configuration.baseURL` (chat completions, and the
// Responses API when `useResponsesApi` is on) and `OpenAIEmbeddings`. The fake
// Ollama plays the model; a real git repository supplies the context.
// Runs under Node and in the Deno suite.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AIMessage, type AIMessageChunk, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { ChatOpenAI, OpenAIEmbeddings } from '@langchain/openai';
import { z } from 'zod';
import { assertAuditMatchesUpstream } from '../support/auditMatchesUpstream.ts';
import { type ClientScene, type Sent, startClientScene, THINKER } from '../support/clientScene.ts';
import { DEFAULT_FAKE_CONTENT, type FakeOllama, fakeEmbedding } from '../support/fakeOllama.ts';
import type { RunningProxy } from '../support/proxy.ts';

const MODEL = 'qwen2.5-coder:7b';
const RULE = 'Prefer small pure functions.';
const BRANCH = 'feature/langchain';

let scene: ClientScene;
let fake: FakeOllama;
let proxy: RunningProxy;
let embedProxy: RunningProxy;

before(async () => {
  scene = await startClientScene({
    rule: RULE,
    branch: BRANCH,
    files: { 'lib/sum.py': 'def add(a, b):\n    return a + b\n' },
    unstaged: { 'lib/sum.py': 'def add(a, b):\n    return b + a\n' },
  });
  ({ fake, proxy, embedProxy } = scene);
});
after(() => scene.close());

const sentAt = (index: number) => scene.sentAt(index);
const lastSent = () => scene.lastSent();
const assertContext = (sent: Sent[]) => scene.assertContext(sent);
const assertNoContext = (sent: Sent[]) => scene.assertNoContext(sent);

/** The newest snapshot is the request just made, answered, with the messages the upstream got. */
async function assertLatestAudited(): Promise<void> {
  await proxy.store.flush();
  const [latest] = proxy.store.list({ limit: 1 });
  assert.ok(latest);
  const snapshot = proxy.store.get(latest.id);
  assert.equal(snapshot?.outcome, 'ok');
  assert.match(snapshot?.userAgent ?? '', /^langchainjs-openai\//, 'the request came from LangChain');
  assert.deepEqual(
    snapshot?.forwarded.map((m) => m.role),
    lastSent().map((m) => m.role),
  );
}

function assertNear(actual: number[], expected: number[]): void {
  assert.equal(actual.length, expected.length);
  for (const [i, value] of actual.entries()) assert.ok(Math.abs(value - (expected[i] as number)) < 1e-6);
}

async function scripted<T>(content: string, body: () => Promise<T>): Promise<T> {
  fake.reply(MODEL, { content });
  try {
    return await body();
  } finally {
    fake.reply(MODEL, {});
  }
}

const chat = (fields: { headers?: Record<string, string>; useResponsesApi?: boolean } = {}) =>
  new ChatOpenAI({
    model: MODEL,
    apiKey: 'local',
    maxRetries: 0,
    ...(fields.useResponsesApi ? { useResponsesApi: true } : {}),
    configuration: { baseURL: proxy.baseURL, ...(fields.headers ? { defaultHeaders: fields.headers } : {}) },
  });

const weather = tool(async ({ city }) => JSON.stringify({ city, celsius: 18 }), {
  name: 'get_weather',
  description: 'The weather in a city',
  schema: z.object({ city: z.string() }),
});

/** Model asks for the tool, the caller runs it and sends the result back; both requests checked upstream. */
async function assertToolRoundTrip(model: ChatOpenAI): Promise<void> {
  const bound = model.bindTools([weather]);
  const before = fake.chats.length;
  const messages: BaseMessage[] = [new HumanMessage('Weather in Oslo?')];
  fake.reply(MODEL, { toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] });
  const asked = await bound.invoke(messages).finally(() => fake.reply(MODEL, {}));
  assert.equal(asked.tool_calls?.length, 1);
  const call = asked.tool_calls?.[0];
  assert.equal(call?.name, 'get_weather');
  assert.deepEqual(call?.args, { city: 'Oslo' });
  assert.ok(call?.id, 'the call has an id to answer');
  const tools = fake.chats[before]?.body.tools as { function: { name: string } }[];
  assert.equal(tools[0]?.function.name, 'get_weather', 'the tool definition reached the model');
  assertContext(sentAt(before));

  const result = (await weather.invoke(call)) as ToolMessage;
  assert.ok(result instanceof ToolMessage);
  const answer = await bound.invoke([...messages, asked, result]);
  assert.equal(answer.text, DEFAULT_FAKE_CONTENT);
  const second = sentAt(before + 1);
  const assistant = second.find((m) => m.role === 'assistant');
  assert.equal(assistant?.tool_calls?.length, 1, 'the call is sent back');
  const output = second.find((m) => m.role === 'tool');
  assert.deepEqual(JSON.parse(output?.content ?? 'null'), { city: 'Oslo', celsius: 18 });
  assert.equal(output?.tool_name, 'get_weather');
}

describe('LangChain ChatOpenAI (chat completions)', () => {
  test('invoke: the text, the repository context upstream, the snapshot', async () => {
    const answer = await chat().invoke([new HumanMessage('What changed?')]);
    assert.equal(answer.content, DEFAULT_FAKE_CONTENT);
    // @langchain/core 1.4's declared type for usage_metadata resolves to undefined here; read the runtime shape.
    const usage = (answer as unknown as { usage_metadata?: { input_tokens: number; output_tokens: number } })
      .usage_metadata;
    assert.ok(usage && usage.input_tokens > 0 && usage.output_tokens > 0, 'usage comes back');
    assertContext(lastSent());
    await assertLatestAudited();
  });

  test('stream: the chunks add up to the reply', async () => {
    fake.reply(MODEL, { content: 'red green blue yellow' });
    let text = '';
    try {
      for await (const chunk of await chat().stream('colours')) text += String(chunk.content);
    } finally {
      fake.reply(MODEL, {});
    }
    assert.equal(text, 'red green blue yellow');
    assertContext(lastSent());
    await assertLatestAudited();
  });

  test('bindTools: a tool call round trip', async () => {
    await assertToolRoundTrip(chat());
  });

  test('stream with bound tools: the tool call arrives in chunks that concat to the call', async () => {
    fake.reply(MODEL, { toolCalls: [{ name: 'get_weather', arguments: { city: 'Lima' } }] });
    let whole: AIMessageChunk | undefined;
    try {
      for await (const chunk of await chat().bindTools([weather]).stream('Weather in Lima?')) {
        whole = whole ? whole.concat(chunk) : chunk;
      }
    } finally {
      fake.reply(MODEL, {});
    }
    assert.deepEqual(
      whole?.tool_calls?.map((c) => [c.name, c.args]),
      [['get_weather', { city: 'Lima' }]],
    );
    const usage = (whole as unknown as { usage_metadata?: { output_tokens: number } }).usage_metadata;
    assert.ok(usage && usage.output_tokens > 0, 'stream usage arrives (stream_options.include_usage)');
  });

  test('a second turn carries the first reply', async () => {
    const model = chat();
    const first = await model.invoke([new HumanMessage('My name is Ada.')]);
    await model.invoke([
      new HumanMessage('My name is Ada.'),
      new AIMessage(String(first.content)),
      new HumanMessage('Who am I?'),
    ]);
    const sent = lastSent().filter((m) => m.role !== 'system');
    assert.deepEqual(
      sent.map((m) => [m.role, m.content.replace(/\s*<context[\s\S]*$/, '')]),
      [
        ['user', 'My name is Ada.'],
        ['assistant', DEFAULT_FAKE_CONTENT],
        ['user', 'Who am I?'],
      ],
    );
  });

  test('configuration.defaultHeaders X-Ctx-Mode: off sends nothing collected (invoke, stream, tools)', async () => {
    const off = chat({ headers: { 'X-Ctx-Mode': 'off' } });
    const before = fake.chats.length;
    await off.invoke('What changed on this branch?');
    for await (const _chunk of await off.stream('and now?')) {
      // drain
    }
    await off.bindTools([weather]).invoke('Weather in Oslo?');
    assert.equal(fake.chats.length, before + 3);
    for (let i = before; i < fake.chats.length; i++) assertNoContext(sentAt(i));
    await proxy.store.flush();
    const [latest] = proxy.store.list({ limit: 1 });
    assert.equal(latest?.modeUsed, 'off');
  });
});

describe('LangChain ChatOpenAI with useResponsesApi (POST /v1/responses)', () => {
  test('invoke and stream', async () => {
    const model = chat({ useResponsesApi: true });
    const answer = await model.invoke('What changed?');
    assert.equal(answer.text, DEFAULT_FAKE_CONTENT);
    assertContext(lastSent());
    await assertLatestAudited();
    let text = '';
    for await (const chunk of await model.stream('again')) text += chunk.text;
    assert.equal(text, DEFAULT_FAKE_CONTENT);
  });

  test('bindTools: a tool call round trip', async () => {
    await assertToolRoundTrip(chat({ useResponsesApi: true }));
  });

  test('a second turn sends back the AIMessage the first turn returned', async () => {
    const model = chat({ useResponsesApi: true });
    const question = new HumanMessage('My name is Ada.');
    const first = await scripted('Hello Ada.', () => model.invoke([question]));
    await model.invoke([question, first, new HumanMessage('Who am I?')]);
    const sent = lastSent().filter((m) => m.role !== 'system');
    assert.deepEqual(
      sent.map((m) => [m.role, m.content.replace(/\s*<context[\s\S]*$/, '')]),
      [
        ['user', 'My name is Ada.'],
        ['assistant', 'Hello Ada.'],
        ['user', 'Who am I?'],
      ],
    );
  });

  test('X-Ctx-Mode: off sends nothing collected', async () => {
    const before = fake.chats.length;
    await chat({ useResponsesApi: true, headers: { 'X-Ctx-Mode': 'off' } }).invoke('What changed?');
    assert.equal(fake.chats.length, before + 1);
    assertNoContext(lastSent());
  });
});

test("the model's thinking reaches LangChain, over chat completions and the Responses API", async () => {
  fake.reply(THINKER, { thinking: 'Read the diff first.', content: 'Done.' });
  try {
    const base = { model: THINKER, apiKey: 'local', maxRetries: 0, configuration: { baseURL: proxy.baseURL } };
    const viaChat = await new ChatOpenAI(base).invoke('Why?');
    assert.equal(viaChat.text, 'Done.');
    assert.equal(viaChat.additional_kwargs.reasoning_content, 'Read the diff first.');
    const viaResponses = await new ChatOpenAI({ ...base, useResponsesApi: true }).invoke('Why?');
    assert.equal(viaResponses.text, 'Done.');
    const reasoning = viaResponses.contentBlocks.find((block) => block.type === 'reasoning');
    assert.equal(reasoning?.reasoning, 'Read the diff first.');
  } finally {
    fake.reply(THINKER, {});
  }
});

test('OpenAIEmbeddings: embedQuery and embedDocuments', async () => {
  const embeddings = new OpenAIEmbeddings({
    model: MODEL,
    apiKey: 'local',
    maxRetries: 0,
    configuration: { baseURL: embedProxy.baseURL },
  });
  const vector = await embeddings.embedQuery('where is add defined?');
  const expected = fakeEmbedding('where is add defined?', 8);
  assertNear(vector, expected);
  const many = await embeddings.embedDocuments(['one', 'two']);
  assert.equal(many.length, 2);
  assert.deepEqual(fake.embeds.at(-1)?.body.input, ['one', 'two']);
  await embedProxy.store.flush();
  assert.ok(embedProxy.store.list({ limit: 10 }).every((s) => s.outcome === 'ok'));
});

test('every snapshot of this suite holds the messages the upstream received, its context accounted for', async () => {
  const checked = await assertAuditMatchesUpstream(proxy, fake);
  assert.ok(checked.snapshots >= 12, `checked ${checked.snapshots} snapshots`);
  assert.ok(checked.parts > 0);
});
