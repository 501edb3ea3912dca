// Stage 7, record, through runPipeline with the real stages: the answer as the
// client got it ends up in the snapshot (reply, usage, timings, outcome), a
// stream that breaks is recorded as an error, the model's own prompt count
// calibrates the next estimate, and only an answered turn is carried on.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { UpstreamResponseError } from '../../src/shared/errors.ts';
import type { ChatMessage } from '../../src/shared/types.ts';
import { makeRepo, type TempRepo } from '../support/gitRepo.ts';
import { onlySnapshot, pipelineHarness } from './stageHarness.ts';

let repo: TempRepo;
before(() => {
  repo = makeRepo({ files: { 'CLAUDE.md': 'Use tabs.\n' }, unstaged: { 'CLAUDE.md': 'Use spaces.\n' } });
});
after(() => repo.cleanup());

const question: ChatMessage = { role: 'user', content: 'What changed?' };

test('the reply, the usage, the timings and the outcome are in the snapshot once the answer ends', async () => {
  const pipeline = await pipelineHarness({ workspace: repo.dir });
  pipeline.upstream.script = { deltas: ['Tabs ', 'became ', 'spaces.'], promptTokens: 120 };
  const { snapshot, reply } = await pipeline.chat({ messages: [question] });
  assert.equal(reply, 'Tabs became spaces.');
  assert.equal(snapshot.outcome, 'ok');
  assert.equal(snapshot.reply.content, 'Tabs became spaces.');
  assert.equal(snapshot.reply.finishReason, 'stop');
  assert.equal(snapshot.usage?.promptTokens, 120);
  // The fake clock moves 5 ms a read: every timing is measured, none is left out.
  assert.ok((snapshot.timings.firstTokenMs ?? 0) > 0);
  assert.ok((snapshot.timings.upstreamMs ?? 0) >= (snapshot.timings.firstTokenMs ?? 0));
  assert.ok(snapshot.timings.totalMs > (snapshot.timings.upstreamMs ?? 0));
});

test('a stream that breaks is recorded as an error with the part of the reply that came', async () => {
  const pipeline = await pipelineHarness({ workspace: repo.dir });
  pipeline.upstream.script = { deltas: ['Half an'], failMidStream: new UpstreamResponseError(500, 'model crashed') };
  await assert.rejects(() => pipeline.chat({ messages: [question] }), /model crashed/);
  const snapshot = onlySnapshot(pipeline.store);
  assert.equal(snapshot.outcome, 'error');
  assert.equal(snapshot.reply.content, 'Half an');
  assert.equal(snapshot.error?.status, 500);
});

test('the model’s prompt count is kept as the model’s calibration; one far below the estimate is flagged', async () => {
  const pipeline = await pipelineHarness({ workspace: repo.dir });
  pipeline.upstream.script = { promptTokens: 2 };
  const long: ChatMessage = { role: 'user', content: 'the parser fails on empty files '.repeat(400) };
  const { snapshot } = await pipeline.chat({ messages: [long] });
  assert.ok(pipeline.calibrations.has('qwen2.5-coder:7b'), 'a calibration was saved');
  assert.ok(
    snapshot.warnings.some((warning) => /may have cut the prompt/.test(warning)),
    snapshot.warnings.join('; '),
  );
});

test('only an answered turn is carried into the next: after a failed one the block is planned afresh', async () => {
  const pipeline = await pipelineHarness({ workspace: repo.dir });
  pipeline.upstream.script = { deltas: ['Partial'], failMidStream: new UpstreamResponseError(500, 'model crashed') };
  await assert.rejects(() => pipeline.chat({ messages: [question] }, { mode: 'git-aware' }));
  pipeline.upstream.script = {};
  const next: ChatMessage[] = [question, { role: 'assistant', content: 'Partial' }, { role: 'user', content: 'Go on' }];
  const { snapshot } = await pipeline.chat({ messages: next }, { mode: 'git-aware' });
  const block = snapshot.budget?.parts?.find((part) => part.kind === 'block');
  assert.equal(block?.carried, false);
});
