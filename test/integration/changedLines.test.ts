// "What did I change?" through the real server and the real `openai` client:
// git-aware carries the changed lines and the new files (redacted like every
// item), and the turn after an edit carries the new hunk as an update.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { githubToken, seededRng } from '../redact/secretGen.ts';
import { chatTurn, withReply } from '../support/chatTurns.ts';
import { type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { makeRepo, type TempRepo } from '../support/gitRepo.ts';
import { writeObserved } from '../support/observedWrite.ts';
import { type RunningProxy, startProxy } from '../support/proxy.ts';

const MODEL = 'qwen2.5-coder:7b';

let fake: FakeOllama;
let repo: TempRepo;
let proxy: RunningProxy;

before(async () => {
  fake = await startFakeOllama();
  repo = makeRepo({
    files: { 'src/rates.js': 'export const rate = 0.1;\nexport const currency = "EUR";\n' },
    checkout: 'feature/rates',
    staged: { 'src/rates.js': 'export const rate = 0.15;\nexport const currency = "EUR";\n' },
  });
  proxy = await startProxy({ upstreamUrl: fake.url, workspace: repo.dir, settings: { mode: 'auto' } });
});
after(async () => {
  await proxy.close();
  await fake.close();
  repo.cleanup();
});

describe('changed lines in git-aware', () => {
  test('the hunks and the new files reach the model, secrets masked; the next turn carries the new hunk', async () => {
    const token = githubToken(seededRng(5), 'ghp');
    repo.write('tools/new/seed.js', `// seeds the rates table\nconst key = "${token}";\n`);
    const client = proxy.client();
    const first = [{ role: 'user' as const, content: 'What did I change?' }];
    const t1 = await chatTurn(proxy, client, fake, first, { model: MODEL, mode: 'git-aware' });
    const wire1 = JSON.stringify(t1.received);
    assert.match(wire1, /<context source=\\"git\.diff\.staged\\"/);
    assert.match(wire1, /\+export const rate = 0\.15;/, 'the staged line itself');
    assert.match(wire1, /tools\/new\/seed\.js/, 'a file inside an untracked folder is named');
    assert.match(wire1, /seeds the rates table/, 'and its head is shown');
    assert.doesNotMatch(wire1, new RegExp(token), 'the planted token is masked');

    await writeObserved(repo, 'src/rates.js', 'export const rate = 0.15;\nexport const currency = "USD";\n');
    const t2 = await chatTurn(proxy, client, fake, withReply(first, t1.reply, 'And now?'), {
      model: MODEL,
      mode: 'git-aware',
    });
    const last = t2.received.at(-1)?.content ?? '';
    assert.match(last, /<context-update source="git\.diff\.unstaged"[\s\S]*\+export const currency = "USD";/);
    assert.equal(t2.snapshot.conversationId, t1.snapshot.conversationId, 'the same conversation');
  });
});
