// Secrets a client puts outside the message text — a message `name`, a
// data-URL parameter, a tool's description and schema, `metadata`, `user`, a
// long User-Agent, a request id — reach neither upstream kind and are never
// written to the audit database or its write-ahead log.

import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { existsSync, readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import type { Snapshot } from '../../src/shared/types.ts';
import { createOpenAIUpstream } from '../../src/upstream/openaiUpstream.ts';
import { ALNUM, githubToken, pick, seededRng, UPPER } from '../redact/secretGen.ts';
import { type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { type FakeOpenAI, startFakeOpenAI } from '../support/fakeOpenAI.ts';
import { type RunningProxy, startProxy } from '../support/proxy.ts';

const rng = seededRng(20261201);
const secrets = {
  name: githubToken(rng, 'ghp'),
  dataUrlParameter: `AKIA${pick(rng, `${UPPER}234567`, 16)}`,
  toolDescription: githubToken(rng, 'gho'),
  parameterDefault: `sk_live_${pick(rng, ALNUM, 24)}`,
  propertyName: githubToken(rng, 'ghp'),
  metadata: githubToken(rng, 'ghu'),
  user: githubToken(rng, 'ghs'),
  userAgentHead: githubToken(rng, 'ghr'),
  userAgentTail: githubToken(rng, 'ghp'),
  requestId: githubToken(rng, 'ghu'),
};
// An 8-byte PNG signature: enough for the type to be read from the bytes.
const PNG = 'iVBORw0KGgo=';
const PNG_SHA256 = '4c4b6a3be1314ab86138bef4314dde022e600960d8689a2c8f8631802d20dab6';
// 14 KB: one secret where the stored prefix keeps it (redacted), one far past the 512-byte cap.
const USER_AGENT = `Mozilla/5.0 (X11; Linux x86_64) token=${secrets.userAgentHead} ${'AppleWebKit/537.36 '.repeat(730)} ${secrets.userAgentTail}`;

function plantedRequest(model: string): Record<string, unknown> {
  return {
    model,
    messages: [
      {
        role: 'user',
        name: secrets.name,
        content: [
          { type: 'text', text: 'what is in this picture?' },
          {
            type: 'image_url',
            image_url: { url: `data:image/png;name=${secrets.dataUrlParameter};base64,${PNG}`, detail: 'low' },
          },
        ],
      },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"id":"7"}' } }],
      },
      // No call has this id, so Ollama's tool_name falls back to the message name.
      { role: 'tool', tool_call_id: 'call_other', name: secrets.name, content: 'ticket 7 is open' },
    ],
    tools: [
      {
        type: 'function',
        function: {
          name: 'lookup',
          description: `Looks up a ticket. Authenticate with ${secrets.toolDescription}.`,
          parameters: {
            type: 'object',
            properties: {
              id: {
                type: 'string',
                description: 'the ticket id',
                default: secrets.parameterDefault,
                enum: ['7', secrets.parameterDefault],
                examples: [secrets.parameterDefault],
              },
              [secrets.propertyName]: { type: 'string' },
            },
          },
        },
      },
    ],
    metadata: { ticket: secrets.metadata },
    user: secrets.user,
    a_field_no_table_lists: secrets.user,
  };
}

function client(proxy: RunningProxy): OpenAI {
  return new OpenAI({
    baseURL: proxy.baseURL,
    apiKey: 'unused',
    maxRetries: 0,
    defaultHeaders: { 'User-Agent': USER_AGENT, 'X-Request-Id': secrets.requestId },
  });
}

function assertNoSecret(text: string, where: string): void {
  for (const [field, secret] of Object.entries(secrets)) {
    assert.ok(!text.includes(secret), `the secret planted in ${field} reached ${where}`);
  }
}

/** The database file and its write-ahead log as bytes, read while the store is open (the WAL is kept). */
async function assertDatabaseClean(proxy: RunningProxy): Promise<void> {
  await proxy.store.flush();
  const wal = `${proxy.dbPath}-wal`;
  assert.ok(existsSync(wal), 'the store keeps its write-ahead log while open');
  const bytes = Buffer.concat([readFileSync(proxy.dbPath), readFileSync(wal)]).toString('latin1');
  // The scan sees what was written: the stored image hash is there.
  assert.ok(bytes.includes(`sha256:${PNG_SHA256}`), 'the snapshot was written to the bytes scanned');
  assertNoSecret(bytes, 'the audit database');
}

async function send(proxy: RunningProxy, model: string): Promise<Snapshot> {
  const { response } = await client(proxy)
    .chat.completions.create(plantedRequest(model) as never)
    .withResponse();
  const id = response.headers.get('x-ctx-snapshot-id') ?? '';
  await proxy.store.flush();
  const snapshot = proxy.store.get(id);
  assert.ok(snapshot, 'the request was audited');
  return snapshot;
}

function assertStored(snapshot: Snapshot): void {
  assert.ok(Buffer.byteLength(snapshot.userAgent ?? '') <= 512, 'the stored User-Agent is capped at 512 bytes');
  assert.match(snapshot.userAgent ?? '', /^Mozilla\/5\.0 \(X11; Linux x86_64\) token=\[REDACTED:[\w-]+\]/);
  const user = snapshot.forwarded.find((message) => message.role === 'user');
  assert.match(user?.name ?? '', /^\[REDACTED:[\w-]+\]$/);
  const image = Array.isArray(user?.content) ? user.content.find((part) => part.type === 'image_url') : undefined;
  assert.deepEqual(image?.image_url, { url: `sha256:${PNG_SHA256}`, media_type: 'image/png', bytes: 8 });
  const found = Object.values(snapshot.redactions).reduce((sum, n) => sum + n, 0);
  assert.ok(found >= 8, `the snapshot counts the findings by rule (got ${JSON.stringify(snapshot.redactions)})`);
}

describe('upstream kind ollama', () => {
  let fake: FakeOllama;
  let proxy: RunningProxy;
  before(async () => {
    fake = await startFakeOllama();
    proxy = await startProxy({ upstreamUrl: fake.url });
  });
  after(async () => {
    await proxy.close();
    await fake.close();
  });

  test('the planted secrets reach neither Ollama nor the database; tools and image still go through', async () => {
    const snapshot = await send(proxy, 'qwen2.5-coder:7b');
    const body = fake.chats.at(-1)?.body as Record<string, unknown>;
    assertNoSecret(JSON.stringify(fake.chats.at(-1)), 'Ollama (body and headers)');
    const messages = body.messages as Record<string, unknown>[];
    assert.deepEqual(messages[0]?.images, [PNG], 'Ollama gets the image bytes only');
    assert.match(String(messages[2]?.tool_name), /^\[REDACTED:[\w-]+\]$/);
    const tool = (body.tools as { function: { description: string; parameters: unknown } }[])[0];
    assert.match(tool?.function.description ?? '', /^Looks up a ticket\. Authenticate with \[REDACTED:[\w-]+\]\.$/);
    assert.match(JSON.stringify(tool?.function.parameters), /"default":"\[REDACTED:[\w-]+\]"/);
    assert.equal('metadata' in body || 'user' in body || 'a_field_no_table_lists' in body, false);
    assertStored(snapshot);
    assert.ok(snapshot.warnings.some((w) => /ignored 1 request field/.test(w)));
    await assertDatabaseClean(proxy);
  });

  test('a rejected request stores its User-Agent capped and redacted', async () => {
    const response = await fetch(`${proxy.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'User-Agent': USER_AGENT, 'X-Request-Id': secrets.requestId },
      body: `{"model": "${secrets.user}", not json`,
    });
    assert.equal(response.status, 400);
    const id = response.headers.get('x-ctx-snapshot-id') ?? '';
    await proxy.store.flush();
    const snapshot = proxy.store.get(id);
    assert.ok(snapshot && Buffer.byteLength(snapshot.userAgent ?? '') <= 512);
    await assertDatabaseClean(proxy);
  });
});

describe('upstream kind openai', () => {
  let fake: FakeOpenAI;
  let proxy: RunningProxy;
  before(async () => {
    fake = await startFakeOpenAI({ models: ['local-model'] });
    proxy = await startProxy({
      upstreamUrl: fake.url,
      upstream: createOpenAIUpstream({ baseUrl: fake.url }),
      settings: { models: { 'local-model': { window: 8192 } } },
    });
  });
  after(async () => {
    await proxy.close();
    await fake.close();
  });

  test('the planted secrets reach neither the OpenAI-compatible server nor the database', async () => {
    const snapshot = await send(proxy, 'local-model');
    const received = fake.requests.findLast((request) => request.path === '/v1/chat/completions');
    const body = received?.body as Record<string, unknown>;
    assertNoSecret(JSON.stringify(received), 'the OpenAI-compatible server');
    const user = (body.messages as { content: { type: string; image_url?: unknown }[]; name?: string }[])[0];
    assert.match(user?.name ?? '', /^\[REDACTED:[\w-]+\]$/);
    assert.deepEqual(
      user?.content.find((part) => part.type === 'image_url')?.image_url,
      { url: `data:image/png;base64,${PNG}`, detail: 'low' },
      'the data URL is rebuilt without its parameters',
    );
    assert.match(String(body.user), /^\[REDACTED:[\w-]+\]$/);
    assert.match(JSON.stringify(body.metadata), /^\{"ticket":"\[REDACTED:[\w-]+\]"\}$/);
    const tool = (body.tools as { function: { description: string; parameters: unknown } }[])[0];
    assert.match(tool?.function.description ?? '', /Authenticate with \[REDACTED:[\w-]+\]/);
    assert.equal('a_field_no_table_lists' in body, false, 'a field the table does not list is dropped');
    assertStored(snapshot);
    await assertDatabaseClean(proxy);
  });
});
