// --require-audit on /v1/embeddings and /v1/completions (Node only: the lock
// holder loads better-sqlite3, which Deno cannot, as in auditFaults.test.ts).

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { holdWriteLock } from '../support/lockHolder.ts';
import { startProxy } from '../support/proxy.ts';

const MODEL = 'qwen2.5-coder:7b';
let fake: FakeOllama;
before(async () => {
  fake = await startFakeOllama();
});
after(async () => {
  await fake.close();
});

describe('--require-audit', () => {
  test('embeddings and completions the log cannot record are refused with 503 and never reach the model', async () => {
    const strict = await startProxy({ upstreamUrl: fake.url, settings: { requireAudit: true } });
    const lock = await holdWriteLock(strict.dbPath);
    try {
      const before = { embeds: fake.embeds.length, generates: fake.generates.length };
      const strictClient = strict.client();
      for (const call of [
        strictClient.embeddings.create({ model: MODEL, input: 'x' }),
        strictClient.completions.create({ model: MODEL, prompt: 'x' }),
      ]) {
        const error = await call.catch((e: unknown) => e);
        assert.ok(error instanceof OpenAI.APIError);
        assert.equal(error.status, 503);
        assert.equal(error.code, 'audit_unavailable');
      }
      assert.deepEqual({ embeds: fake.embeds.length, generates: fake.generates.length }, before);
    } finally {
      await lock.release();
      await strict.close();
    }
  });
});
