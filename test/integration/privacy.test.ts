// A user plants secrets in a working copy and in their own message: none may
// reach the model server, and none may be written to the audit database file.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ALNUM, githubToken, password, pick, seededRng, UPPER } from '../redact/secretGen.ts';
import { assertAuditMatchesUpstream } from '../support/auditMatchesUpstream.ts';
import { type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { makeRepo, type TempRepo } from '../support/gitRepo.ts';
import { type RunningProxy, startProxy } from '../support/proxy.ts';

const rng = seededRng(20261129);
const awsKeyId = `AKIA${pick(rng, `${UPPER}234567`, 16)}`;
const awsSecret = pick(rng, `${ALNUM}/+`, 40);
const dbPassword = password(rng);
const userToken = githubToken(rng, 'ghp');
const stripeKey = `sk_live_${pick(rng, ALNUM, 24)}`;
const secrets = { awsKeyId, awsSecret, dbPassword, userToken, stripeKey };

let fake: FakeOllama;
let repo: TempRepo;
let proxy: RunningProxy;

before(async () => {
  fake = await startFakeOllama();
  repo = makeRepo({
    files: {
      'src/config.js': 'export const region = "eu-west-1";\n',
      '.gitignore': '.env\n',
      'CLAUDE.md': 'Deploy with `make deploy`.\n',
    },
    unstaged: {
      // A secret in a work-tree diff.
      'src/config.js': `export const region = "eu-west-1";\nexport const awsKeyId = "${awsKeyId}";\nexport const awsSecretAccessKey = "${awsSecret}";\n`,
    },
  });
  // A secret file by nature, and one the user names in the conversation.
  repo.write('.env', `DB_PASSWORD=${dbPassword}\n`);
  repo.write('deploy.log', `deploying...\nusing key ${stripeKey}\nError: deploy failed\n`);
  proxy = await startProxy({ upstreamUrl: fake.url, workspace: repo.dir, settings: { mode: 'deep' } });
});
after(async () => {
  await proxy.close();
  await fake.close();
  repo.cleanup();
});

test('secrets in a diff, a .env, a named log and the user’s own message reach neither the model nor the log', async () => {
  const question = `My token ${userToken} stopped working after the change in src/config.js. See @.env and @deploy.log`;
  const { response } = await proxy
    .client()
    .chat.completions.create({ model: 'qwen2.5-coder:7b', messages: [{ role: 'user', content: question }] })
    .withResponse();
  const upstreamBytes = JSON.stringify(fake.chats.at(-1)?.body);
  for (const [name, value] of Object.entries(secrets)) {
    assert.ok(!upstreamBytes.includes(value), `${name} reached the model server`);
  }
  // The line keeps its shape, so the model still knows there was a token there.
  assert.match(upstreamBytes, /My token \[REDACTED:[\w-]+\] stopped working/);
  assert.match(upstreamBytes, /awsKeyId = \\"\[REDACTED:[\w-]+\]\\"/);
  assert.match(upstreamBytes, /deploy\.log/);
  assert.match(upstreamBytes, /Error: deploy failed/);

  const id = response.headers.get('x-ctx-snapshot-id') as string;
  await proxy.store.flush();
  const snapshot = proxy.store.get(id);
  assert.ok(snapshot);
  assert.ok(Object.keys(snapshot.redactions).length > 0, 'the snapshot counts redactions by rule');
  const skipped = snapshot.sources.flatMap((report) => report.skipped.map((s) => s.path));
  assert.ok(skipped.includes('.env'), '.env is never read, and the report says so');

  // Everything written so far is on disk, in the database file or its write-ahead log.
  const directory = path.dirname(proxy.dbPath);
  const files = readdirSync(directory).filter((f) => f.startsWith(path.basename(proxy.dbPath)));
  assert.ok(files.length > 0);
  const marker = Buffer.from('stopped working after the change');
  assert.ok(
    files.some((file) => readFileSync(path.join(directory, file)).includes(marker)),
    'the scan reads the bytes the snapshot was written to',
  );
  for (const file of files) {
    const bytes = readFileSync(path.join(directory, file));
    for (const [name, value] of Object.entries(secrets)) {
      assert.ok(!bytes.includes(value), `${name} is in the raw bytes of ${file}`);
    }
  }
});

test('every snapshot of this suite holds the messages the upstream received, its context accounted for', async () => {
  await assertAuditMatchesUpstream(proxy, fake);
});
