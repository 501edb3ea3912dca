// One request record (requestRecord.ts) for every route: it is the only code
// outside the store that writes a snapshot, and a request that fails comes back
// as a value naming the snapshot that recorded it; the error itself is not changed.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runPipeline } from '../../src/pipeline/runPipeline.ts';
import type { ChatRequest } from '../../src/shared/chatRequest.ts';
import { RecordedFailure, UpstreamUnavailableError } from '../../src/shared/errors.ts';
import { makeRepo, type TempRepo } from '../support/gitRepo.ts';
import { pipelineHarness, savedSnapshot } from './stageHarness.ts';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(full) : /\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

let repo: TempRepo;
before(() => {
  repo = makeRepo({ files: { 'README.md': '# Demo\n' } });
});
after(() => repo.cleanup());

test('outside the audit store, only the request record writes a snapshot', () => {
  const writers = filesUnder(SRC)
    .filter((file) => !file.startsWith(path.join(SRC, 'audit')))
    .filter((file) => /\.(save|saveInFlight)\(/.test(readFileSync(file, 'utf8')))
    .map((file) => path.relative(SRC, file));
  assert.deepEqual(writers, ['pipeline/requestRecord.ts']);
});

test('a failed request is a value naming its snapshot; the error is not changed', async () => {
  const pipeline = await pipelineHarness({ workspace: repo.dir });
  const refusal = new UpstreamUnavailableError('Ollama is not running; start it with `ollama serve`.');
  pipeline.upstream.script = { refuse: refusal };
  const request = { model: 'qwen2.5-coder:7b', messages: [{ role: 'user', content: 'hello?' }] } as ChatRequest;
  const input = { request, headers: {}, requestId: 'req-1', signal: new AbortController().signal };
  const error = await runPipeline(input, pipeline.deps).then(
    () => assert.fail('the request should fail'),
    (failure: unknown) => failure,
  );
  assert.ok(error instanceof RecordedFailure, String(error));
  assert.equal(error.failure, refusal);
  assert.equal(Object.hasOwn(refusal, 'snapshotId'), false, 'nothing was set on the error');
  const snapshot = savedSnapshot(pipeline.store, error.snapshotId);
  assert.equal(snapshot.outcome, 'error');
  assert.equal(snapshot.error?.status, 502);
});
