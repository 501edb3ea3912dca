// The prompt fits the model's window even when the model says it counts fewer
// tokens than our estimator does. Ollama's prompt_eval_count can leave out the
// cached part of a prompt, and a fake (or rough) tokenizer can count far less
// than cl100k: a calibration ratio below 1 then let the budget pack about
// 1 / ratio times the usable share into an 8k window, with no warning.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { countedTexts, createTokenCounter } from '../../src/budget/index.ts';
import type { ChatMessage } from '../../src/shared/types.ts';
import { assertAuditMatchesUpstream } from '../support/auditMatchesUpstream.ts';
import { type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { makeRepo, type TempRepo } from '../support/gitRepo.ts';
import { type RunningProxy, startProxy } from '../support/proxy.ts';

const SMALL = 'llama3.2:3b'; // the fake reports an 8,192-token window
/** What the model claims to count, per token of our estimate (a prompt cache hit, a coarse tokenizer). */
const CLAIMED_RATIO = 0.7;

let fake: FakeOllama;
let repo: TempRepo;
let proxy: RunningProxy;

/** A module of `lines` functions whose names and values change with `seed`: code, not prose. */
function module(seed: number, lines: number, edit = ''): string {
  return Array.from(
    { length: lines },
    (_, i) =>
      `export function calc_${seed}_${i}(rate_${i}: number): number { return rate_${i} * ${seed * 31 + i}${edit}; }`,
  ).join('\n');
}

before(async () => {
  fake = await startFakeOllama();
  const files: Record<string, string> = { 'CLAUDE.md': 'Run npm test before committing.\n' };
  for (let i = 0; i < 120; i++) files[`src/area${i % 6}/mod${i}.ts`] = `${module(i, 3)}\n`;
  for (let i = 0; i < 12; i++) files[`src/work/job${i}.ts`] = `${module(1000 + i, 40)}\n`;
  const unstaged: Record<string, string> = {};
  // A large work in progress: every line of twelve files changed, far more than 5,120 tokens of diff and files.
  for (let i = 0; i < 12; i++) unstaged[`src/work/job${i}.ts`] = `${module(1000 + i, 40, ' + 1')}\n`;
  repo = makeRepo({ files, unstaged });
  proxy = await startProxy({ upstreamUrl: fake.url, workspace: repo.dir, settings: { mode: 'deep' } });
});
after(async () => {
  await proxy.close();
  await fake.close();
  repo.cleanup();
});

/** The project's counter, counting long texts exactly (as the budget does), at ratio 1. */
async function exactCount(messages: ChatMessage[]): Promise<number> {
  const counter = await createTokenCounter().prepare(countedTexts(messages));
  return counter.countMessages(messages);
}

test('a model that claims to count fewer tokens than our estimate still gets a prompt within the usable budget', async () => {
  // One answer in which the model counts 0.7 of our estimate calibrates the ratio to 0.7.
  const question = [{ role: 'user' as const, content: module(7, 30) }];
  const estimate = createTokenCounter().countMessages(question);
  fake.reply(SMALL, { promptEvalCount: Math.round(estimate * CLAIMED_RATIO) });
  try {
    await proxy
      .client()
      .chat.completions.create({ model: SMALL, messages: question }, { headers: { 'X-Ctx-Mode': 'off' } });
  } finally {
    fake.reply(SMALL, {});
  }
  await proxy.store.flush();
  const ratio = proxy.store.getCalibration(SMALL)?.ratio ?? 1;
  assert.ok(ratio < 0.8, `the calibration ratio (${ratio}) is below 1, as the model claimed`);

  const { response } = await proxy
    .client()
    .chat.completions.create({ model: SMALL, messages: [{ role: 'user', content: 'What did I change in src/work?' }] })
    .withResponse();
  assert.equal(response.headers.get('x-ctx-mode'), 'deep');
  await proxy.store.flush();
  const snapshot = proxy.store.get(response.headers.get('x-ctx-snapshot-id') as string);
  const budget = snapshot?.budget;
  assert.ok(budget);
  const forwarded = fake.chats.at(-1)?.body.messages as ChatMessage[];
  const sent = await exactCount(forwarded);
  assert.equal(budget.window, 8192);
  assert.ok(sent <= budget.usable, `the forwarded prompt counts ${sent} tokens, over the usable ${budget.usable}`);
  assert.ok((budget.numCtx ?? 0) >= sent + budget.reserve, `num_ctx ${budget.numCtx} holds the prompt and the reply`);
  // The budget's account is what was sent: the entries' tokens plus the block's framing make the block
  // (each fence counted on its own: a few tokens more or less than the block counted whole).
  const block = forwarded.find((m) => m.role === 'system')?.content as string;
  const blockTokens = await exactCount([{ role: 'system', content: block }]);
  const entries = budget.perEntry.reduce((sum, entry) => sum + entry.used, 0);
  assert.ok(
    Math.abs(blockTokens - entries) <= 100,
    `the entries' ${entries} tokens account for the ${blockTokens}-token block (the preamble aside)`,
  );
  // The figures are the raw count of what was sent; the calibrated ones stand beside them, labelled with the ratio.
  assert.equal(budget.promptTokens, sent);
  assert.equal(budget.calibrated?.ratio, ratio);
  assert.ok(
    Math.abs((budget.calibrated?.promptTokens ?? 0) - sent * ratio) <= 1,
    'the calibrated prompt is the raw one times the ratio',
  );
});

test('every snapshot of this suite holds the messages the upstream received, its context accounted for', async () => {
  await assertAuditMatchesUpstream(proxy, fake);
});
