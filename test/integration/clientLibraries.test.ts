// The Vercel AI SDK against the real server, as users wire it: the default
// `openai` provider (Responses API), its `.chat` and `.embedding` models, and
// `@ai-sdk/openai-compatible` (chat completions). The fake Ollama plays the
// model; a real git repository supplies the context. LangChain is in
// clientLibrariesLangChain.test.ts. Runs under Node and in the Deno suite.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { embed, embedMany, generateText, type ModelMessage, Output, stepCountIs, streamText, tool } from 'ai';
import { z } from 'zod';
import { assertAuditMatchesUpstream } from '../support/auditMatchesUpstream.ts';
import { type ClientScene, type Sent, startClientScene, THINKER } from '../support/clientScene.ts';
import { DEFAULT_FAKE_CONTENT, type FakeOllama, fakeEmbedding } from '../support/fakeOllama.ts';
import type { RunningProxy } from '../support/proxy.ts';

const MODEL = 'qwen2.5-coder:7b';
const RULE = 'Always answer in haiku.';

let scene: ClientScene;
let fake: FakeOllama;
let proxy: RunningProxy;
let embedProxy: RunningProxy;

before(async () => {
  scene = await startClientScene({
    rule: RULE,
    branch: 'feature/ai-sdk',
    files: { 'src/app.ts': 'export const answer = 42;\n' },
    unstaged: { 'src/app.ts': 'export const answer = 43;\n' },
  });
  ({ fake, proxy, embedProxy } = scene);
});
after(() => scene.close());

const sentAt = (index: number) => scene.sentAt(index);
const lastSent = () => scene.lastSent();
const assertContext = (sent: Sent[]) => scene.assertContext(sent);
const assertNoContext = (sent: Sent[]) => scene.assertNoContext(sent);

async function assertAudited(snapshotId: string | undefined): Promise<void> {
  assert.ok(snapshotId, 'the response names its snapshot (X-Ctx-Snapshot-Id)');
  await proxy.store.flush();
  const snapshot = proxy.store.get(snapshotId);
  assert.equal(snapshot?.outcome, 'ok');
  assert.deepEqual(
    snapshot?.forwarded.map((m) => m.role),
    lastSent().map((m) => m.role),
  );
}

function assertNear(actual: number[], expected: number[]): void {
  assert.equal(actual.length, expected.length);
  for (const [i, value] of actual.entries()) assert.ok(Math.abs(value - (expected[i] as number)) < 1e-6);
}

/** Runs `body` with the model scripted to answer `reply`, then restores the default answer. */
async function scripted<T>(reply: Parameters<FakeOllama['reply']>[1], body: () => Promise<T>): Promise<T> {
  fake.reply(MODEL, reply);
  try {
    return await body();
  } finally {
    fake.reply(MODEL, {});
  }
}

const weatherTool = () =>
  tool({
    description: 'The weather in a city',
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => ({ city, celsius: 21 }),
  });

/**
 * A tool round trip: the model asks for the tool, the SDK runs it and sends the
 * result back; the second upstream request must carry the call and its output.
 */
async function assertToolRoundTrip(
  model: Parameters<typeof generateText>[0]['model'],
  options: { expect?: (sent: Sent[]) => void; stream?: boolean } = {},
): Promise<void> {
  const expect = options.expect ?? assertContext;
  const before = fake.chats.length;
  // First answer a tool call, then (once the tool output is in) plain text.
  fake.reply(MODEL, { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] });
  let calls = 0;
  const settings = {
    model,
    prompt: 'Weather in Paris?',
    tools: { get_weather: weatherTool() },
    stopWhen: stepCountIs(3),
    prepareStep: () => {
      calls += 1;
      if (calls === 2) fake.reply(MODEL, { content: 'It is 21 degrees in Paris.' });
      return undefined;
    },
  };
  const result = await (async () => {
    if (!options.stream) return generateText(settings);
    const streamed = streamText(settings);
    return { text: await streamed.text, steps: await streamed.steps };
  })().finally(() => fake.reply(MODEL, {}));
  assert.equal(result.text, 'It is 21 degrees in Paris.');
  assert.equal(result.steps.length, 2);
  assert.deepEqual(
    result.steps[0]?.toolCalls.map((c) => [c.toolName, c.input]),
    [['get_weather', { city: 'Paris' }]],
  );
  assert.equal(fake.chats.length, before + 2);
  const first = sentAt(before);
  const tools = fake.chats[before]?.body.tools as { function: { name: string } }[];
  assert.equal(tools[0]?.function.name, 'get_weather', 'the tool definition reached the model');
  expect(first);
  const second = sentAt(before + 1);
  expect(second);
  const assistant = second.find((m) => m.role === 'assistant');
  assert.equal(assistant?.tool_calls?.length, 1, 'the call is sent back');
  const output = second.find((m) => m.role === 'tool');
  assert.deepEqual(JSON.parse(output?.content ?? 'null'), { city: 'Paris', celsius: 21 });
  assert.equal(output?.tool_name, 'get_weather');
}

describe('AI SDK default provider (createOpenAI → Responses API)', () => {
  const provider = () => createOpenAI({ baseURL: proxy.baseURL, apiKey: 'local' });

  test('generateText: the text, the repository context upstream, the snapshot', async () => {
    const result = await generateText({ model: provider()(MODEL), system: 'Be brief.', prompt: 'What changed?' });
    assert.equal(result.text, DEFAULT_FAKE_CONTENT);
    assert.ok((result.usage.inputTokens ?? 0) > 0 && (result.usage.outputTokens ?? 0) > 0);
    const sent = lastSent();
    assertContext(sent);
    assert.ok(JSON.stringify(sent).includes('Be brief.'));
    assert.equal(sent.at(-1)?.role, 'user');
    assert.equal(result.response.headers?.['x-ctx-mode'], 'git-aware');
    await assertAudited(result.response.headers?.['x-ctx-snapshot-id']);
  });

  test('streamText: the text stream adds up to the reply', async () => {
    const text = await scripted({ content: 'one two three four five' }, async () => {
      const result = streamText({ model: provider()(MODEL), prompt: 'count' });
      let collected = '';
      for await (const piece of result.textStream) collected += piece;
      assert.equal(await result.text, collected);
      assert.ok(((await result.usage).outputTokens ?? 0) > 0, 'usage arrives with the stream');
      return collected;
    });
    assert.equal(text, 'one two three four five');
    assertContext(lastSent());
  });

  test('a tool call round trip (zod schema, execute, result sent back)', async () => {
    await assertToolRoundTrip(provider()(MODEL));
  });

  test('a tool call round trip with streamText', async () => {
    await assertToolRoundTrip(provider()(MODEL), { stream: true });
  });

  test('multi-turn with store on: the SDK sends the earlier reply as an item_reference, the model gets its text', async () => {
    const bodies: { input?: { type?: string; role?: string }[] }[] = [];
    const recording: typeof fetch = async (url, init) => {
      if (typeof init?.body === 'string') bodies.push(JSON.parse(init.body));
      return fetch(url, init);
    };
    const model = createOpenAI({ baseURL: proxy.baseURL, apiKey: 'local', fetch: recording })(MODEL);
    const messages: ModelMessage[] = [{ role: 'user', content: 'My name is Ada.' }];
    const first = await scripted({ content: 'Nice to meet you, Ada.' }, () => generateText({ model, messages }));
    messages.push(...first.response.messages, { role: 'user', content: 'What is my name?' });
    await generateText({ model, messages });
    const sent = lastSent().filter((m) => m.role !== 'system');
    assert.deepEqual(
      sent.map((m) => [m.role, m.content.replace(/\s*<context[\s\S]*$/, '')]),
      [
        ['user', 'My name is Ada.'],
        ['assistant', 'Nice to meet you, Ada.'],
        ['user', 'What is my name?'],
      ],
    );
    assert.deepEqual(
      bodies.at(-1)?.input?.map((item) => item.type ?? item.role),
      ['user', 'item_reference', 'user'],
      'the SDK referred to its earlier reply by id',
    );
  });

  test('structured output (Output.object): the schema reaches Ollama as format, the object comes back', async () => {
    const result = await scripted({ content: '{"city":"Paris","celsius":21}' }, () =>
      generateText({
        model: provider()(MODEL),
        prompt: 'Weather in Paris as JSON',
        output: Output.object({ schema: z.object({ city: z.string(), celsius: z.number() }) }),
      }),
    );
    assert.deepEqual(result.output, { city: 'Paris', celsius: 21 });
    const format = fake.chats.at(-1)?.body.format as { type?: string; properties?: Record<string, unknown> };
    assert.equal(format?.type, 'object');
    assert.deepEqual(Object.keys(format?.properties ?? {}).sort(), ['celsius', 'city']);
  });

  test('providerOptions.openai.previousResponseId continues the conversation', async () => {
    const model = provider()(MODEL);
    const first = await scripted({ content: 'Noted, Grace.' }, () => generateText({ model, prompt: 'I am Grace.' }));
    const responseId = first.providerMetadata?.openai?.responseId;
    assert.equal(typeof responseId, 'string');
    await generateText({
      model,
      prompt: 'Who am I?',
      providerOptions: { openai: { previousResponseId: responseId as string } },
    });
    const sent = lastSent().filter((m) => m.role !== 'system');
    assert.deepEqual(
      sent.map((m) => [m.role, m.content.replace(/\s*<context[\s\S]*$/, '')]),
      [
        ['user', 'I am Grace.'],
        ['assistant', 'Noted, Grace.'],
        ['user', 'Who am I?'],
      ],
    );
  });

  test("the model's thinking reaches the SDK as reasoning, streamed and not (it reads the item's summary)", async () => {
    fake.reply(THINKER, { thinking: 'First, look at the diff.', content: 'The answer.' });
    try {
      const result = await generateText({ model: provider()(THINKER), prompt: 'Why?' });
      assert.equal(result.text, 'The answer.');
      assert.equal(result.reasoningText, 'First, look at the diff.');
      const streamed = streamText({ model: provider()(THINKER), prompt: 'Why?' });
      assert.equal(await streamed.text, 'The answer.');
      assert.equal(await streamed.reasoningText, 'First, look at the diff.');
      // The openai SDK's own stream helper accepts the same events.
      const final = await proxy.client().responses.stream({ model: THINKER, input: 'Why?' }).finalResponse();
      const reasoning = final.output.find((item) => item.type === 'reasoning');
      assert.deepEqual(reasoning?.type === 'reasoning' && reasoning.summary, [
        { type: 'summary_text', text: 'First, look at the diff.' },
      ]);
      const message = final.output.find((item) => item.type === 'message');
      assert.deepEqual(
        message?.type === 'message' && message.content.map((part) => part.type === 'output_text' && part.text),
        ['The answer.'],
      );
    } finally {
      fake.reply(THINKER, {});
    }
  });

  test('provider.chat(model): generateText over chat completions', async () => {
    const result = await generateText({ model: provider().chat(MODEL), prompt: 'hello' });
    assert.equal(result.text, DEFAULT_FAKE_CONTENT);
    assertContext(lastSent());
    await assertAudited(result.response.headers?.['x-ctx-snapshot-id']);
  });

  test('provider.embedding(model): embed and embedMany', async () => {
    const model = createOpenAI({ baseURL: embedProxy.baseURL, apiKey: 'local' }).embedding(MODEL);
    const one = await embed({ model, value: 'hello world' });
    const id = one.response?.headers?.['x-ctx-snapshot-id'];
    assert.ok(id, 'the embedding response names its snapshot');
    await embedProxy.store.flush();
    assert.equal(embedProxy.store.get(id)?.outcome, 'ok');
    const expected = fakeEmbedding('hello world', 8);
    assertNear(one.embedding, expected);
    const many = await embedMany({ model, values: ['a', 'b', 'c'] });
    assert.equal(many.embeddings.length, 3);
    assert.deepEqual(fake.embeds.at(-1)?.body.input, ['a', 'b', 'c']);
  });

  test('X-Ctx-Mode: off in the provider headers sends nothing collected, in every turn and tool step', async () => {
    const off = createOpenAI({ baseURL: proxy.baseURL, apiKey: 'local', headers: { 'X-Ctx-Mode': 'off' } });
    const before = fake.chats.length;
    const messages: ModelMessage[] = [{ role: 'user', content: 'What changed in this branch?' }];
    const first = await generateText({ model: off(MODEL), messages });
    assert.equal(first.response.headers?.['x-ctx-mode'], 'off');
    messages.push(...first.response.messages, { role: 'user', content: 'And before that?' });
    await generateText({ model: off(MODEL), messages });
    const streamed = streamText({ model: off.chat(MODEL), prompt: 'stream please' });
    await streamed.consumeStream();
    assert.equal(fake.chats.length, before + 3);
    for (let i = before; i < fake.chats.length; i++) assertNoContext(sentAt(i));
    await assertToolRoundTrip(off(MODEL), { expect: assertNoContext });
  });
});

describe('AI SDK @ai-sdk/openai-compatible (chat completions)', () => {
  const provider = (headers?: Record<string, string>) =>
    createOpenAICompatible({
      name: 'ctxproxy',
      baseURL: proxy.baseURL,
      includeUsage: true,
      ...(headers ? { headers } : {}),
    });

  test('generateText: the text, the repository context upstream, the snapshot', async () => {
    const result = await generateText({ model: provider()(MODEL), prompt: 'What changed?' });
    assert.equal(result.text, DEFAULT_FAKE_CONTENT);
    assertContext(lastSent());
    await assertAudited(result.response.headers?.['x-ctx-snapshot-id']);
  });

  test('streamText: the text stream adds up to the reply', async () => {
    const text = await scripted({ content: 'alpha beta gamma delta' }, async () => {
      const result = streamText({ model: provider()(MODEL), prompt: 'list' });
      let collected = '';
      for await (const piece of result.textStream) collected += piece;
      assert.ok(((await result.usage).outputTokens ?? 0) > 0, 'usage arrives with the stream (includeUsage)');
      return collected;
    });
    assert.equal(text, 'alpha beta gamma delta');
    assertContext(lastSent());
  });

  test('a tool call round trip (zod schema, execute, result sent back)', async () => {
    await assertToolRoundTrip(provider()(MODEL));
  });

  test('a tool call round trip with streamText', async () => {
    await assertToolRoundTrip(provider()(MODEL), { stream: true });
  });

  test('structured output (Output.object) over chat completions', async () => {
    const result = await scripted({ content: '{"city":"Oslo","celsius":18}' }, () =>
      generateText({
        model: createOpenAICompatible({ name: 'ctxproxy', baseURL: proxy.baseURL, supportsStructuredOutputs: true })(
          MODEL,
        ),
        prompt: 'Weather in Oslo as JSON',
        output: Output.object({ schema: z.object({ city: z.string(), celsius: z.number() }) }),
      }),
    );
    assert.deepEqual(result.output, { city: 'Oslo', celsius: 18 });
    const format = fake.chats.at(-1)?.body.format as { type?: string };
    assert.equal(format?.type, 'object');
  });

  test("the model's thinking reaches the SDK as reasoning (reasoning_content)", async () => {
    fake.reply(THINKER, { thinking: 'Check the branch.', content: 'Done.' });
    try {
      const result = await generateText({ model: provider()(THINKER), prompt: 'Why?' });
      assert.deepEqual([result.text, result.reasoningText], ['Done.', 'Check the branch.']);
      const streamed = streamText({ model: provider()(THINKER), prompt: 'Why?' });
      assert.deepEqual([await streamed.text, await streamed.reasoningText], ['Done.', 'Check the branch.']);
    } finally {
      fake.reply(THINKER, {});
    }
  });

  test('embed through the compatible provider', async () => {
    const compatible = createOpenAICompatible({ name: 'ctxproxy', baseURL: embedProxy.baseURL });
    const one = await embed({ model: compatible.embeddingModel(MODEL), value: 'compatible' });
    assert.equal(one.embedding.length, 8);
    assert.equal(fake.embeds.at(-1)?.body.input?.toString(), 'compatible');
  });

  test('X-Ctx-Mode: off in the provider headers sends nothing collected', async () => {
    const before = fake.chats.length;
    const result = await generateText({ model: provider({ 'X-Ctx-Mode': 'off' })(MODEL), prompt: 'What changed?' });
    assert.equal(result.response.headers?.['x-ctx-mode'], 'off');
    const streamed = streamText({ model: provider({ 'X-Ctx-Mode': 'off' })(MODEL), prompt: 'again' });
    await streamed.consumeStream();
    assert.equal(fake.chats.length, before + 2);
    for (let i = before; i < fake.chats.length; i++) assertNoContext(sentAt(i));
    await assertToolRoundTrip(provider({ 'X-Ctx-Mode': 'off' })(MODEL), { expect: assertNoContext });
  });
});

test('every snapshot of this suite holds the messages the upstream received, its context accounted for', async () => {
  const checked = await assertAuditMatchesUpstream(proxy, fake);
  assert.ok(checked.snapshots >= 15, `checked ${checked.snapshots} snapshots`);
  assert.ok(checked.parts > 0);
});
