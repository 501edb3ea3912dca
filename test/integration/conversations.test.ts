// Conversations through the real server with the real `openai` client: each
// request's mode decides what it carries, chats that open alike stay apart, an
// edited history starts over, and the audit accounts for every byte sent.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import type { ChatMessage } from '../../src/shared/types.ts';
import { githubToken, seededRng } from '../redact/secretGen.ts';
import { assertAuditMatchesUpstream } from '../support/auditMatchesUpstream.ts';
import { chatTurn, type TurnOptions, type WireMessage, withReply } from '../support/chatTurns.ts';
import { type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { makeRepo, type TempRepo } from '../support/gitRepo.ts';
import { writeObserved } from '../support/observedWrite.ts';
import { type RunningProxy, startProxy } from '../support/proxy.ts';

const MODEL = 'qwen2.5-coder:7b';
// Text that exists only in the workspace: if it reaches the upstream, context was sent.
const MARKER = 'AGENTS-MARKER-5d1e';

let fake: FakeOllama;
let repo: TempRepo;
let proxy: RunningProxy;
let client: OpenAI;
let edits = 0;

before(async () => {
  fake = await startFakeOllama();
  repo = makeRepo({
    files: {
      'AGENTS.md': `# Agents\nAlways run \`make check\` (${MARKER}).\n`,
      'src/app.js': 'export const app = 1;\n',
    },
    checkout: 'feature/conversations',
  });
  proxy = await startProxy({ upstreamUrl: fake.url, workspace: repo.dir, settings: { mode: 'auto' } });
  client = proxy.client();
});
after(async () => {
  await proxy.close();
  await fake.close();
  repo.cleanup();
});

/** A new untracked file: git status changes, so the next turn has something new to carry (see observedWrite.ts). */
async function editWorkspace(): Promise<string> {
  edits += 1;
  const name = `src/edit${edits}.js`;
  await writeObserved(repo, name, `export const edit = ${edits};\n`);
  return name;
}

const turn = (history: ChatMessage[], options: Partial<TurnOptions> = {}) =>
  chatTurn(proxy, client, fake, history, { model: MODEL, ...options });

/** The client's messages as the upstream should get them in mode off: nothing added, nothing collected. */
function assertOnlyClientMessages(received: WireMessage[], expected: ChatMessage[], why: string) {
  assert.deepEqual(
    received.map((m) => ({ role: m.role, content: m.content })),
    expected.map((m) => ({ role: m.role, content: m.content })),
    why,
  );
  const wire = JSON.stringify(received);
  assert.doesNotMatch(wire, new RegExp(MARKER), `${why}: no instruction file`);
  assert.doesNotMatch(wire, /<context|feature\/conversations|ctxproxy collected/, `${why}: no context`);
}

describe('mode off inside a conversation', () => {
  test('sends nothing collected in any turn, however off is asked for, while other turns carry context', async () => {
    let history: ChatMessage[] = [{ role: 'user', content: 'What is this project?' }];
    const t1 = await turn(history);
    assert.match(JSON.stringify(t1.received), new RegExp(MARKER), 'turn 1 in auto carries the instructions');
    await editWorkspace();

    // The header.
    history = withReply(history, t1.reply, 'And in plain words?');
    const t2 = await turn(history, { mode: 'off' });
    assertOnlyClientMessages(t2.received, history, 'header off');
    assert.equal(t2.headers.get('x-ctx-mode'), 'off');
    assert.match(t2.headers.get('x-ctx-warning') ?? '', /mode off: the context carried since turn 1/);
    assert.deepEqual(t2.snapshot.budget?.parts, []);
    assert.deepEqual(t2.snapshot.sources, [], 'no source ran');
    assert.equal(t2.snapshot.contextBlock, undefined);

    // Back to auto: the block of turn 1 is carried, the edit comes as an update.
    history = withReply(history, t2.reply, 'What changed?');
    const t3 = await turn(history);
    const parts = t3.snapshot.budget?.parts ?? [];
    assert.deepEqual(
      parts.map((p) => [p.kind, p.carried, p.fromTurn, p.fromSnapshot]),
      [
        ['block', true, 1, t1.snapshot.id],
        ['update', false, 3, t3.snapshot.id],
      ],
    );
    assert.equal(t3.snapshot.conversationId, t1.snapshot.conversationId);
    await editWorkspace();

    // The model-name suffix, streamed.
    history = withReply(history, t3.reply, 'Short answer please.');
    const t4 = await turn(history, { model: `${MODEL}+off`, stream: true });
    assertOnlyClientMessages(t4.received, history, 'suffix +off');

    // A `/mode off` line, on one line with the question and on its own line.
    history = withReply(history, t4.reply, '/mode off what did I change?');
    const t5 = await turn(history);
    assertOnlyClientMessages(
      t5.received,
      [...history.slice(0, -1), { role: 'user', content: 'what did I change?' }],
      '/mode off line',
    );
    await editWorkspace();
    history = withReply(history, t5.reply, '/mode off\nand now?');
    const t6 = await turn(history);
    assertOnlyClientMessages(
      t6.received,
      [
        ...history.slice(0, -3),
        { role: 'user', content: 'what did I change?' },
        history.at(-2) as ChatMessage,
        { role: 'user', content: 'and now?' },
      ],
      '/mode off on its own line',
    );
  });

  test('an off turn is still redacted', async () => {
    const token = githubToken(seededRng(17), 'ghp');
    const first: ChatMessage[] = [{ role: 'user', content: 'What is on this branch?' }];
    const t1 = await turn(first);
    const t2 = await turn(withReply(first, t1.reply, `/mode off\nis ${token} still valid?`));
    const wire = JSON.stringify(t2.received);
    assert.ok(!wire.includes(token), 'the token never reaches the upstream');
    assert.match(t2.received.at(-1)?.content ?? '', /^is \[REDACTED:[\w-]+\] still valid\?$/);
    assert.doesNotMatch(wire, /<context|ctxproxy collected/);
  });

  test('a conversation that starts off carries nothing into its later off turns', async () => {
    let history: ChatMessage[] = [{ role: 'user', content: '/mode off\nhello there' }];
    const t1 = await turn(history);
    assertOnlyClientMessages(t1.received, [{ role: 'user', content: 'hello there' }], 'turn 1 off');
    history = withReply(history, t1.reply, 'what branch is this?');
    const t2 = await turn(history, { mode: 'git-aware' });
    assert.match(JSON.stringify(t2.received), /feature\/conversations/);
    history = withReply(history, t2.reply, 'thanks');
    const t3 = await turn(history, { model: `${MODEL}+OFF` });
    assertOnlyClientMessages(
      t3.received,
      [{ role: 'user', content: 'hello there' }, ...history.slice(1)],
      'turn 3 off after a git-aware turn',
    );
  });
});

describe('which conversation a request continues', () => {
  test('two chats that open with "hi" do not share blocks or updates', async () => {
    fake.reply(MODEL, { content: 'Hi from A' });
    const a1 = await turn([{ role: 'user', content: 'hi' }]);
    const added = await editWorkspace();
    fake.reply(MODEL, { content: 'Hi from B' });
    const b1 = await turn([{ role: 'user', content: 'hi' }]);
    const blockA = a1.snapshot.contextBlock ?? '';
    const blockB = b1.snapshot.contextBlock ?? '';
    assert.ok(!blockA.includes(added) && blockB.includes(added), 'B collected after the edit');
    assert.notEqual(a1.snapshot.conversationId, b1.snapshot.conversationId);

    fake.reply(MODEL, {});
    const a2 = await turn(withReply([{ role: 'user', content: 'hi' }], a1.reply, 'next in A'));
    assert.equal(a2.received[0]?.content, blockA, 'A carries its own block');
    assert.match(a2.received.at(-1)?.content ?? '', new RegExp(`<context-update source="git\\.status"[^]*${added}`));
    assert.equal(a2.snapshot.conversationId, a1.snapshot.conversationId);

    const b2 = await turn(withReply([{ role: 'user', content: 'hi' }], b1.reply, 'next in B'));
    assert.equal(b2.received[0]?.content, blockB, 'B carries its own block');
    assert.equal(b2.received.at(-1)?.content, 'next in B', 'nothing changed for B: no update');
    assert.equal(b2.snapshot.conversationId, b1.snapshot.conversationId);
  });

  test('two chats that cannot be told apart (same words, same reply) both start over', async () => {
    const c1 = await turn([{ role: 'user', content: 'hello twin' }]);
    const d1 = await turn([{ role: 'user', content: 'hello twin' }]);
    assert.equal(c1.reply, d1.reply);
    const c2 = await turn(withReply([{ role: 'user', content: 'hello twin' }], c1.reply, 'go on'));
    const parts = c2.snapshot.budget?.parts ?? [];
    assert.deepEqual(
      parts.map((p) => [p.kind, p.carried]),
      [['block', false]],
      'a fresh block, not the twin’s',
    );
    assert.match(c2.headers.get('x-ctx-mode') ?? '', /git-aware/);
  });

  test('an edited first message starts fresh; a branch continues from the turn it still begins with', async () => {
    const first: ChatMessage[] = [{ role: 'user', content: 'Explain src/app.js' }];
    const t1 = await turn(first);
    const t2 = await turn(withReply(first, t1.reply, 'and its tests?'));
    const added = await editWorkspace();

    const edited = withReply([{ role: 'user', content: 'Explain src/app.js, briefly' }], t1.reply, 'and its tests?');
    const e = await turn(edited);
    const parts = e.snapshot.budget?.parts ?? [];
    assert.deepEqual(
      parts.map((p) => [p.kind, p.carried, p.fromTurn]),
      [['block', false, 1]],
    );
    assert.match(e.snapshot.contextBlock ?? '', new RegExp(added), 'the fresh block is collected now');
    assert.notEqual(e.snapshot.conversationId, t1.snapshot.conversationId);

    // The second user message rewritten: a branch off turn 1, not a continuation of turn 2.
    const branch = await turn(withReply(first, t1.reply, 'and its docs?'));
    const branchParts = branch.snapshot.budget?.parts ?? [];
    assert.deepEqual(
      branchParts.map((p) => [p.kind, p.carried, p.fromTurn, p.fromSnapshot]),
      [
        ['block', true, 1, t1.snapshot.id],
        ['update', false, 2, branch.snapshot.id],
      ],
    );
    assert.equal(branch.received[0]?.content, t2.received[0]?.content, 'the same block as the other branch');
  });
});

describe('a conversation is its own history', () => {
  // An agent's system prompt: every chat in the workspace opens with it.
  const system: ChatMessage = { role: 'system', content: 'You are a careful coding agent.' };
  // A file only chat A names: its text reaching chat B's upstream request is context A's history chose.
  const ONLY_A = 'ONLY-A-MARKER-7c41';

  test('a first turn never inherits, even when it begins with another chat’s whole first request', async () => {
    fake.reply(MODEL, { content: 'A read it.' });
    const a1 = await turn([system, { role: 'user', content: 'Explain src/app.js' }]);
    fake.reply(MODEL, { content: 'B answers.' });
    const b1 = await turn([
      system,
      { role: 'user', content: 'Explain src/app.js' },
      { role: 'user', content: 'Actually, what does AGENTS.md ask?' },
    ]);
    fake.reply(MODEL, {});
    assert.deepEqual(
      (b1.snapshot.budget?.parts ?? []).map((p) => [p.kind, p.carried, p.fromSnapshot]),
      [['block', false, b1.snapshot.id]],
      'a fresh block of its own, nothing carried from chat A',
    );
    assert.notEqual(b1.snapshot.conversationId, a1.snapshot.conversationId);
  });

  test('two chats with the same opening and different replies never share attachments', async () => {
    // Committed, so no git fact shows it: only naming it brings it.
    repo.write('src/onlyA.js', `export const onlyA = '${ONLY_A}';\n`);
    repo.git('add', 'src/onlyA.js');
    repo.git('commit', '-q', '-m', 'only A');
    const opening: ChatMessage[] = [system, { role: 'user', content: 'hi' }];
    fake.reply(MODEL, { content: 'Hello from A' });
    const a1 = await turn(opening);
    fake.reply(MODEL, { content: 'A explains it.' });
    const a2 = await turn(withReply(opening, a1.reply, 'Explain src/onlyA.js'));
    assert.match(JSON.stringify(a2.received), new RegExp(ONLY_A), 'chat A is sent the file it named');

    // Chat B opens alike, but its first turn is answered in mode off (no state of its own) with another reply.
    fake.reply(MODEL, { content: 'Hello from B' });
    const b1 = await turn(opening, { mode: 'off' });
    fake.reply(MODEL, { content: 'B answers.' });
    const b2 = await turn(withReply(opening, b1.reply, 'What does this project do?'));
    fake.reply(MODEL, { content: 'B again.' });
    const b3 = await turn(withReply(withReply(opening, b1.reply, 'What does this project do?'), b2.reply, 'More?'));
    fake.reply(MODEL, {});
    for (const [name, b] of [
      ['B2', b2],
      ['B3', b3],
    ] as const) {
      assert.doesNotMatch(JSON.stringify(b.received), new RegExp(ONLY_A), `${name}: nothing only chat A named`);
      assert.notEqual(b.snapshot.conversationId, a1.snapshot.conversationId, `${name}: not chat A's conversation`);
    }
    assert.deepEqual(
      (b2.snapshot.budget?.parts ?? []).map((p) => [p.kind, p.carried]),
      [['block', false]],
      'B2 plans its own block',
    );
    assert.equal(b3.received[0]?.content, b2.received[0]?.content, 'B3 carries B2’s block');
  });
});

describe('a trimmed item', () => {
  test('is known by its full text, so an unchanged one is not re-sent as an update', async () => {
    const lines = Array.from({ length: 3000 }, (_, i) => `- rule ${i}: keep the build green and the tests fast.`);
    const big = makeRepo({ files: { 'AGENTS.md': `# Agents\n${lines.join('\n')}\n` } });
    const own = await startProxy({ upstreamUrl: fake.url, workspace: big.dir, settings: { mode: 'git-aware' } });
    try {
      const history: ChatMessage[] = [{ role: 'user', content: 'Summarize the rules.' }];
      const t1 = await chatTurn(own, own.client(), fake, history, { model: MODEL });
      assert.ok(
        t1.snapshot.sources.some((s) => s.trimmed?.some((key) => key.startsWith('instructions.'))),
        'the instructions were trimmed',
      );
      const t2 = await chatTurn(own, own.client(), fake, withReply(history, t1.reply, 'And again?'), { model: MODEL });
      assert.equal(t2.received.at(-1)?.content, 'And again?', 'no update: nothing changed');
      assert.equal(t2.received[0]?.content, t1.received[0]?.content);
    } finally {
      await own.close();
      big.cleanup();
    }
  });
});

describe('a tool loop', () => {
  test('the request with tool results repeats the turn’s prompt and adds no update to a message already sent', async () => {
    const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
      { type: 'function', function: { name: 'read_file', parameters: { type: 'object', properties: {} } } },
    ];
    fake.reply(MODEL, { toolCalls: [{ name: 'read_file', arguments: { path: 'src/app.js' } }] });
    const question = { role: 'user' as const, content: 'Read src/app.js for me.' };
    const first = await client.chat.completions.create({ model: MODEL, tools, messages: [question] });
    const turn1 = fake.chats.at(-1)?.body.messages as WireMessage[];
    const call = first.choices[0]?.message.tool_calls?.[0];
    assert.ok(call && call.type === 'function');
    await editWorkspace();

    fake.reply(MODEL, {});
    await client.chat.completions.create({
      model: MODEL,
      tools,
      messages: [
        question,
        { role: 'assistant', content: null, tool_calls: [call] },
        { role: 'tool', tool_call_id: call.id, content: 'export const app = 1;' },
      ],
    });
    const turn2 = fake.chats.at(-1)?.body.messages as WireMessage[];
    assert.deepEqual(
      turn2.slice(0, turn1.length).map((m) => [m.role, m.content]),
      turn1.map((m) => [m.role, m.content]),
      'the tool-result request begins with the first leg',
    );
    assert.doesNotMatch(JSON.stringify(turn2), /context-update/);
  });
});

describe('changing the mode between turns', () => {
  test('a lighter mode re-plans the block and says so; a heavier one adds an update', async () => {
    let history: ChatMessage[] = [{ role: 'user', content: 'Give me the full picture.' }];
    const deep = await turn(history, { mode: 'deep' });
    assert.match(deep.snapshot.contextBlock ?? '', /<context source="tree\./);

    history = withReply(history, deep.reply, 'Just the basics now.');
    const quick = await turn(history, { mode: 'quick' });
    assert.equal(quick.headers.get('x-ctx-mode'), 'quick');
    assert.match(quick.headers.get('x-ctx-warning') ?? '', /carried since turn 1 \(mode deep\) not sent in mode quick/);
    const block = quick.snapshot.contextBlock ?? '';
    assert.doesNotMatch(JSON.stringify(quick.received), /<context source="tree\.|<context source="git\.status"/);
    assert.match(block, new RegExp(MARKER));
    assert.deepEqual(
      (quick.snapshot.budget?.parts ?? []).map((p) => [p.kind, p.carried, p.fromTurn]),
      [['block', false, 2]],
    );

    history = withReply(history, quick.reply, 'And what changed?');
    const gitAware = await turn(history, { mode: 'git-aware' });
    assert.equal(gitAware.received[0]?.content, block, 'the quick block is carried');
    assert.match(gitAware.received.at(-1)?.content ?? '', /<context-update source="git\.status"/);
    assert.equal(gitAware.snapshot.conversationId, deep.snapshot.conversationId);
  });
});

describe('an unknown mode', () => {
  const cases: [string, () => Promise<unknown>][] = [
    [
      'header',
      () =>
        client.chat.completions.create(
          { model: MODEL, messages: [{ role: 'user', content: 'hi' }] },
          { headers: { 'X-Ctx-Mode': 'turbo' } },
        ),
    ],
    [
      'model suffix',
      () => client.chat.completions.create({ model: `${MODEL}+turbo`, messages: [{ role: 'user', content: 'hi' }] }),
    ],
    [
      '/mode line',
      () => client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: '/mode turbo\nhi' }] }),
    ],
  ];
  for (const [where, send] of cases) {
    test(`as a ${where} is a 400 invalid_mode naming the modes, and nothing is forwarded`, async () => {
      const before = fake.chats.length;
      await assert.rejects(send(), (error: unknown) => {
        assert.ok(error instanceof OpenAI.BadRequestError, String(error));
        assert.equal(error.status, 400);
        assert.equal(error.code, 'invalid_mode');
        assert.match(error.message, /turbo.*off, quick, git-aware, deep, debug, auto/);
        assert.doesNotMatch(error.message, /ollama pull/);
        return true;
      });
      assert.equal(fake.chats.length, before);
    });
  }
});

test('the audit records exactly what the upstream received, every context byte accounted for', async () => {
  const checked = await assertAuditMatchesUpstream(proxy, fake);
  assert.ok(checked.snapshots >= 20, `checked ${checked.snapshots} snapshots`);
  assert.ok(checked.carried >= 4, `checked ${checked.carried} carried parts`);
});
