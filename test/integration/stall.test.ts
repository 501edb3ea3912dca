// Hostile inputs through the real server: while each is in flight, a concurrent
// client polls /healthz and every poll must answer; the hostile request must
// end (an answer or a 4xx), never hang or 500. Timing targets live in
// bench/stall; these sizes are smaller so the suite stays quick.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { contextShapes, messageShapes, type Shape, type Sizes, workspaceFiles } from '../../bench/stall/shapes.ts';
import type { LogFields } from '../../src/shared/ports.ts';
import { type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { makeRepo, type TempRepo } from '../support/gitRepo.ts';
import { type RunningProxy, startProxy } from '../support/proxy.ts';

const sizes: Sizes = {
  letterBodyBytes: 2 * 1024 * 1024,
  base64Bytes: 1024 * 1024,
  minifiedBytes: 512 * 1024,
  messages: 10_001,
  lines: 200_000,
  depth: 20_000,
  tools: 2_000,
  messageChars: 1024 * 1024,
  schemaStrings: 50_000,
};
/** Generous: a poll stuck behind a stall of seconds fails; ordinary scheduling noise does not. */
const POLL_BOUND_MS = 2_000;

let fake: FakeOllama;
let repo: TempRepo;
let proxy: RunningProxy;
const logged: { event: string; fields: LogFields }[] = [];

before(async () => {
  fake = await startFakeOllama();
  const files = workspaceFiles({ fileBytes: 150 * 1024, diffBytes: 256 * 1024, lines: 50_000 });
  repo = makeRepo({ files: files.committed, unstaged: files.changed });
  const record = (event: string, fields: LogFields = {}) => logged.push({ event, fields });
  proxy = await startProxy({
    upstreamUrl: fake.url,
    workspace: repo.dir,
    settings: { mode: 'auto' },
    logger: { info() {}, warn: record, error: record },
  });
});

after(async () => {
  await proxy?.close();
  await fake?.close();
  repo?.cleanup();
});

async function underPolling(shape: Shape): Promise<{ status: number; body: string; polls: number }> {
  let done = false;
  const hostile = fetch(`${proxy.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...shape.headers },
    body: shape.body(),
  })
    .then(async (response) => ({ status: response.status, body: await response.text() }))
    .finally(() => {
      done = true;
    });
  let polls = 0;
  while (!done) {
    const response = await fetch(`${proxy.url}/healthz`, { signal: AbortSignal.timeout(POLL_BOUND_MS) });
    assert.equal(response.status, 200);
    await response.text();
    polls++;
  }
  return { ...(await hostile), polls };
}

describe('no hostile request stalls the server', () => {
  for (const shape of [...messageShapes(sizes), ...contextShapes()]) {
    test(shape.name, async () => {
      const { status, body } = await underPolling(shape);
      assert.ok(status === 200 || (status >= 400 && status < 500), `${status}: ${body.slice(0, 300)}`);
      if (status !== 200) assert.ok(JSON.parse(body).error.message, 'an OpenAI-shaped error');
      if (shape.name.startsWith('deep nesting')) {
        const error = JSON.parse(body).error;
        assert.equal(status, 400);
        assert.equal(error.code, 'json_too_deep');
        assert.ok(error.param.length > 0);
      }
      if (shape.name.endsWith('messages')) assert.equal(JSON.parse(body).error.code, 'too_many_messages');
    });
  }

  test('an unbroken paste that fits is answered, with its count marked as an estimate', async () => {
    const response = await fetch(`${proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-ctx-mode': 'off' },
      body: JSON.stringify({ model: 'qwen2.5-coder:7b', messages: [{ role: 'user', content: 'k'.repeat(40_000) }] }),
    });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('x-ctx-warning') ?? '', /estimate/);
    await response.text();
    const snapshot = proxy.store.get(response.headers.get('x-ctx-snapshot-id') ?? '');
    assert.equal(snapshot?.budget?.estimated, true);
  });

  test('no request above ended in a 500', () => {
    assert.deepEqual(
      logged.filter((line) => line.event.startsWith('http.') && line.event !== 'http.client_error'),
      [],
    );
  });
});
