// Stage 3, redact, through runPipeline with the real redactor: a secret in
// the repository and one in the user's own message are masked before the
// budget counts them, so neither the model nor the log ever holds them.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { defaultStages } from '../../src/pipeline/defaultDeps.ts';
import { redactItems } from '../../src/pipeline/redactStage.ts';
import { createRedactor } from '../../src/redact/createRedactor.ts';
import { contentHash } from '../../src/shared/contentHash.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import type { RedactedItem, Segment } from '../../src/shared/types.ts';
import { githubToken, pick, privateKey, seededRng, UPPER } from '../redact/secretGen.ts';
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
  let items: readonly RedactedItem[] = [];
  const pipeline = await pipelineHarness({
    workspace: repo.dir,
    stages: {
      budget: (so, deps) => {
        seen = JSON.stringify([so.redacted.items, so.redacted.messages]);
        items = so.redacted.items;
        return defaultStages.budget(so, deps);
      },
    },
  });
  const question = `My token ${userToken} broke`;
  await pipeline.chat({ messages: [{ role: 'user', content: question }] }, { mode: 'git-aware' });
  assert.match(seen, /git\.diff/, 'the diff was collected');
  assert.ok(!seen.includes(awsKeyId) && !seen.includes(userToken), 'the budget saw a secret');
  // Each item carries the hash of the text it holds now, masked ones too: the caches after redact key by it.
  for (const item of items) assert.equal(item.hash, contentHash(item.text), item.key);
  assert.ok(
    items.some((item) => item.text.includes('[REDACTED:')),
    'a masked item was among them',
  );
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

test('a secret the question names is masked in each item’s why, in the snapshot and in the request', async () => {
  // Retrieval explains its pick with the question's words ("uses <term>"): a term that is a token
  // must not reach the audit's why table or left-out list unmasked, whether the item was sent or not.
  const token = githubToken(rng, 'ghp');
  const named = makeRepo({ files: { 'deploy/settings.conf': `[auth]\ntoken = ${token}\n`, 'src/app.js': 'x;\n' } });
  try {
    const pipeline = await pipelineHarness({ workspace: named.dir });
    for (const question of [`Where is ${token} used?`, `why does \`${token}\` fail in deploy/settings.conf`]) {
      const { snapshot } = await pipeline.chat({ messages: [{ role: 'user', content: question }] }, { mode: 'deep' });
      const whys = [
        ...(snapshot.budget?.parts ?? []).flatMap((part) => part.sources.flatMap((s) => s.items ?? [])),
        ...(snapshot.budget?.leftOut ?? []),
      ].flatMap((item) => (item.why === undefined ? [] : [item.why]));
      assert.ok(
        whys.some((why) => /\[REDACTED:[\w-]+\]/.test(why)),
        `a why names the masked term: ${whys.join(' | ')}`,
      );
      assert.ok(!JSON.stringify(snapshot).includes(token), 'the token reached the log');
      assert.ok(!JSON.stringify(pipeline.upstream.sent.at(-1)?.request).includes(token), 'the token reached the model');
    }
  } finally {
    named.cleanup();
  }
});

test('a masked key that spans lines moves the diff’s later hunks up with it', async () => {
  // The key's body lines become one mask: the hunk after it must still start at its own `@@` line.
  const key = privateKey(rng, 'rsa-pkcs1').trimEnd().split('\n');
  const lines = [
    'diff --git a/deploy/key.pem b/deploy/key.pem',
    '@@ -0,0 +1,27 @@',
    ...key.map((line) => `+${line}`),
    'diff --git a/src/app.js b/src/app.js',
    '@@ -1 +1 @@',
    '-x;',
    '+y;',
  ];
  const at = (prefix: string, from = 0) => lines.findIndex((line, i) => i >= from && line.startsWith(prefix));
  const second = at('diff --git', 1);
  const segments: Segment[] = [
    { kind: 'header', start: 0, end: 0 },
    { kind: 'hunk', start: 1, end: second - 1 },
    { kind: 'header', start: second, end: second },
    { kind: 'hunk', start: second + 1, end: lines.length - 1 },
  ];
  const diff = { key: 'git.diff.unstaged', source: 'git', title: 'git diff', kind: 'diff' as const, priority: 1 };
  const redactor = await createRedactor();
  const { items } = await redactItems([{ ...diff, text: lines.join('\n'), segments }], redactor, [], silentLogger);
  const masked = items[0]?.text.split('\n') ?? [];
  assert.ok(masked.length < lines.length, 'the key’s lines became one mask');
  assert.deepEqual(
    items[0]?.segments?.map((segment) => masked[segment.start]?.slice(0, 10)),
    ['diff --git', '@@ -0,0 +1', 'diff --git', '@@ -1 +1 @'],
  );
  assert.equal(items[0]?.segments?.at(-1)?.end, masked.length - 1);
});
