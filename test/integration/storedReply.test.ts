// What the model says is stored redacted: the reply text (a secret streamed
// across two chunks included), and the tool calls' arguments, on chat,
// streamed or not, on legacy completions, and with either upstream kind. The
// client still gets the model's bytes as they came (README: the audit's copy is
// redacted, the answer is not). An upstream's error body never reaches the
// server log: the log says the status and the error's class.

import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { existsSync, readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { LogFields, Logger } from '../../src/shared/ports.ts';
import type { Snapshot } from '../../src/shared/types.ts';
import { createOpenAIUpstream } from '../../src/upstream/openaiUpstream.ts';
import { githubToken, seededRng } from '../redact/secretGen.ts';
import { type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { type FakeOpenAI, startFakeOpenAI } from '../support/fakeOpenAI.ts';
import { type RunningProxy, startProxy } from '../support/proxy.ts';

const MODEL = 'qwen2.5-coder:7b';
const rng = seededRng(20261203);
const inText = githubToken(rng, 'ghp');
const inArguments = githubToken(rng, 'gho');
const inErrorBody = githubToken(rng, 'ghu');
const PRIVATE_WORDS = 'the quarterly numbers for project nightjar';

function captureLog(): { lines: string[]; logger: Logger } {
  const lines: string[] = [];
  const log =
    (level: string) =>
    (event: string, fields: LogFields = {}) =>
      lines.push(JSON.stringify({ level, event, ...fields }));
  return { lines, logger: { info: log('info'), warn: log('warn'), error: log('error') } };
}

async function databaseText(proxy: RunningProxy): Promise<string> {
  await proxy.store.flush();
  const wal = `${proxy.dbPath}-wal`;
  const parts = [readFileSync(proxy.dbPath)];
  if (existsSync(wal)) parts.push(readFileSync(wal));
  return Buffer.concat(parts).toString('latin1');
}

async function snapshot(proxy: RunningProxy, id: string | null): Promise<Snapshot> {
  await proxy.store.flush();
  const found = proxy.store.get(id ?? '');
  assert.ok(found, 'the request was audited');
  return found;
}

function assertStoredRedacted(stored: Snapshot, withToolCall: boolean): void {
  assert.match(stored.reply.content, /\[REDACTED:[\w-]+\]/, 'the stored reply keeps the mask');
  assert.ok(!stored.reply.content.includes(inText), 'the stored reply text is redacted');
  if (withToolCall) {
    const args = stored.reply.toolCalls?.map((call) => call.function.arguments).join('\n') ?? '';
    assert.match(args, /\[REDACTED:[\w-]+\]/);
    assert.ok(!args.includes(inArguments), 'the stored tool-call arguments are redacted');
  }
  assert.ok((stored.redactions['github-token'] ?? 0) >= 1, JSON.stringify(stored.redactions));
}

describe('upstream kind ollama', () => {
  let fake: FakeOllama;
  let proxy: RunningProxy;
  const log = captureLog();
  before(async () => {
    fake = await startFakeOllama();
    proxy = await startProxy({ upstreamUrl: fake.url, logger: log.logger });
    // The secret cut in the middle: neither chunk holds enough of it for a rule to match.
    fake.reply(MODEL, {
      pieces: ['Use the token ', inText.slice(0, 12), inText.slice(12), ' to deploy.'],
      toolCalls: [{ name: 'deploy', arguments: { token: inArguments, target: 'prod' } }],
    });
  });
  after(async () => {
    await proxy.close();
    await fake.close();
  });

  test('a streamed reply: the client gets the bytes, the log keeps them redacted', async () => {
    const { data: stream, response } = await proxy
      .client()
      .chat.completions.create({ model: MODEL, stream: true, messages: [{ role: 'user', content: 'deploy it' }] })
      .withResponse();
    let text = '';
    let args = '';
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      for (const call of chunk.choices[0]?.delta.tool_calls ?? []) args += call.function?.arguments ?? '';
    }
    assert.equal(text, `Use the token ${inText} to deploy.`, 'the client-bound stream is the model’s own');
    assert.ok(args.includes(inArguments));
    assertStoredRedacted(await snapshot(proxy, response.headers.get('x-ctx-snapshot-id')), true);
    const db = await databaseText(proxy);
    assert.ok(!db.includes(inText) && !db.includes(inArguments), 'neither secret is in the database bytes');
  });

  test('a reply that is not streamed is stored redacted too', async () => {
    const { response } = await proxy
      .client()
      .chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'deploy it' }] })
      .withResponse();
    assertStoredRedacted(await snapshot(proxy, response.headers.get('x-ctx-snapshot-id')), true);
  });

  test('a legacy completion is stored redacted', async () => {
    const response = await fetch(`${proxy.baseURL}/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, prompt: 'token = ', stream: true }),
    });
    assert.ok((await response.text()).includes(inText.slice(12)));
    assertStoredRedacted(await snapshot(proxy, response.headers.get('x-ctx-snapshot-id')), false);
    assert.ok(!(await databaseText(proxy)).includes(inText));
  });

  test('an upstream error body reaches neither the server log nor, unredacted, the audit', async () => {
    const failing = 'llama3.2:3b';
    const errorBody = `backend said: password ${inErrorBody} rejected while reading ${PRIVATE_WORDS}`;
    fake.reply(failing, { status: 500, errorBody });
    const before = log.lines.length;
    const calls = [
      ['/chat/completions', { model: failing, messages: [{ role: 'user', content: 'hi' }] }],
      ['/completions', { model: failing, prompt: 'hi' }],
      ['/embeddings', { model: failing, input: 'hi' }],
    ] as const;
    for (const [path, body] of calls) {
      const response = await fetch(`${proxy.baseURL}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      assert.equal(response.status, 502, path);
      await response.arrayBuffer();
    }
    const logged = log.lines.slice(before);
    const errors = logged.filter((line) => line.includes('"http.server_error"'));
    assert.equal(errors.length, calls.length, logged.join('\n'));
    for (const line of errors) {
      assert.match(line, /"status":502/);
      assert.match(line, /"error":"UpstreamResponseError"/);
    }
    const text = logged.join('\n');
    assert.ok(!text.includes(inErrorBody), 'the secret in the error body is not logged');
    assert.ok(!text.includes(PRIVATE_WORDS), 'the error body is not logged');
    assert.ok(!(await databaseText(proxy)).includes(inErrorBody), 'the audit keeps the error redacted');
  });
});

describe('upstream kind openai (text and arguments arrive in fragments)', () => {
  let fake: FakeOpenAI;
  let proxy: RunningProxy;
  before(async () => {
    fake = await startFakeOpenAI({ models: ['local-model'] });
    proxy = await startProxy({
      upstreamUrl: fake.url,
      upstream: createOpenAIUpstream({ baseUrl: fake.url }),
      settings: { models: { 'local-model': { window: 8192 } } },
    });
    // The fake sends the content in two halves and the arguments in two fragments: both cut the secret.
    fake.reply('local-model', {
      content: inText,
      toolCalls: [{ name: 'deploy', arguments: JSON.stringify({ token: inArguments }) }],
      finishReason: 'tool_calls',
    });
  });
  after(async () => {
    await proxy.close();
    await fake.close();
  });

  test('the stored reply and arguments are redacted', async () => {
    const { data: stream, response } = await proxy
      .client()
      .chat.completions.create({ model: 'local-model', stream: true, messages: [{ role: 'user', content: 'deploy' }] })
      .withResponse();
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    assert.equal(text, inText);
    assertStoredRedacted(await snapshot(proxy, response.headers.get('x-ctx-snapshot-id')), true);
    const db = await databaseText(proxy);
    assert.ok(!db.includes(inText) && !db.includes(inArguments));
  });
});
