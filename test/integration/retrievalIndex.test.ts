// The persistent retrieval index through the real server: the code a question
// points at arrives from the index (no "not ready" note in the snapshot), a
// secret in an indexed file still arrives masked, and the index file on disk
// holds neither the code nor the secret.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ALNUM, pick, seededRng, UPPER } from '../redact/secretGen.ts';
import { type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { makeRepo, type TempRepo } from '../support/gitRepo.ts';
import { until } from '../support/poll.ts';
import { type RunningProxy, startProxy } from '../support/proxy.ts';

const rng = seededRng(20261207);
const awsKeyId = `AKIA${pick(rng, `${UPPER}234567`, 16)}`;
const awsSecret = pick(rng, `${ALNUM}/+`, 40);

let fake: FakeOllama;
let repo: TempRepo;
let proxy: RunningProxy;

before(async () => {
  fake = await startFakeOllama();
  repo = makeRepo({
    files: {
      'billing/charge.py': [
        'import boto3',
        '',
        `AWS_ACCESS_KEY_ID = "${awsKeyId}"`,
        `AWS_SECRET_ACCESS_KEY = "${awsSecret}"`,
        '',
        '',
        'def charge_customer(customer, cents):',
        '    client = boto3.client("payments")',
        '    return client.charge(customer, cents)',
        '',
      ].join('\n'),
      // The caller's line itself carries a credential: the hit must arrive, masked.
      'billing/checkout.py': `from billing.charge import charge_customer\n\n\ndef checkout(cart):\n    return charge_customer(cart.owner, cart.total, key="${awsKeyId}")\n`,
    },
  });
  proxy = await startProxy({ upstreamUrl: fake.url, workspace: repo.dir, settings: { mode: 'git-aware' } });
});
after(async () => {
  await proxy.close();
  await fake.close();
  repo.cleanup();
});

test('retrieval answers from the index; a secret in an indexed file arrives masked; the index file holds no text', async () => {
  const ask = () =>
    fetch(`${proxy.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'qwen2.5-coder:7b',
        messages: [{ role: 'user', content: 'Who calls charge_customer, and which credentials does it use?' }],
      }),
    });
  // The first build runs in the background; a request that comes before it ends is answered by git grep
  // and its snapshot says so. Asked again until the index answers (on a loaded machine, a few tries).
  let fallbackNamed = true;
  let snapshot: Awaited<ReturnType<RunningProxy['snapshotOf']>> | undefined;
  await until(async () => {
    const response = await ask();
    assert.equal(response.status, 200);
    const upstream = JSON.stringify(fake.chats.at(-1)?.body);
    assert.match(upstream, /return charge_customer\(cart\.owner, cart\.total, key=\\"\[REDACTED:[\w-]+\]/);
    assert.ok(!upstream.includes(awsKeyId) && !upstream.includes(awsSecret), 'the secret reached the model');
    snapshot = await proxy.snapshotOf(response);
    const retrieval = snapshot.sources.find((report) => report.source === 'retrieval');
    assert.ok(retrieval && retrieval.items > 0);
    const notes = retrieval.skipped.filter((entry) => entry.path === '(retrieval index)');
    // Never a silent gap: an answer not from the index names why.
    if (notes.length > 0) assert.match(notes[0]?.reason ?? '', /not ready .*searched with git grep/);
    fallbackNamed = notes.length > 0;
    return !fallbackNamed;
  }, 'an answer from the index');
  assert.ok(snapshot);

  const folder = path.join(repo.dir, '.ctxproxy');
  const stored = fs
    .readdirSync(folder)
    .filter((name) => name.startsWith('index.db'))
    .map((name) => fs.readFileSync(path.join(folder, name)));
  assert.ok(stored.length > 0);
  for (const bytes of stored) {
    assert.ok(!bytes.includes(awsKeyId) && !bytes.includes(awsSecret), 'the secret is in the index file');
    assert.ok(!bytes.includes('charge_customer'), 'code text is in the index file');
  }
});
