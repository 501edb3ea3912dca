// Context through the real server: a real git repository, the real sources,
// the fake Ollama recording exactly what the model would have seen.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type OpenAI from 'openai';
import { EMPTY_QUESTION } from '../../src/shared/question.ts';
import { assertAuditMatchesUpstream } from '../support/auditMatchesUpstream.ts';
import { type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { makeDir, makeRepo, type TempRepo } from '../support/gitRepo.ts';
import { until } from '../support/poll.ts';
import { type RunningProxy, startProxy } from '../support/proxy.ts';

const MODEL = 'qwen2.5-coder:7b';
type Sent = { role: string; content: string };

let fake: FakeOllama;
let repo: TempRepo;
let proxy: RunningProxy;
let client: OpenAI;

before(async () => {
  fake = await startFakeOllama();
  repo = makeRepo({
    files: {
      'CLAUDE.md': '# Project notes\nRun the tests with `make check`.\n',
      'src/parse.js': [
        'export function parse(text) {',
        '  const data = JSON.parse(text);',
        '  if (!data.version) {',
        "    throw new Error('missing version');",
        '  }',
        '  return data;',
        '}',
        '',
      ].join('\n'),
      'README.md': 'demo\n',
    },
    commits: [{ message: 'Teach the parser about versions', files: { 'src/util.js': 'export const x = 1;\n' } }],
    checkout: 'feature/login',
    staged: { 'src/login.js': 'export const login = () => true;\n' },
    unstaged: { 'README.md': 'demo, edited\n' },
  });
  proxy = await startProxy({ upstreamUrl: fake.url, workspace: repo.dir, settings: { mode: 'auto' } });
  client = proxy.client();
});
after(async () => {
  await proxy.close();
  await fake.close();
  repo.cleanup();
});

const sent = (index = -1): Sent[] => {
  const chat = fake.chats.at(index);
  assert.ok(chat, 'no chat reached the fake Ollama');
  return chat.body.messages as Sent[];
};
const contextOf = (messages: Sent[]) =>
  messages
    .filter((m) => m.role === 'system')
    .map((m) => m.content)
    .join('\n');

describe('what the model sees', () => {
  test('git-aware: the branch, the CLAUDE.md line and the status, with the user’s words untouched', async () => {
    const question = 'How do I run the tests here?';
    const { response } = await client.chat.completions
      .create({ model: MODEL, messages: [{ role: 'user', content: question }] })
      .withResponse();
    assert.equal(response.headers.get('x-ctx-mode'), 'git-aware');
    const messages = sent();
    const context = contextOf(messages);
    assert.match(context, /feature\/login/);
    assert.match(context, /Run the tests with `make check`\./);
    // The default branch's commits answer a history question, not this one (the branch has none of its own).
    assert.doesNotMatch(context, /Teach the parser about versions/);
    assert.match(context, /<context source="git\.status"/);
    // Staged and unstaged stay distinguishable (status columns intact).
    assert.match(context, /^A {2}src\/login\.js$/m);
    assert.match(context, /^ M README\.md$/m);
    assert.deepEqual(messages.at(-1), { role: 'user', content: question });
    // Instructions come before git facts: stable first.
    assert.ok(context.indexOf('make check') < context.indexOf('feature/login'));
  });

  test('a question about history gets the recent commits of the default branch', async () => {
    await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'What did the last commit change?' }],
    });
    assert.match(contextOf(sent()), /<context source="git\.log"[^>]*>[\s\S]*Teach the parser about versions/);
  });

  test('a second turn re-sends nothing unchanged and begins with the first turn’s messages byte for byte', async () => {
    const first = [{ role: 'user' as const, content: 'Summarize the branch, please.' }];
    const a = await client.chat.completions.create({ model: MODEL, messages: first });
    const turn1 = sent();
    const second = [
      ...first,
      { role: 'assistant' as const, content: a.choices[0]?.message.content ?? '' },
      { role: 'user' as const, content: 'And what is staged?' },
    ];
    const b = await client.chat.completions.create({ model: MODEL, messages: second });
    const turn2 = sent();
    assert.deepEqual(turn2.slice(0, turn1.length), turn1, 'turn 2 begins with turn 1');
    assert.equal(turn2.length, turn1.length + 2);
    assert.deepEqual(turn2.at(-1), { role: 'user', content: 'And what is staged?' });

    // Something changes in the work tree: only the newest user message gets it, as an attachment.
    repo.write('src/parse.js', 'export function parse() { return {}; }\n');
    // An edit to a file that was clean reaches the sources through the work-tree
    // watcher, asynchronously (Deno delivers it later than Node); a real edit
    // comes seconds before the question. Wait until the git source sees it.
    await gitStatusShows(/ M src\/parse\.js/);
    const third = [
      ...second,
      // The reply as the client got it: a conversation continues only from its exact history.
      { role: 'assistant' as const, content: b.choices[0]?.message.content ?? '' },
      { role: 'user' as const, content: 'Now?' },
    ];
    const c = await client.chat.completions.create({ model: MODEL, messages: third });
    const turn3 = sent();
    assert.deepEqual(turn3.slice(0, turn2.length), turn2, 'turn 3 begins with turn 2');
    const newest = turn3.at(-1) as Sent;
    assert.ok(newest.content.startsWith('Now?\n\n'), 'the user’s words come first, unchanged');
    assert.match(newest.content, /<context-update source="git\.status"/);
    assert.match(newest.content, / M src\/parse\.js/);
    assert.doesNotMatch(newest.content, /make check/, 'unchanged instructions are not re-sent');

    // Turn 4 re-applies turn 3's attachment exactly, so the prefix still matches.
    const fourth = [
      ...third,
      { role: 'assistant' as const, content: c.choices[0]?.message.content ?? '' },
      { role: 'user' as const, content: 'Thanks' },
    ];
    await client.chat.completions.create({ model: MODEL, messages: fourth });
    const turn4 = sent();
    assert.deepEqual(turn4.slice(0, turn3.length), turn3, 'turn 4 begins with turn 3');
    assert.deepEqual(turn4.at(-1), { role: 'user', content: 'Thanks' });
    repo.git('checkout', '--', 'src/parse.js');
  });

  test('a pasted stack trace selects debug mode and brings the failing line into context', async () => {
    const trace = [
      'It crashes:',
      'Error: missing version',
      `    at parse (${repo.dir}/src/parse.js:4:11)`,
      '    at main (node:internal/main:1:1)',
    ].join('\n');
    const { response } = await client.chat.completions
      .create({ model: MODEL, messages: [{ role: 'user', content: trace }] })
      .withResponse();
    assert.equal(response.headers.get('x-ctx-mode'), 'debug');
    const context = contextOf(sent());
    assert.match(context, /<context source="stacktrace\./);
    assert.match(context, /throw new Error\('missing version'\);/);
  });
});

describe('choosing the mode', () => {
  test('a +mode model suffix is stripped before forwarding', async () => {
    const { response } = await client.chat.completions
      .create({ model: `${MODEL}+quick`, messages: [{ role: 'user', content: 'suffix' }] })
      .withResponse();
    assert.equal(response.headers.get('x-ctx-mode'), 'quick');
    assert.equal(fake.chats.at(-1)?.body.model, MODEL);
    assert.doesNotMatch(contextOf(sent()), /git\.status/);
  });

  test('a leading /mode line is stripped from the message', async () => {
    const { response } = await client.chat.completions
      .create({ model: MODEL, messages: [{ role: 'user', content: '/mode off\nplain question' }] })
      .withResponse();
    assert.equal(response.headers.get('x-ctx-mode'), 'off');
    assert.deepEqual(sent(), [{ role: 'user', content: 'plain question' }]);
  });

  test('the X-Ctx-Mode header wins, and a bad one is a 400', async () => {
    const ok = await fetch(`${proxy.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-ctx-mode': 'deep' },
      body: JSON.stringify({ model: `${MODEL}+quick`, messages: [{ role: 'user', content: '/mode off\nhi' }] }),
    });
    assert.equal(ok.headers.get('x-ctx-mode'), 'deep');
    await ok.text();
    assert.match(contextOf(sent()), /<context source="tree\.root"/);
    const bad = await fetch(`${proxy.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-ctx-mode': 'turbo' },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }),
    });
    assert.equal(bad.status, 400);
    assert.match(((await bad.json()) as { error: { message: string } }).error.message, /X-Ctx-Mode/);
  });

  test('X-Ctx-Workspace outside the allowed roots is refused', async () => {
    const outside = makeDir({ 'a.txt': 'x' });
    try {
      const response = await fetch(`${proxy.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-ctx-workspace': outside.dir },
        body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }),
      });
      assert.equal(response.status, 400);
      const body = (await response.json()) as { error: { code: string } };
      assert.equal(body.error.code, 'workspace_not_allowed');
    } finally {
      outside.cleanup();
    }
  });
});

describe('a workspace without git', () => {
  test('is served with the context it has, no error, and a warning that names it', async () => {
    const plain = makeDir({ 'CLAUDE.md': 'Plain folder rules.\n' });
    const plainProxy = await startProxy({
      upstreamUrl: fake.url,
      workspace: plain.dir,
      settings: { mode: 'git-aware' },
    });
    try {
      const { response } = await plainProxy
        .client()
        .chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] })
        .withResponse();
      // Served, but never as if it had no changes: every answer says there is no git to go on.
      assert.match(response.headers.get('x-ctx-warning') ?? '', /the workspace is not a git repository/);
      const snapshot = await plainProxy.snapshotOf(response);
      assert.ok(snapshot.warnings.some((w) => /not a git repository.*git init/.test(w)));
      const context = contextOf(sent());
      assert.match(context, /Plain folder rules\./);
      assert.doesNotMatch(context, /git\.status/);
    } finally {
      await plainProxy.close();
      plain.cleanup();
    }
  });
});

test('every snapshot of this suite holds the messages the upstream received, its context accounted for', async () => {
  await assertAuditMatchesUpstream(proxy, fake);
});

/** Waits until the proxy's own git source (as a request would collect it) shows `pattern` in git.status. */
async function gitStatusShows(pattern: RegExp): Promise<void> {
  const git = proxy.deps.sources.find((source) => source.name === 'git');
  assert.ok(git, 'the proxy has a git source');
  const input = {
    workspace: repo.dir,
    messages: [],
    lastUserText: '',
    question: EMPTY_QUESTION,
    mode: 'git-aware' as const,
    wanted: ['git.status'],
    now: new Date(),
  };
  await until(async () => {
    const result = await git.collect(input, AbortSignal.timeout(5_000));
    return result.items.some((item) => item.key === 'git.status' && pattern.test(item.text));
  }, `git.status to show ${pattern}`);
}
