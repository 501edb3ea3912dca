// The downgrade ladder through the real server, on a model whose /api/show
// reports an 8,192-token window: requested mode → quick → drop the oldest
// turns to keep quick's essentials → off only when the latest turn alone
// leaves no room.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type OpenAI from 'openai';
import { type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { makeRepo, type TempRepo } from '../support/gitRepo.ts';
import { type RunningProxy, startProxy } from '../support/proxy.ts';

const SMALL = 'llama3.2:3b'; // the fake reports an 8,192-token window
type Message = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type Sent = { role: string; content: string };

const WORDS = 'we looked at the ledger code again and agreed to keep the totals in cents for now'.split(' ');
const prose = (tokens: number, seed: string) =>
  `${seed} ${Array.from({ length: tokens }, (_, i) => WORDS[i % WORDS.length]).join(' ')}`;

/** A chat of `turns` question/answer pairs, then the latest question. */
function chat(turns: number, tokensEach: number, latest: string): Message[] {
  const messages: Message[] = [];
  for (let i = 0; i < turns; i++) {
    messages.push({ role: 'user', content: `turn ${i}: ${prose(tokensEach, 'q')}` });
    messages.push({ role: 'assistant', content: `answer ${i}: ${prose(tokensEach, 'a')}` });
  }
  messages.push({ role: 'user', content: latest });
  return messages;
}

let fake: FakeOllama;
let repo: TempRepo;
let proxy: RunningProxy;

before(async () => {
  fake = await startFakeOllama();
  repo = makeRepo({
    files: {
      'CLAUDE.md': 'Amounts are integer cents; never use floats for money.\n',
      'src/ledger.ts':
        'export function parseLedger(text: string): number[] {\n  return text.split("\\n").map(Number);\n}\n',
      'src/other.ts': 'export const other = 1;\n',
      // 45 lines, ~1,300 tokens: whole in the item (the files source keeps 50 lines), more than quick keeps.
      'src/invoice.ts': `${Array.from({ length: 10 }, (_, i) => `/** ${prose(100, 'note')} */\nexport function helper${i}(x: number): number {\n  return x + ${i};\n}\n`).join('')}export function computeTotal(lines: number[]): number {\n  const cents = lines.reduce((a, b) => a + b, 0);\n  return cents;\n}\n`,
    },
    checkout: 'feature/ledger-cents',
    unstaged: { 'src/other.ts': `${'export const changed = 2;\n'.repeat(200)}` },
  });
  proxy = await startProxy({ upstreamUrl: fake.url, workspace: repo.dir, settings: { mode: 'git-aware' } });
});
after(async () => {
  await proxy.close();
  await fake.close();
  repo.cleanup();
});

const snapshotOf = (response: Response) => proxy.snapshotOf(response);
const lastSent = () => (fake.chats.at(-1)?.body.messages ?? []) as Sent[];

describe('the downgrade ladder on an 8k model', () => {
  test("a 30-turn chat keeps quick's essentials: the oldest turns go, not the repository context", async () => {
    const messages = chat(30, 100, 'What does parseLedger in src/ledger.ts return?');
    const { response } = await proxy.client().chat.completions.create({ model: SMALL, messages }).withResponse();
    assert.equal(response.headers.get('x-ctx-mode'), 'quick');
    const header = response.headers.get('x-ctx-warning') ?? '';
    assert.match(header, /mode git-aware -> quick/);
    assert.match(header, /oldest messages dropped/);

    const sent = lastSent();
    const all = sent.map((m) => m.content).join('\n');
    assert.match(all, /integer cents; never use floats/, 'the instruction file survives');
    assert.match(all, /feature\/ledger-cents/, 'the branch survives');
    assert.match(all, /export function parseLedger/, 'the named file survives');
    assert.ok(
      sent.some((m) => /earlier messages were left out/.test(m.content)),
      'a marker says what went',
    );
    assert.ok(!sent.some((m) => m.content.startsWith('turn 0:')), 'the oldest turn went');
    assert.equal(sent.at(-1)?.content.startsWith('What does parseLedger'), true, 'the latest turn stays');

    const snapshot = await snapshotOf(response);
    assert.equal(snapshot.modeAsked, 'git-aware');
    assert.equal(snapshot.modeUsed, 'quick');
    assert.match(
      snapshot.downgradeReason ?? '',
      /^The conversation \(~\d+ tokens\) plus the smallest useful git-aware context \(~\d+ tokens\) exceeds the \d+-token limit for this model's 8192-token window; re-planned in quick mode and the \d+ oldest messages left out to keep its ~\d+-token context\.$/,
    );
    assert.ok(snapshot.warnings.some((w) => /^\d+ oldest messages dropped to keep quick mode's context/.test(w)));
  });

  test('a chat that fits with quick context is re-planned in quick mode and loses no turn', async () => {
    // The smallest chat too long for git-aware's smallest useful context, found by growing the oldest turn (the
    // two contexts' sizes move whenever a source changes what it sends; the behaviour asked for does not): it
    // must go to quick whole, not drop a turn, as long as quick's smallest context is smaller.
    const latest = 'What does parseLedger in src/ledger.ts return?';
    const sized = (extra: number) => {
      const messages = chat(19, 100, latest);
      const first = messages[0] as { role: 'user'; content: string };
      messages[0] = { role: 'user', content: `${first.content} ${prose(extra, 'pad')}` };
      return messages;
    };
    const ask = async (extra: number) => {
      const { response } = await proxy
        .client()
        .chat.completions.create({ model: SMALL, messages: sized(extra) })
        .withResponse();
      return response;
    };
    // git-aware fits with no padding; with 600 more tokens it cannot.
    assert.equal((await ask(0)).headers.get('x-ctx-mode'), 'git-aware');
    let fits = 0;
    let over = 600;
    assert.notEqual((await ask(over)).headers.get('x-ctx-mode'), 'git-aware');
    while (over - fits > 1) {
      const middle = Math.floor((fits + over) / 2);
      if ((await ask(middle)).headers.get('x-ctx-mode') === 'git-aware') fits = middle;
      else over = middle;
    }
    const response = await ask(over);
    assert.equal(response.headers.get('x-ctx-mode'), 'quick');
    assert.doesNotMatch(response.headers.get('x-ctx-warning') ?? '', /oldest messages? dropped/);
    const sent = lastSent();
    assert.ok(
      sent.some((m) => m.content.startsWith('turn 0:')),
      'the oldest turn stays',
    );
    assert.match(sent.map((m) => m.content).join('\n'), /export function parseLedger/);
  });

  test('off only when the latest turn alone leaves no room for the quick context', async () => {
    const messages = chat(4, 100, `Please read this: ${prose(4400, 'long')}`);
    const { response } = await proxy.client().chat.completions.create({ model: SMALL, messages }).withResponse();
    assert.equal(response.headers.get('x-ctx-mode'), 'off');
    const snapshot = await snapshotOf(response);
    assert.match(
      snapshot.downgradeReason ?? '',
      /even the latest turn with the smallest quick context \(~\d+ tokens\) does not fit; sending no context \(off\)\.$/,
    );
    assert.doesNotMatch(
      lastSent()
        .map((m) => m.content)
        .join('\n'),
      /integer cents/,
    );
  });

  test('with little room left, the named file keeps the function the question names, not only its head', async () => {
    const messages = chat(30, 100, 'In src/invoice.ts, what does computeTotal return?');
    const { response } = await proxy.client().chat.completions.create({ model: SMALL, messages }).withResponse();
    assert.equal(response.headers.get('x-ctx-mode'), 'quick');
    const snapshot = await snapshotOf(response);
    assert.ok(
      snapshot.sources.some((s) => s.source === 'files' && (s.trimmed?.length ?? 0) > 0),
      'the file was trimmed',
    );
    const all = lastSent()
      .map((m) => m.content)
      .join('\n');
    assert.match(
      all,
      /export function computeTotal\(lines: number\[\]\): number \{\n {2}const cents = [^\n]*\n {2}return cents;\n\}/,
    );
  });
});
