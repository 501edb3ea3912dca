// SIGTERM/SIGINT while answers stream, through the real command and a real
// OpenAI client: requests in flight finish within the grace period; after it,
// each stream ends with an error frame, its upstream call is aborted, its
// snapshot is written (`aborted`, with what arrived), and the process exits 0.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { openAuditStore } from '../../src/audit/store.ts';
import { startServe } from '../support/ctxproxyProcess.ts';
import { type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { makeRepo, type TempRepo } from '../support/gitRepo.ts';
import { until } from '../support/poll.ts';

const STALLS = 'qwen2.5-coder:7b';
const SLOW = 'llama3.2:3b';

let fake: FakeOllama;
let repo: TempRepo;
before(async () => {
  fake = await startFakeOllama();
  // Two words, then nothing more: a model still thinking when the signal comes.
  fake.reply(STALLS, { content: 'alpha beta gamma delta', hangAfterChunks: 2 });
  // Five words, 0.7 s apart: done in about 4 s, well inside the default grace of 10 s.
  fake.reply(SLOW, { content: 'one two three four five', wordPerChunk: true, chunkDelayMs: 700 });
  repo = makeRepo({ files: { 'README.md': 'A project.\n' } });
});
after(async () => {
  await fake.close();
  repo.cleanup();
});

function client(url: string): OpenAI {
  return new OpenAI({ baseURL: `${url}/v1`, apiKey: 'x', maxRetries: 0 });
}

async function openStream(url: string, model: string) {
  const { data, response } = await client(url)
    .chat.completions.create({ model, stream: true, messages: [{ role: 'user', content: 'Tell me a story.' }] })
    .withResponse();
  return { iterator: data[Symbol.asyncIterator](), snapshotId: response.headers.get('x-ctx-snapshot-id') as string };
}

function readSnapshot(id: string) {
  const store = openAuditStore({ path: `${repo.dir}/.ctxproxy/audit.db` });
  try {
    return store.get(id);
  } finally {
    void store.close();
  }
}

describe('ctxproxy serve on SIGTERM', { timeout: 60_000 }, () => {
  test('after the grace period a stream ends with an error frame; its snapshot is saved as aborted; exit 0', async () => {
    const proxy = await startServe([], repo.dir, { OLLAMA_HOST: fake.url, CTXPROXY_SHUTDOWN_GRACE_MS: '300' });
    const chatIndex = fake.chats.length;
    const { iterator, snapshotId } = await openStream(proxy.url, STALLS);
    let text = '';
    while (text !== 'alpha beta ') {
      const next = await iterator.next();
      assert.ok(!next.done, 'the stream ended early');
      text += next.value.choices[0]?.delta.content ?? '';
    }
    proxy.signal('SIGTERM');

    const failure = await (async () => {
      for (;;) {
        const next = await iterator.next();
        if (next.done) return undefined;
        text += next.value.choices[0]?.delta.content ?? '';
      }
    })().catch((error: unknown) => error);
    assert.ok(failure instanceof OpenAI.APIError, `the client got an API error, not ${String(failure)}`);
    assert.equal(failure.code, 'server_shutting_down');
    assert.equal(text, 'alpha beta ');
    await fake.closed(chatIndex); // the upstream call was aborted
    assert.equal(await proxy.exited, 0, proxy.log());

    const snapshot = readSnapshot(snapshotId);
    assert.ok(snapshot, `the snapshot was saved\n${proxy.log()}`);
    assert.equal(snapshot.outcome, 'aborted');
    assert.equal(snapshot.reply.content, 'alpha beta ');
    assert.equal(snapshot.error?.code, 'server_shutting_down');
    assert.doesNotMatch(proxy.log(), /save_failed|close_unwritten/);
  });

  test('a stream that finishes within the grace period completes normally, then the process exits 0', async () => {
    const proxy = await startServe([], repo.dir, { OLLAMA_HOST: fake.url });
    const { iterator, snapshotId } = await openStream(proxy.url, SLOW);
    let text = '';
    let finish: string | null | undefined;
    let signalled = false;
    for (;;) {
      const next = await iterator.next();
      if (next.done) break;
      text += next.value.choices[0]?.delta.content ?? '';
      finish = next.value.choices[0]?.finish_reason ?? finish;
      if (text !== '' && !signalled) {
        signalled = true;
        proxy.signal('SIGTERM');
        await until(() => proxy.log().includes('server.stopping'), 'the server to log server.stopping');
        // Draining: a new request is turned away (refused, or a 503 on a connection still open).
        const late = await fetch(`${proxy.url}/healthz`).then(
          (response) => response.status,
          () => 'refused',
        );
        assert.ok(late === 'refused' || late === 503, `a request during the drain got ${late}`);
      }
    }
    assert.equal(text, 'one two three four five');
    assert.equal(finish, 'stop');
    assert.equal(await proxy.exited, 0, proxy.log());
    const snapshot = readSnapshot(snapshotId);
    assert.equal(snapshot?.outcome, 'ok');
    assert.equal(snapshot?.reply.content, 'one two three four five');
  });

  test('a second signal stops at once, still writing the snapshot of the request cut off', async () => {
    const proxy = await startServe([], repo.dir, { OLLAMA_HOST: fake.url, CTXPROXY_SHUTDOWN_GRACE_MS: '60000' });
    const { iterator, snapshotId } = await openStream(proxy.url, STALLS);
    let text = '';
    while (text !== 'alpha beta ') {
      const next = await iterator.next();
      assert.ok(!next.done);
      text += next.value.choices[0]?.delta.content ?? '';
    }
    proxy.signal('SIGTERM');
    // Once the first signal is being handled (it logs so), the second one.
    await until(() => proxy.log().includes('server.stopping'), 'the server to log server.stopping');
    proxy.signal('SIGINT');
    const failure = await iterator.next().then(
      () => undefined,
      (error: unknown) => error,
    );
    assert.ok(failure instanceof OpenAI.APIError, `the client got an API error, not ${String(failure)}`);
    assert.equal(await proxy.exited, 1, proxy.log());
    const snapshot = readSnapshot(snapshotId);
    assert.equal(snapshot?.outcome, 'aborted');
    assert.equal(snapshot?.reply.content, 'alpha beta ');
  });
});
