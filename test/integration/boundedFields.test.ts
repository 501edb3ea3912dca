// One request cannot hold the proxy: a body built to make every later step
// slow (10,000 tools, a 200,000-string enum in a response_format, the same
// through the Responses API) is refused with a 400 naming the field, and while
// it is read and refused, /healthz and a small chat from another client still
// answer. What real agents send (60 tools with schemas of a few KB) still goes
// through. The bound is generous (the machine may be loaded); before the
// bounds these bodies held the event loop for 4 to 14 seconds.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { type RunningProxy, startProxy } from '../support/proxy.ts';

const MODEL = 'qwen2.5-coder:7b';
/** Far above the ~10 ms these take on a quiet machine, far below the seconds an unbounded walk took. */
const LATENCY_BOUND_MS = 1500;

let fake: FakeOllama;
let proxy: RunningProxy;
before(async () => {
  fake = await startFakeOllama();
  proxy = await startProxy({ upstreamUrl: fake.url });
  // The first chat loads the pipeline's modules: not what is measured here.
  await proxy.client().chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'warm up' }] });
});
after(async () => {
  await proxy.close();
  await fake.close();
});

function tool(i: number) {
  return {
    type: 'function',
    function: {
      name: `tool_${i}`,
      description: `Runs step ${i} on the repository and reports what it changed, with every detail a caller needs.`,
      parameters: {
        type: 'object',
        properties: {
          path: { type: 'string', description: `the file step ${i} works on` },
          mode: { type: 'string', enum: ['read', 'write', 'append', 'replace'], default: 'read' },
          count: { type: 'integer', minimum: 0, default: i },
        },
        required: ['path'],
      },
    },
  };
}

const enumSchema = (n: number) => ({
  type: 'object',
  properties: { choice: { type: 'string', enum: Array.from({ length: n }, (_, i) => `choice-number-${i}`) } },
});

interface Hostile {
  name: string;
  path: string;
  body: Record<string, unknown>;
  param: RegExp;
}

const hostile: Hostile[] = [
  {
    name: '10,000 tools',
    path: '/v1/chat/completions',
    body: {
      model: MODEL,
      messages: [{ role: 'user', content: 'hi' }],
      tools: Array.from({ length: 10_000 }, (_, i) => tool(i)),
    },
    param: /^tools$/,
  },
  {
    name: 'a response_format schema with a 200,000-string enum',
    path: '/v1/chat/completions',
    body: {
      model: MODEL,
      messages: [{ role: 'user', content: 'hi' }],
      response_format: { type: 'json_schema', json_schema: { name: 'pick', schema: enumSchema(200_000) } },
    },
    param: /^response_format\.json_schema\.schema\.properties\.choice\.enum$/,
  },
  {
    name: 'the Responses API with 10,000 tools',
    path: '/v1/responses',
    body: {
      model: MODEL,
      input: 'hi',
      tools: Array.from({ length: 10_000 }, (_, i) => ({ type: 'function', ...tool(i).function })),
    },
    param: /^tools$/,
  },
  {
    name: 'the Responses API with a 200,000-string enum in text.format',
    path: '/v1/responses',
    body: {
      model: MODEL,
      input: 'hi',
      text: { format: { type: 'json_schema', name: 'pick', schema: enumSchema(200_000) } },
    },
    param: /^text\.format\.schema\.properties\.choice\.enum$/,
  },
];

/** Calls `probe` back to back until `done` settles; the slowest call's time. */
async function slowestWhile(done: Promise<unknown>, probe: () => Promise<unknown>): Promise<number> {
  let finished = false;
  void done.finally(() => {
    finished = true;
  });
  let slowest = 0;
  let calls = 0;
  while (!finished || calls === 0) {
    const started = performance.now();
    await probe();
    slowest = Math.max(slowest, performance.now() - started);
    calls++;
  }
  return slowest;
}

describe('a request built to be slow', () => {
  for (const attack of hostile) {
    test(`${attack.name}: a 400 naming the field, audited, while /healthz and a small chat answer`, async () => {
      const text = JSON.stringify(attack.body);
      const sent = fetch(`${proxy.url}${attack.path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: text,
      });
      const health = slowestWhile(sent, () => fetch(`${proxy.url}/healthz`).then((r) => r.json()));
      const chat = slowestWhile(sent, () =>
        proxy.client().chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'small' }] }),
      );
      const response = await sent;
      const [healthMs, chatMs] = await Promise.all([health, chat]);

      assert.ok(healthMs < LATENCY_BOUND_MS, `/healthz took ${Math.round(healthMs)} ms while the request was handled`);
      assert.ok(chatMs < LATENCY_BOUND_MS, `a small chat took ${Math.round(chatMs)} ms while the request was handled`);
      assert.equal(response.status, 400);
      const body = (await response.json()) as { error: { type: string; param: string; message: string } };
      assert.equal(body.error.type, 'invalid_request_error');
      assert.match(body.error.param, attack.param);
      assert.match(body.error.message, /ctxproxy accepts at most \d+/);
      const snapshot = await proxy.snapshotOf(response);
      assert.equal(snapshot.error?.status, 400, 'the refused request left its audit snapshot');
    });
  }

  test('what real agents send still goes through: 60 tools with schemas, a 1,000-value enum', async () => {
    const before = fake.chats.length;
    const completion = await proxy.client().chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'pick one' }],
      tools: Array.from({ length: 60 }, (_, i) => tool(i)) as never,
      response_format: { type: 'json_schema', json_schema: { name: 'pick', schema: enumSchema(1_000) } },
    });
    assert.equal(completion.choices[0]?.finish_reason, 'stop');
    const forwarded = fake.chats[before]?.body as {
      tools?: unknown[];
      format?: { properties: { choice: { enum: unknown[] } } };
    };
    assert.equal(forwarded.tools?.length, 60);
    assert.equal(forwarded.format?.properties.choice.enum.length, 1_000);
  });
});
