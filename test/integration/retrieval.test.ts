// Retrieval and "context once" through the real server (issue 23 parts 3-4,
// issue 25 part 4): the real sources on a real repository, the real `openai`
// client, the fake Ollama recording what the model would see.
//
// - a question about who uses a function gets its callers from other files;
// - a follow-up ("and where is it used?") retrieves again for the earlier
//   turn's subject; its callers reach the model once (carried or new);
// - what the client already sent (an agent's AGENTS.md and a pasted file in
//   its system prompt) is not sent again, and the snapshot says why;
// - a file named in an old turn is not re-attached by a later turn that names
//   something else.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type OpenAI from 'openai';
import type { ChatMessage } from '../../src/shared/types.ts';
import { chatTurn } from '../support/chatTurns.ts';
import { type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { makeRepo, type TempRepo } from '../support/gitRepo.ts';
import { type RunningProxy, startProxy } from '../support/proxy.ts';

const MODEL = 'qwen2.5-coder:7b';
const AGENTS = [
  '# Agent notes',
  'Always run the linter before you commit anything.',
  'Prefer small pull requests with a clear description.',
  'Never touch the vendored payment client directly.',
].join('\n');
const RATES = [
  'export function computeRate(amount, region) {',
  '  const table = { eu: 0.19, us: 0.07 };',
  '  return amount * (table[region] ?? 0.1);',
  '}',
  '',
].join('\n');

describe('retrieval through the server', () => {
  let fake: FakeOllama;
  let repo: TempRepo;
  let proxy: RunningProxy;
  let client: OpenAI;

  before(async () => {
    fake = await startFakeOllama();
    repo = makeRepo({
      files: {
        'AGENTS.md': `${AGENTS}\n`,
        'src/rates.js': RATES,
        'src/invoice.js':
          "import { computeRate } from './rates.js';\n\nexport const total = (lines) => lines.reduce((sum, l) => sum + computeRate(l.amount, l.region), 0);\n",
        'src/report.js':
          "import { computeRate } from './rates.js';\n\nexport const euShare = computeRate(100, 'eu');\n",
        'src/other.js': 'export const unrelated = 1;\n',
      },
    });
    proxy = await startProxy({ upstreamUrl: fake.url, workspace: repo.dir, settings: { mode: 'auto' } });
    client = proxy.client();
  });
  after(async () => {
    await proxy.close();
    await fake.close();
    repo.cleanup();
  });

  const forwarded = (received: { content: string }[]) => received.map((m) => m.content).join('\n');

  test('who uses a function: its callers, from every file', async () => {
    const { received, snapshot } = await chatTurn(
      proxy,
      client,
      fake,
      [{ role: 'user', content: 'Who calls computeRate?' }],
      {
        model: MODEL,
      },
    );
    const text = forwarded(received);
    assert.match(text, /sum \+ computeRate\(l\.amount, l\.region\)/);
    assert.match(text, /export const euShare = computeRate\(100, 'eu'\);/);
    assert.ok(snapshot.sources.some((s) => s.source === 'retrieval' && s.items > 0));
  });

  test("a follow-up retrieves for the earlier turn's subject and sends what is new as the update", async () => {
    let history: ChatMessage[] = [{ role: 'user', content: 'What does `computeRate` return?' }];
    const first = await chatTurn(proxy, client, fake, history, { model: MODEL });
    history = [
      ...history,
      { role: 'assistant', content: first.reply },
      { role: 'user', content: 'And where is it used?' },
    ];
    const second = await chatTurn(proxy, client, fake, history, { model: MODEL });
    // The callers reach the model once: in the carried block if the first turn sent them, else in the update.
    const text = forwarded(second.received);
    assert.equal(text.split("export const euShare = computeRate(100, 'eu');").length - 1, 1, text);
    assert.match(text, /sum \+ computeRate\(l\.amount, l\.region\)/);
    const parts = second.snapshot.budget?.parts ?? [];
    assert.ok(parts.some((p) => p.kind === 'block' && p.carried));
  });

  test('what the client already sent is not sent again, and the snapshot says why', async () => {
    // An agent's system prompt: its own copy of AGENTS.md and of a file it read.
    const system = `You are a coding agent.\n\n<instructions>\n${AGENTS}\n</instructions>\n\n<file path="src/rates.js">\n${RATES}</file>`;
    const { received, snapshot } = await chatTurn(
      proxy,
      client,
      fake,
      [
        { role: 'system', content: system },
        { role: 'user', content: 'Explain src/rates.js and follow AGENTS.md.' },
      ],
      { model: MODEL },
    );
    const context = received
      .filter((m) => m.role === 'system' && m.content !== system)
      .map((m) => m.content)
      .join('\n');
    assert.doesNotMatch(context, /Never touch the vendored payment client/);
    assert.doesNotMatch(context, /table\[region\] \?\? 0\.1/);
    const skipped = snapshot.sources.flatMap((s) => s.skipped.map((k) => `${k.path}: ${k.reason}`));
    assert.ok(
      skipped.some((line) => /AGENTS\.md: left out: already in the client's messages/.test(line)),
      skipped.join('\n'),
    );
    assert.ok(
      skipped.some((line) => /files\.named\.src\/rates\.js: left out/.test(line)),
      skipped.join('\n'),
    );
  });

  test('a file named in an old turn is not re-attached by a later turn about something else', async () => {
    // A fresh server: no conversation state, as after a restart or from a client that rewrites history.
    const fresh = await startProxy({ upstreamUrl: fake.url, workspace: repo.dir, settings: { mode: 'auto' } });
    try {
      const history: ChatMessage[] = [
        { role: 'user', content: 'Look at src/other.js please.' },
        { role: 'assistant', content: 'Done.' },
        { role: 'user', content: 'Now, who calls computeRate?' },
      ];
      const { snapshot } = await chatTurn(fresh, fresh.client(), fake, history, { model: MODEL });
      const keys = (snapshot.budget?.parts ?? []).flatMap((p) => p.sources.flatMap((s) => s.keys));
      assert.ok(!keys.includes('files.named.src/other.js'), keys.join(','));
      assert.ok(
        keys.some((key) => key.startsWith('retrieval.code.src/invoice.js')),
        keys.join(','),
      );
    } finally {
      await fresh.close();
    }
  });
});
