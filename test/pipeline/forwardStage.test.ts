// Stage 6, forward, through runPipeline with the real stages: the request's
// record is in the log before the model sees the prompt, an upstream that
// refuses at once fails the request with its own error and a written snapshot,
// and a client that leaves aborts the upstream.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { UpstreamUnavailableError } from '../../src/shared/errors.ts';
import { makeRepo, type TempRepo } from '../support/gitRepo.ts';
import { onlySnapshot, pipelineHarness } from './stageHarness.ts';

let repo: TempRepo;
before(() => {
  repo = makeRepo({ files: { 'README.md': '# Demo\n' } });
});
after(() => repo.cleanup());

const ask = { messages: [{ role: 'user' as const, content: 'hello?' }] };

test('the in-flight record is written before the upstream is asked', async () => {
  const pipeline = await pipelineHarness({ workspace: repo.dir });
  await pipeline.chat(ask);
  assert.equal(pipeline.upstream.sent[0]?.inFlightWritten, true);
});

test('an upstream that refuses at once fails the request; the snapshot records the error and what was sent', async () => {
  const pipeline = await pipelineHarness({ workspace: repo.dir });
  pipeline.upstream.script = {
    refuse: new UpstreamUnavailableError('Ollama is not running; start it with `ollama serve`.'),
  };
  await assert.rejects(
    () => pipeline.chat(ask),
    (error: unknown) => error instanceof UpstreamUnavailableError && error.status === 502,
  );
  const snapshot = onlySnapshot(pipeline.store);
  assert.equal(snapshot.outcome, 'error');
  assert.equal(snapshot.error?.status, 502);
  assert.match(snapshot.error?.message ?? '', /ollama serve/);
  assert.deepEqual(
    snapshot.forwarded.map((m) => m.content),
    ['hello?'],
  );
});

test('a client that goes away aborts the upstream request and the snapshot says aborted', async () => {
  const pipeline = await pipelineHarness({ workspace: repo.dir });
  const client = new AbortController();
  const { runPipeline } = await import('../../src/pipeline/runPipeline.ts');
  const result = await runPipeline(
    { request: { model: 'qwen2.5-coder:7b', ...ask } as never, headers: {}, requestId: 'r1', signal: client.signal },
    pipeline.deps,
  );
  const upstreamSignal = pipeline.upstream.sent[0]?.signal;
  assert.equal(upstreamSignal?.aborted, false);
  client.abort(new Error('client went away'));
  assert.equal(upstreamSignal?.aborted, true);
  // The consumer stops reading: the record stage closes the snapshot.
  const events = result.events[Symbol.asyncIterator]();
  await events.next();
  await events.return?.(undefined);
  const snapshot = onlySnapshot(pipeline.store);
  assert.equal(snapshot.outcome, 'aborted');
});
