// X-Ctx-Workspace lets a client pick another repository inside the allowed
// roots (issue 24, items 6 and 7): a Responses conversation made in one
// workspace cannot be continued, or its items referenced, from another; and an
// allowed root of `/` admits every folder. The real server, the real `openai`
// client, the fake Ollama.

import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { makeRepo, type TempRepo } from '../support/gitRepo.ts';
import { type RunningProxy, startProxy } from '../support/proxy.ts';

const MODEL = 'qwen2.5-coder:7b';
const FACT = 'The launch code of project A is 4417.';

let fake: FakeOllama;
let repoA: TempRepo;
let repoB: TempRepo;

before(async () => {
  fake = await startFakeOllama();
  repoA = makeRepo({ files: { 'a.js': 'export const a = 1;\n' } });
  repoB = makeRepo({ files: { 'b.js': 'export const b = 2;\n' } });
});
after(async () => {
  await fake.close();
  repoA.cleanup();
  repoB.cleanup();
});

const sentSince = (count: number) => JSON.stringify(fake.chats.slice(count).map((chat) => chat.body));

describe('a stored Responses conversation stays in its workspace', () => {
  let proxy: RunningProxy;
  let client: OpenAI;
  before(async () => {
    proxy = await startProxy({
      upstreamUrl: fake.url,
      workspace: repoA.dir,
      settings: { allowedRoots: [path.dirname(repoB.dir)] },
    });
    client = proxy.client();
  });
  after(() => proxy.close());

  const inB = () => ({ headers: { 'X-Ctx-Workspace': repoB.dir } });

  test('previous_response_id from another workspace is unknown there: a 400, and nothing of it is sent', async () => {
    const first = await client.responses.create({ model: MODEL, input: FACT });
    const before = fake.chats.length;
    const error = await client.responses
      .create({ model: MODEL, input: 'What is the launch code?', previous_response_id: first.id }, inB())
      .catch((e: unknown) => e);
    assert.ok(error instanceof OpenAI.BadRequestError, String(error));
    assert.equal(error.code, 'previous_response_not_found');
    assert.equal(error.param, 'previous_response_id');
    assert.ok(!sentSince(before).includes('4417'));

    // The same answer as for an id never made: another workspace learns nothing of it.
    const unknown = await client.responses
      .create({ model: MODEL, input: 'again', previous_response_id: 'resp_never_made' }, inB())
      .catch((e: unknown) => e);
    assert.ok(unknown instanceof OpenAI.BadRequestError);
    assert.equal(unknown.message.replace('resp_never_made', first.id), error.message);

    // In its own workspace, named or not, it still continues.
    await client.responses.create(
      { model: MODEL, input: 'What is the launch code?', previous_response_id: first.id },
      { headers: { 'X-Ctx-Workspace': repoA.dir } },
    );
    assert.ok(sentSince(before).includes('4417'));
  });

  test("an item_reference to another workspace's output item is unknown there", async () => {
    const first = await client.responses.create({ model: MODEL, input: FACT });
    const item = first.output.find((output) => output.type === 'message');
    assert.ok(item?.id);
    const before = fake.chats.length;
    const error = await client.responses
      .create(
        {
          model: MODEL,
          input: [
            { type: 'item_reference', id: item.id },
            { role: 'user', content: 'go on' },
          ],
        },
        inB(),
      )
      .catch((e: unknown) => e);
    assert.ok(error instanceof OpenAI.BadRequestError, String(error));
    assert.equal(error.code, 'item_not_found');
    assert.equal(fake.chats.length, before, 'nothing was forwarded');
  });

  test('the refused request is still audited', async () => {
    const response = await fetch(`${proxy.baseURL}/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-ctx-workspace': repoB.dir },
      body: JSON.stringify({ model: MODEL, input: 'hi', previous_response_id: 'resp_elsewhere' }),
    });
    assert.equal(response.status, 400);
    await proxy.store.flush();
    const [latest] = proxy.store.list({ limit: 1 });
    assert.equal(latest?.outcome, 'error');
  });
});

describe("an X-Ctx-Workspace folder's own ctxproxy.config.json", () => {
  test('is never read: it cannot switch redaction off for its requests', async () => {
    repoB.write('ctxproxy.config.json', JSON.stringify({ redactMessages: false, mode: 'off' }));
    const proxy = await startProxy({
      upstreamUrl: fake.url,
      workspace: repoA.dir,
      settings: { allowedRoots: [path.dirname(repoB.dir)] },
    });
    try {
      const secret = `ghp_${'A1b2C3d4E5'.repeat(3)}123456`;
      const before = fake.chats.length;
      const response = await fetch(`${proxy.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-ctx-workspace': repoB.dir },
        body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: `my token ${secret}` }] }),
      });
      assert.equal(response.status, 200);
      await response.text();
      assert.ok(fake.chats.length > before);
      assert.ok(!sentSince(before).includes(secret), 'still redacted');
    } finally {
      await proxy.close();
      repoB.write('ctxproxy.config.json', '{}');
    }
  });
});

describe('an allowed root of /', () => {
  test('admits X-Ctx-Workspace anywhere (root + separator was `//`)', async () => {
    const proxy = await startProxy({ upstreamUrl: fake.url, workspace: repoA.dir, settings: { allowedRoots: ['/'] } });
    try {
      const response = await fetch(`${proxy.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-ctx-workspace': repoB.dir },
        body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }),
      });
      assert.equal(response.status, 200, await response.clone().text());
      assert.equal((await proxy.snapshotOf(response)).workspace, repoB.dir);
    } finally {
      await proxy.close();
    }
  });
});
