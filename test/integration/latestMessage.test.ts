// The user's latest words are never dropped (issue 29): a pasted log too long for
// the model's window is a 400 that says by how much and what to do, on every route
// that carries a user message, through the real server and the real clients, and
// the refused request is still in the audit log. Nothing reaches the model.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { type RunningProxy, startProxy } from '../support/proxy.ts';

const SMALL = 'llama3.2:3b'; // the fake reports an 8,192-token window
const LARGE = 'qwen2.5-coder:7b'; // 32,768

/** A service log of about `lines` × 29 tokens, ending with the error the user asks about. */
function pastedLog(lines: number): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    out.push(
      `2026-12-07T01:${String(i % 60).padStart(2, '0')}:${String(i % 59).padStart(2, '0')}Z INFO worker[${i}] processed batch ${i} items=${i * 7} ok`,
    );
  }
  out.push('2026-12-07T02:00:00Z ERROR worker[9999] failed: connection refused (db:5432)');
  return out.join('\n');
}

let fake: FakeOllama;
let proxy: RunningProxy;
let log: string;

before(async () => {
  fake = await startFakeOllama();
  proxy = await startProxy({ upstreamUrl: fake.url, settings: { mode: 'auto' } });
  log = pastedLog(460);
});
after(async () => {
  await proxy.close();
  await fake.close();
});

const upstreamCalls = () => fake.chats.length + fake.generates.length;

async function refusal<T>(call: Promise<T>): Promise<unknown> {
  return call.then(
    () => assert.fail('the request should have been refused'),
    (error: unknown) => error,
  );
}

/** The refused request's snapshot: written, with the error the client got. */
async function refusedSnapshot(snapshotId: string | null | undefined) {
  await proxy.store.flush();
  const snapshot = proxy.store.get(snapshotId ?? '');
  assert.ok(snapshot, 'the refused request left its snapshot');
  assert.equal(snapshot.outcome, 'error');
  assert.equal(snapshot.error?.code, 'context_length_exceeded');
  return snapshot;
}

describe('a paste too long for the window', () => {
  test('the paste is about 13,500 tokens', () => {
    const tokens = proxy.deps.tokenCounter.count(log);
    assert.ok(tokens > 12_000 && tokens < 15_000, `${tokens} tokens`);
  });

  test('chat: a log pasted as its own message, then the question, is a 400 with the numbers, not a dropped paste', async () => {
    const before = upstreamCalls();
    const error = await refusal(
      proxy.client().chat.completions.create({
        model: SMALL,
        messages: [
          { role: 'system', content: 'You are a careful assistant.' },
          { role: 'user', content: log },
          { role: 'user', content: 'Why does the worker fail?' },
        ],
      }),
    );
    assert.ok(error instanceof OpenAI.BadRequestError, String(error));
    assert.equal(error.code, 'context_length_exceeded');
    assert.match(error.message, /Your latest message \(~\d+ tokens\)/);
    assert.match(error.message, /8192-token window leaves \d+ for the prompt/);
    assert.match(error.message, /Shorten it by at least ~\d+ tokens \(~\d+ characters/);
    assert.match(error.message, /larger window/);
    assert.equal(upstreamCalls(), before, 'nothing was sent to the model');
    const snapshot = await refusedSnapshot(error.headers?.get('x-ctx-snapshot-id'));
    assert.match(snapshot.error?.message ?? '', /Nothing was cut/);
  });

  test('chat: the same paste fits a model with a larger window, whole', async () => {
    const { response } = await proxy
      .client()
      .chat.completions.create({
        model: LARGE,
        messages: [
          { role: 'user', content: log },
          { role: 'user', content: 'Why does the worker fail?' },
        ],
      })
      .withResponse();
    assert.equal(response.status, 200);
    const sent = fake.chats.at(-1)?.body.messages as { role: string; content: string }[];
    assert.ok(
      sent.some(
        (m) => m.role === 'user' && m.content.includes('ERROR worker[9999]') && m.content.includes('worker[0]'),
      ),
      'the whole log reached the model',
    );
  });

  test('chat: a paste answered earlier may still leave as history, with a marker the model sees', async () => {
    const { response } = await proxy
      .client()
      .chat.completions.create({
        model: SMALL,
        messages: [
          { role: 'user', content: log },
          { role: 'assistant', content: 'The worker cannot reach the database.' },
          { role: 'user', content: 'How do I fix that?' },
        ],
      })
      .withResponse();
    assert.equal(response.status, 200);
    const sent = fake.chats.at(-1)?.body.messages as { role: string; content: string }[];
    assert.ok(sent.some((m) => /earlier message was left out/.test(m.content)));
    assert.equal(sent.at(-1)?.content, 'How do I fix that?');
    assert.match(response.headers.get('x-ctx-warning') ?? '', /oldest message/);
  });

  test('responses: the paste and the question as two input items are a 400 too', async () => {
    const before = upstreamCalls();
    const error = await refusal(
      proxy.client().responses.create({
        model: SMALL,
        input: [
          { role: 'user', content: log },
          { role: 'user', content: 'Why does the worker fail?' },
        ],
      }),
    );
    assert.ok(error instanceof OpenAI.BadRequestError, String(error));
    assert.equal(error.code, 'context_length_exceeded');
    assert.match(error.message, /Shorten it by at least/);
    assert.equal(upstreamCalls(), before);
    await refusedSnapshot(error.headers?.get('x-ctx-snapshot-id'));
  });

  test('messages: the paste and the question as two user messages are a 400 in Anthropic shape', async () => {
    const before = upstreamCalls();
    const client = new Anthropic({ baseURL: proxy.url, apiKey: 'unused', maxRetries: 0 });
    const error = await refusal(
      client.messages.create({
        model: SMALL,
        max_tokens: 200,
        messages: [
          { role: 'user', content: log },
          { role: 'user', content: 'Why does the worker fail?' },
        ],
      }),
    );
    assert.ok(error instanceof Anthropic.BadRequestError, String(error));
    assert.match(error.message, /prompt is too long: Your latest message/);
    assert.equal(upstreamCalls(), before);
    await refusedSnapshot(error.headers?.get('x-ctx-snapshot-id'));
  });

  test('completions: a prompt too long for the window is a 400 naming the prompt, never cut', async () => {
    const before = upstreamCalls();
    const error = await refusal(proxy.client().completions.create({ model: SMALL, prompt: `${log}\n# why?\n` }));
    assert.ok(error instanceof OpenAI.BadRequestError, String(error));
    assert.equal(error.code, 'context_length_exceeded');
    assert.equal(error.param, 'prompt');
    assert.match(error.message, /Your prompt \(~\d+ tokens\).*window is 8192.*Shorten it by at least ~\d+ tokens/);
    assert.equal(upstreamCalls(), before, 'nothing was sent to the model');
    await refusedSnapshot(error.headers?.get('x-ctx-snapshot-id'));
  });

  test('completions: a prompt that fits is sent whole, with a num_ctx that holds it', async () => {
    const { response } = await proxy
      .client()
      .completions.create({ model: LARGE, prompt: `${log}\n# why?\n`, max_tokens: 64 })
      .withResponse();
    assert.equal(response.status, 200);
    const body = fake.generates.at(-1)?.body as { prompt: string; options?: { num_ctx?: number } };
    assert.ok(body.prompt.includes('worker[0]') && body.prompt.includes('ERROR worker[9999]'), 'the whole prompt');
    const tokens = proxy.deps.tokenCounter.count(log);
    assert.ok((body.options?.num_ctx ?? 0) >= tokens + 64, `num_ctx ${body.options?.num_ctx} holds ~${tokens} tokens`);
  });
});
