// A failure nobody anticipated still says what happened: the 500's log line
// carries the error's name, message and stack, and never the prompt.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { LogFields, Upstream } from '../../src/shared/ports.ts';
import { createOllamaUpstream } from '../../src/upstream/ollamaUpstream.ts';
import { type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { type RunningProxy, startProxy } from '../support/proxy.ts';

let fake: FakeOllama;
let proxy: RunningProxy;
const errors: { event: string; fields: LogFields }[] = [];

before(async () => {
  fake = await startFakeOllama();
  const real = createOllamaUpstream({ baseUrl: fake.url, firstByteTimeoutMs: 5_000 });
  const broken: Upstream = {
    ...real,
    listModels: (signal) => real.listModels(signal),
    contextWindow: (model) => real.contextWindow(model),
    chat: async (request) => {
      // A bug deep in the adapter that quotes its input, as V8's own errors do.
      const first = request.messages.at(-1)?.content;
      throw new TypeError(`cannot map message "${String(first)}" to the upstream`);
    },
  };
  proxy = await startProxy({
    upstreamUrl: fake.url,
    upstream: broken,
    logger: { info() {}, warn() {}, error: (event, fields = {}) => errors.push({ event, fields }) },
  });
});

after(async () => {
  await proxy?.close();
  await fake?.close();
});

test('a 500 is logged with name, message and stack, without the prompt', async () => {
  const response = await fetch(`${proxy.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'qwen2.5-coder:7b', messages: [{ role: 'user', content: 'my private question' }] }),
  });
  assert.equal(response.status, 500);
  const body = (await response.json()) as { error: { code: string } };
  assert.equal(body.error.code, 'internal_error');
  const line = errors.find((e) => e.event === 'http.unhandled');
  assert.ok(line, JSON.stringify(errors));
  assert.equal(line.fields.status, 500);
  assert.equal(line.fields.cause, 'TypeError');
  assert.match(String(line.fields.causeMessage), /cannot map message <\d+ chars> to the upstream/);
  assert.match(String(line.fields.causeStack), /at .*errorLog\.test\.ts/);
  assert.equal(JSON.stringify(line).includes('private question'), false);
});
