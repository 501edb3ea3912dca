// Stage 5, assemble, through runPipeline with the real stages: where the
// context block goes (after the client's own system prompt, before the
// conversation, the user's words untouched), the block repeated byte for byte
// at the next turn of the same conversation, and the upstream's own fields.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { ChatMessage } from '../../src/shared/types.ts';
import { makeRepo, type TempRepo } from '../support/gitRepo.ts';
import { pipelineHarness } from './stageHarness.ts';

let repo: TempRepo;

before(() => {
  repo = makeRepo({
    files: { 'src/app.js': 'export const answer = 41;\n', 'CLAUDE.md': 'Run the tests first.\n' },
    unstaged: { 'src/app.js': 'export const answer = 42;\n' },
  });
});
after(() => repo.cleanup());

const system: ChatMessage = { role: 'system', content: 'You are terse.' };
const question: ChatMessage = { role: 'user', content: 'What did I change?' };

test('the block is a system message after the client’s system prompt; the user’s message is sent as written', async () => {
  const pipeline = await pipelineHarness({ workspace: repo.dir });
  const { snapshot } = await pipeline.chat({ messages: [system, question] }, { mode: 'git-aware' });
  const sent = pipeline.upstream.sent.at(-1)?.request.messages ?? [];
  assert.deepEqual(
    sent.map((m) => m.role),
    ['system', 'system', 'user'],
  );
  assert.deepEqual(sent[0], system);
  assert.match(String(sent[1]?.content), /^ctxproxy collected the context below locally/);
  assert.match(String(sent[1]?.content), /<context source="git\.[^"]+"/);
  assert.deepEqual(sent[2], question);
  assert.equal(snapshot.contextBlock, sent[1]?.content);
  const block = snapshot.budget?.parts?.find((part) => part.kind === 'block');
  assert.equal(block?.message, 1);
  assert.equal(block?.carried, false);
});

test('the next turn of the conversation repeats the block byte for byte and records it as carried', async () => {
  const pipeline = await pipelineHarness({ workspace: repo.dir });
  const first = await pipeline.chat({ messages: [system, question] }, { mode: 'git-aware' });
  const firstSent = pipeline.upstream.sent.at(-1)?.request.messages ?? [];
  const next: ChatMessage[] = [
    system,
    question,
    { role: 'assistant', content: first.reply },
    { role: 'user', content: 'And why?' },
  ];
  const second = await pipeline.chat({ messages: next }, { mode: 'git-aware' });
  const secondSent = pipeline.upstream.sent.at(-1)?.request.messages ?? [];
  assert.deepEqual(secondSent.slice(0, firstSent.length), firstSent, 'turn 2 begins with what turn 1 sent');
  assert.equal(second.snapshot.conversationId, first.snapshot.conversationId);
  const block = second.snapshot.budget?.parts?.find((part) => part.kind === 'block');
  assert.equal(block?.carried, true);
  assert.equal(block?.fromSnapshot, first.result.snapshotId);
});

test('quick mode turns thinking off; tools and sampling fields go to the upstream as the client set them', async () => {
  const pipeline = await pipelineHarness({ workspace: repo.dir });
  const tools = [{ type: 'function' as const, function: { name: 'lookup', parameters: { type: 'object' } } }];
  await pipeline.chat({ messages: [question], temperature: 0.2, tools } as never, { mode: 'quick' });
  const quick = pipeline.upstream.sent.at(-1)?.request;
  assert.equal(quick?.think, false);
  assert.equal(quick?.params.temperature, 0.2);
  assert.equal(quick?.tools?.[0]?.function.name, 'lookup');
  await pipeline.chat({ messages: [question] }, { mode: 'git-aware' });
  assert.equal(pipeline.upstream.sent.at(-1)?.request.think, undefined);
});
