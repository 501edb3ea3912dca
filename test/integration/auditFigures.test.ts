// The snapshot's figures are counted on what was sent: for every route, in a
// conversation (the later turn carries its context), with and without a learned
// calibration, the snapshot's tokens are one counter over exactly the messages
// the fake upstream received, the calibrated figures beside them with their
// ratio, and every source's tokens include what it carried.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { countedTexts, createTokenCounter } from '../../src/budget/index.ts';
import { ATTACHMENT_INTRO } from '../../src/shared/contextFences.ts';
import type { ChatMessage, Snapshot } from '../../src/shared/types.ts';
import { type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { makeRepo, type TempRepo } from '../support/gitRepo.ts';
import { type RunningProxy, startProxy } from '../support/proxy.ts';

const PLAIN = 'qwen2.5-coder:7b';
const CALIBRATED = 'llama3.2:3b';

let fake: FakeOllama;
let repo: TempRepo;
let proxy: RunningProxy;

before(async () => {
  fake = await startFakeOllama();
  repo = makeRepo({
    files: { 'AGENTS.md': '# Agents\nRun `make check` before committing.\n', 'src/app.js': 'export const app = 1;\n' },
    unstaged: { 'src/app.js': 'export const app = 2;\n' },
  });
  proxy = await startProxy({ upstreamUrl: fake.url, workspace: repo.dir, settings: { mode: 'git-aware' } });
});
after(async () => {
  await proxy.close();
  await fake.close();
  repo.cleanup();
});

async function post(path: string, body: unknown): Promise<{ snapshot: Snapshot; json: Record<string, unknown> }> {
  const response = await fetch(`${proxy.baseURL}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as Record<string, unknown>;
  assert.equal(response.status, 200, JSON.stringify(json));
  return { snapshot: await proxy.snapshotOf(response), json };
}

/** The received messages with the context taken out, found by its own markers (not by the audit's account). */
function conversationOnly(messages: ChatMessage[]): ChatMessage[] {
  return messages
    .filter((m) => !(m.role === 'system' && String(m.content).includes('<context source=')))
    .map((m) => {
      const text = String(m.content);
      const at = text.indexOf(`\n\n${ATTACHMENT_INTRO}`);
      return at < 0 ? m : { ...m, content: text.slice(0, at) };
    });
}

/** The figures of a chat-pipeline snapshot against the upstream request it made. */
async function assertFigures(snapshot: Snapshot, ratio: number, where: string): Promise<void> {
  const received = fake.chats.at(-1)?.body.messages as ChatMessage[];
  const wire = (messages: ChatMessage[]) => messages.map((m) => [m.role, m.content]);
  assert.deepEqual(wire(snapshot.forwarded), wire(received), `${where}: the snapshot holds what was received`);
  const conversation = conversationOnly(received);
  const counter = await createTokenCounter().prepare([...countedTexts(received), ...countedTexts(conversation)]);
  const budget = snapshot.budget;
  assert.ok(budget, `${where}: a budget report`);
  assert.equal(budget.promptTokens, counter.countMessages(received), `${where}: the prompt's tokens`);
  assert.equal(budget.conversationTokens, counter.countMessages(conversation), `${where}: the conversation's tokens`);
  const parts = budget.parts ?? [];
  assert.equal(
    budget.contextTokens,
    parts.reduce((sum, part) => sum + part.tokens, 0),
    `${where}: the context is its parts`,
  );
  assert.ok(budget.contextTokens > 0 && budget.promptTokens > budget.conversationTokens, `${where}: context was sent`);
  const calibrated = budget.calibrated;
  assert.ok(calibrated, `${where}: calibrated figures beside the raw ones`);
  assert.equal(calibrated.ratio, ratio, `${where}: labelled with the ratio the budget used`);
  for (const key of ['promptTokens', 'conversationTokens', 'contextTokens'] as const) {
    const raw = budget[key] ?? 0;
    assert.ok(Math.abs(calibrated[key] - raw * ratio) <= ratio + 1, `${where}: calibrated ${key} is raw x ratio`);
  }
  // Every source's tokens are its share of what was sent, carried parts included.
  for (const report of snapshot.sources) {
    const shares = parts.flatMap((part) => part.sources.filter((s) => s.source === report.source));
    assert.equal(
      report.tokens ?? 0,
      shares.reduce((sum, s) => sum + s.tokens, 0),
      `${where}: ${report.source} tokens`,
    );
  }
  const entries = budget.perEntry.reduce((sum, entry) => sum + entry.used, 0);
  const fenced = parts.flatMap((part) => part.sources).reduce((sum, s) => sum + s.tokens, 0);
  assert.equal(entries, fenced, `${where}: the plan entries account for every fence sent`);
}

const ratioOf = (model: string) => proxy.store.getCalibration(model)?.ratio ?? 1;

for (const [label, model] of [
  ['without a calibration', PLAIN],
  ['with a calibration of 1.6', CALIBRATED],
] as const) {
  describe(`figures from what was sent, ${label}`, () => {
    before(() => {
      if (model === CALIBRATED) proxy.deps.calibration?.set(CALIBRATED, { ratio: 1.6, samples: 10 });
    });

    /** Two turns of one conversation through a route: the second carries the first's block. */
    async function conversation(
      route: string,
      turn: (history: ChatMessage[]) => Promise<{ snapshot: Snapshot; reply: string }>,
    ): Promise<void> {
      // Its own words per route and model: two chats with the same history could not be told apart.
      const first: ChatMessage[] = [{ role: 'user', content: `What changed in src/app.js? (${route}, ${label})` }];
      const ratio1 = ratioOf(model);
      const t1 = await turn(first);
      await assertFigures(t1.snapshot, ratio1, `${route} turn 1`);
      const ratio2 = ratioOf(model);
      const t2 = await turn([
        ...first,
        { role: 'assistant', content: t1.reply },
        { role: 'user', content: 'And why?' },
      ]);
      await assertFigures(t2.snapshot, ratio2, `${route} turn 2`);
      const parts = t2.snapshot.budget?.parts ?? [];
      assert.ok(
        parts.some((part) => part.carried),
        `${route} turn 2 carries the block: ${JSON.stringify(parts.map((p) => p.kind))}`,
      );
      const carried = t2.snapshot.sources.filter((s) => (s.carriedTokens ?? 0) > 0);
      assert.ok(carried.length > 0, `${route} turn 2: the sources say what they carried`);
      assert.ok(
        t2.snapshot.sources.every((s) => (s.tokens ?? 0) >= (s.carriedTokens ?? 0)),
        'carried within tokens',
      );
    }

    test('chat completions', async () => {
      await conversation('chat', async (messages) => {
        const { snapshot, json } = await post('/chat/completions', { model, messages });
        const choices = json.choices as { message: { content: string } }[];
        return { snapshot, reply: choices[0]?.message.content ?? '' };
      });
    });

    test('responses', async () => {
      await conversation('responses', async (messages) => {
        const input = messages.map((m) => ({ role: m.role, content: m.content }));
        const { snapshot, json } = await post('/responses', { model, input, store: false });
        return { snapshot, reply: String(json.output_text ?? snapshot.reply.content) };
      });
    });

    test('messages', async () => {
      await conversation('messages', async (messages) => {
        const { snapshot, json } = await post('/messages', { model, max_tokens: 200, messages });
        const content = json.content as { type: string; text?: string }[];
        return { snapshot, reply: content.find((block) => block.type === 'text')?.text ?? '' };
      });
    });

    test('completions: what was sent, and the upstream’s own counts', async () => {
      const { snapshot } = await post('/completions', { model, prompt: 'function add(a, b) {', suffix: '}' });
      const body = fake.generates.at(-1)?.body as { prompt: string; suffix: string };
      assert.deepEqual(
        snapshot.forwarded.map((m) => m.content),
        [body.suffix, body.prompt],
        'the suffix and the prompt as received',
      );
      assert.ok((snapshot.usage?.promptTokens ?? 0) > 0, 'the upstream’s prompt count');
    });

    test('embeddings: the size and hash of every input as sent', async () => {
      const { snapshot, json } = await post('/embeddings', { model, input: ['alpha text', 'beta text'] });
      const body = fake.embeds.at(-1)?.body as { input: string[] };
      const recorded = String(snapshot.forwarded[0]?.content);
      body.input.forEach((text, index) => {
        const hash = createHash('sha256').update(text).digest('hex').slice(0, 16);
        assert.match(recorded, new RegExp(`#${index} ${text.length} chars sha256:${hash}`));
      });
      const usage = json.usage as { prompt_tokens: number };
      assert.equal(snapshot.usage?.promptTokens, usage.prompt_tokens);
    });
  });
}
