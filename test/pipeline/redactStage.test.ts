// Stage 3, redact, through runPipeline with the real redactor: a secret in
// the repository and one in the user's own message are masked before the
// budget counts them, so neither the model nor the log ever holds them.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { defaultStages } from '../../src/pipeline/defaultDeps.ts';
import { githubToken, pick, seededRng, UPPER } from '../redact/secretGen.ts';
import { makeRepo, type TempRepo } from '../support/gitRepo.ts';
import { pipelineHarness } from './stageHarness.ts';

const rng = seededRng(20261201);
const awsKeyId = `AKIA${pick(rng, `${UPPER}234567`, 16)}`;
const userToken = githubToken(rng, 'ghp');
let repo: TempRepo;

before(() => {
  repo = makeRepo({
    files: { 'src/config.js': 'export const region = "eu-west-1";\n' },
    unstaged: { 'src/config.js': `export const region = "eu-west-1";\nexport const awsKeyId = "${awsKeyId}";\n` },
  });
});
after(() => repo.cleanup());

test('secrets in a diff and in the user’s message are masked in what is sent and what is logged', async () => {
  const pipeline = await pipelineHarness({ workspace: repo.dir });
  const question = `My token ${userToken} stopped working after the change in src/config.js`;
  const { snapshot } = await pipeline.chat({ messages: [{ role: 'user', content: question }] }, { mode: 'git-aware' });
  const sent = JSON.stringify(pipeline.upstream.sent.at(-1)?.request);
  const logged = JSON.stringify(snapshot);
  for (const secret of [awsKeyId, userToken]) {
    assert.ok(!sent.includes(secret), 'a secret reached the model');
    assert.ok(!logged.includes(secret), 'a secret reached the log');
  }
  assert.match(sent, /My token \[REDACTED:[\w-]+\] stopped working/);
  assert.match(sent, /awsKeyId = \\"\[REDACTED:[\w-]+\]\\"/);
  const rules = Object.keys(snapshot.redactions);
  assert.ok(rules.length >= 2, `findings by rule: ${rules.join(', ')}`);
});

test('the budget stage only ever sees masked items and messages', async () => {
  // The real budget stage, watched: what it is handed is what redact produced.
  let seen = '';
  const pipeline = await pipelineHarness({
    workspace: repo.dir,
    stages: {
      budget: (so, deps) => {
        seen = JSON.stringify([so.redacted.items, so.redacted.messages]);
        return defaultStages.budget(so, deps);
      },
    },
  });
  const question = `My token ${userToken} broke`;
  await pipeline.chat({ messages: [{ role: 'user', content: question }] }, { mode: 'git-aware' });
  assert.match(seen, /git\.diff/, 'the diff was collected');
  assert.ok(!seen.includes(awsKeyId) && !seen.includes(userToken), 'the budget saw a secret');
});

test('with redactMessages off the user’s own words go as written; the repository is still masked', async () => {
  const pipeline = await pipelineHarness({ workspace: repo.dir, settings: { redactMessages: false } });
  const question = `token ${userToken}`;
  await pipeline.chat({ messages: [{ role: 'user', content: question }] }, { mode: 'git-aware' });
  const sent = pipeline.upstream.sent.at(-1)?.request;
  const user = sent?.messages.find((m) => m.role === 'user');
  assert.equal(user?.content, question);
  assert.ok(!JSON.stringify(sent).includes(awsKeyId));
});
