// Stage 4, budget, through runPipeline with the real stages: a request that
// would not fit its model's window is re-planned in a lighter mode and says so
// (snapshot and warning), and the window Ollama loads the model with only grows.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { ChatMessage } from '../../src/shared/types.ts';
import { makeRepo, type TempRepo } from '../support/gitRepo.ts';
import { pipelineHarness } from './stageHarness.ts';

const WORDS = 'the build fails when the parser meets an empty file so we check the input first'.split(' ');
const prose = (tokens: number, seed: string) =>
  `${seed} ${Array.from({ length: tokens }, (_, i) => WORDS[i % WORDS.length]).join(' ')}`;

function history(turns: number, tokensEach: number): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: 'system', content: 'You are a careful assistant.' }];
  for (let i = 0; i < turns; i++) {
    messages.push({ role: 'user', content: `turn ${i}: ${prose(tokensEach, 'q')}` });
    messages.push({ role: 'assistant', content: `answer ${i}: ${prose(tokensEach, 'a')}` });
  }
  messages.push({ role: 'user', content: 'So what should I do next?' });
  return messages;
}

let repo: TempRepo;

before(() => {
  const files: Record<string, string> = { 'CLAUDE.md': 'Use tabs.\n' };
  for (let i = 0; i < 300; i++) files[`src/module${i}/file${i}.ts`] = `export const v${i} = ${i};\n`;
  repo = makeRepo({ files, unstaged: { 'src/module1/file1.ts': 'export const changed = 1;\n'.repeat(400) } });
});
after(() => repo.cleanup());

test('a deep request that does not fit an 8k window is downgraded, and the snapshot and warnings say why', async () => {
  const pipeline = await pipelineHarness({
    workspace: repo.dir,
    settings: { mode: 'deep', models: { 'llama3.2:3b': { window: 8192 } } },
  });
  const { snapshot, result } = await pipeline.chat({ model: 'llama3.2:3b', messages: history(4, 550) });
  assert.equal(snapshot.modeAsked, 'deep');
  assert.notEqual(snapshot.modeUsed, 'deep');
  assert.equal(result.modeUsed, snapshot.modeUsed);
  assert.ok(snapshot.downgradeReason, 'the reason is recorded');
  assert.ok(
    result.warnings.some((warning) => warning.includes('deep') && warning.includes(snapshot.modeUsed)),
    result.warnings.join('; '),
  );
  const budget = snapshot.budget;
  assert.ok(budget && budget.conversationTokens + budget.contextTokens + budget.reserve <= budget.window);
});

test('the same request on a model with room for it keeps its mode', async () => {
  const pipeline = await pipelineHarness({ workspace: repo.dir, settings: { mode: 'deep' } });
  const { snapshot } = await pipeline.chat({ messages: history(1, 50) });
  assert.equal(snapshot.modeUsed, 'deep');
  assert.equal(snapshot.downgradeReason, undefined);
});

test('num_ctx is sent to Ollama and a smaller request after a larger one keeps the loaded window', async () => {
  const pipeline = await pipelineHarness({ workspace: repo.dir });
  const sizes: (number | undefined)[] = [];
  for (const words of [6000, 10]) {
    const { snapshot } = await pipeline.chat({ messages: [{ role: 'user', content: prose(words, 's') }] });
    sizes.push(pipeline.upstream.sent.at(-1)?.request.numCtx);
    assert.equal(snapshot.budget?.numCtx, sizes.at(-1), 'the snapshot records the num_ctx sent');
  }
  assert.ok((sizes[0] ?? 0) >= 8192, `the large request needs a large window (${sizes[0]})`);
  assert.equal(sizes[1], sizes[0]);
});
