// The audit says why (issue 27, point 4), through the real server on a real git
// repository: each forwarded item carries the phrase its source gave, its own
// tokens and whether it was trimmed or carried; what was left out says why; the
// mode says why; search finds the requests that sent a file; a refused request
// shows its question, model and reason in the list; the list shows the
// workspace and groups by conversation; `audit show` prints the same "why".

import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { ContextPartItem, Snapshot, SnapshotSummary } from '../../src/shared/types.ts';
import { runCommand } from '../support/ctxproxyProcess.ts';
import { type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { makeRepo, type TempRepo } from '../support/gitRepo.ts';
import { until } from '../support/poll.ts';
import { type RunningProxy, startProxy } from '../support/proxy.ts';

const MODEL = 'qwen2.5-coder:7b';
const SMALL = 'llama3.2:3b'; // the fake reports an 8,192-token window
const UTIL =
  'export function slugify(text: string): string {\n  return text.toLowerCase().replace(/[^a-z0-9]+/g, "-");\n}\n';
// A named file far larger than its plan entry's share of an 8k window: it is sent trimmed.
const TABLE = Array.from({ length: 900 }, (_, i) => `export const rate${i} = ${i * 3}; // tariff row ${i}`).join('\n');

function itemsOf(snapshot: Snapshot): ContextPartItem[] {
  return (snapshot.budget?.parts ?? []).flatMap((part) => part.sources.flatMap((source) => source.items ?? []));
}

describe('the audit says why each item was sent', () => {
  let fake: FakeOllama;
  let repo: TempRepo;
  let proxy: RunningProxy;

  before(async () => {
    fake = await startFakeOllama();
    repo = makeRepo({
      files: {
        'CLAUDE.md': '# Rules\nUse node:test.\n',
        'src/util.ts': UTIL,
        'src/rates.ts': `${TABLE}\n`,
        'src/config.ts': 'export const region = "eu-west-1";\n',
        'src/server.ts': 'export function start() {\n  return 4141;\n}\n',
      },
      unstaged: { 'src/config.ts': 'export const region = "eu-central-1";\n' },
    });
    proxy = await startProxy({ upstreamUrl: fake.url, workspace: repo.dir, settings: { mode: 'git-aware' } });
  });

  after(async () => {
    await proxy?.close();
    await fake?.close();
    repo?.cleanup();
  });

  const ask = async (
    content: string,
    model = MODEL,
    history: { role: 'user' | 'assistant'; content: string }[] = [],
  ) => {
    const { response } = await proxy
      .client()
      .chat.completions.create({ model, messages: [...history, { role: 'user', content }] })
      .withResponse();
    return proxy.snapshotOf(response);
  };

  test('every forwarded item says why, with its own tokens; the mode says why', async () => {
    // The symbol index builds in the background (a parse worker's first start) and a request waits for it
    // only seconds: on a loaded machine the first answers time out or say it is still building, and carry
    // no definition. Asked until the source answers from a built index.
    let snapshot: Snapshot | undefined;
    await until(
      async () => {
        snapshot = await ask('What did I change in src/config.ts, and what does `start` return?');
        const symbols = snapshot.sources.find((report) => report.source === 'symbols');
        return symbols?.status === 'ok' && !symbols.skipped.some((entry) => entry.path === '(symbol index)');
      },
      'the symbol index to be built',
      { timeoutMs: 60_000 },
    );
    assert.ok(snapshot);
    const items = itemsOf(snapshot);
    const byKey = new Map(items.map((item) => [item.key, item]));
    assert.match(byKey.get('files.named.src/config.ts')?.why ?? '', /named in the question/);
    assert.match(byKey.get('git.diff.unstaged')?.why ?? '', /uncommitted changes/);
    assert.match(byKey.get('instructions.project.CLAUDE.md')?.why ?? '', /instruction file of the project/);
    const definition = items.find((item) => item.key.startsWith('symbols.def.src/server.ts#start'));
    assert.match(definition?.why ?? '', /defines start, named in the question/);
    for (const item of items.filter((item) => !item.key.startsWith('retrieval.'))) {
      assert.ok(item.why && item.why.length > 0, `${item.key} says why`);
      assert.ok(item.tokens > 0, `${item.key} has its own tokens`);
    }
    // Each item's tokens add up to its source's share of the part, as forwarded.
    for (const part of snapshot.budget?.parts ?? []) {
      for (const source of part.sources) {
        const sum = (source.items ?? []).reduce((total, item) => total + item.tokens, 0);
        assert.equal(sum, source.tokens, `${source.source}: items add up to the source's tokens`);
      }
    }
    assert.equal(snapshot.budget?.modeReason, "the server's --mode setting");
    // `why` holds no item text: the config's value is in the diff, never in a why.
    assert.ok(!JSON.stringify(items.map((item) => item.why)).includes('eu-central-1'));
  });

  test('auto says it saw a stack trace', async () => {
    const snapshot = await ask(
      'It crashes:\nTypeError: Cannot read properties of undefined\n    at start (src/server.ts:2:3)\n    at main (src/index.ts:1:1)',
      `${MODEL}+auto`,
    );
    assert.equal(snapshot.modeUsed, 'debug');
    assert.match(snapshot.budget?.modeReason ?? '', /model name's \+mode suffix; auto: a stack trace/);
  });

  test('what was left out says why, and a trimmed item says it was trimmed', async () => {
    const snapshot = await ask(
      `Here is src/util.ts:\n\`\`\`ts\n${UTIL}\`\`\`\nWhy does slugify drop accents? And what is in src/rates.ts?`,
      SMALL,
    );
    const left = snapshot.budget?.leftOut ?? [];
    const util = left.find((item) => item.key === 'files.named.src/util.ts');
    assert.equal(util?.reason, "already in the client's messages");
    assert.match(util?.why ?? '', /named in the question/);
    const rates = itemsOf(snapshot).find((item) => item.key === 'files.named.src/rates.ts');
    assert.equal(rates?.trimmed, true, 'the long file was sent trimmed');
    const page = await (await fetch(`${proxy.url}/audit/${snapshot.id}`)).text();
    assert.match(page, /Why this context/);
    assert.match(page, /left out: already in the client&#39;s messages|left out: already in the client's messages/);
    assert.match(page, /data-item="files\.named\.src\/rates\.ts" data-state="trimmed"/);
  });

  test('search finds the requests that sent a file, and only those', async () => {
    const sent = await ask('Explain src/config.ts');
    const other = await ask('What is the branch called?');
    const found = (await (await fetch(`${proxy.url}/api/audit/snapshots?text=config.ts&limit=200`)).json()) as {
      data: SnapshotSummary[];
    };
    const ids = found.data.map((summary) => summary.id);
    assert.ok(ids.includes(sent.id), 'the request that sent config.ts is found');
    assert.ok(!ids.includes(other.id), 'a request that sent no config.ts is not');
  });

  test('a refused request shows its question, model and reason in the list', async () => {
    const response = await fetch(`${proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: `${MODEL}+turbo`,
        messages: [{ role: 'user', content: 'Which port does the server listen on?' }],
      }),
    });
    assert.equal(response.status, 400);
    const id = response.headers.get('x-ctx-snapshot-id') ?? '';
    await proxy.store.flush();
    const listed = proxy.store.list({ limit: 50 }).find((summary) => summary.id === id);
    assert.ok(listed, 'the refused request is in the list');
    assert.equal(listed.question, 'Which port does the server listen on?');
    assert.equal(listed.model, `${MODEL}+turbo`);
    assert.equal(listed.error?.status, 400);
    assert.match(listed.error?.message ?? '', /\+turbo/);
    assert.equal(listed.workspace, repo.dir);
    const page = await (await fetch(`${proxy.url}/audit`)).text();
    const row = page.slice(page.indexOf(`/audit/${id}`));
    assert.match(row.slice(0, 2000), /Which port does the server listen on\?/);
    assert.match(row.slice(0, 2000), /data-refusal="true">refused: 400 The model suffix &quot;\+turbo&quot;/);
    assert.ok(page.includes(`title="${repo.dir}"`), 'the list shows the workspace');
    const shown = await runCommand(['audit', 'list', '--db', proxy.dbPath]);
    assert.match(
      shown.stdout,
      new RegExp(`${id}.*${path.basename(repo.dir)}.*Which port does the server listen on\\? \\[refused 400`),
    );
  });

  test("a refused request's question is stored redacted", async () => {
    // Built at run time so no secret scanner flags this file; shaped like an AWS access key id.
    const key = ['AKIA', 'Z3QX7YB2', 'LMNOPQRS'].join('');
    const response = await fetch(`${proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-ctx-mode': 'warp' },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: `Is ${key} still valid?` }] }),
    });
    assert.equal(response.status, 400);
    await proxy.store.flush();
    const id = response.headers.get('x-ctx-snapshot-id') ?? '';
    const listed = proxy.store.list({ limit: 50 }).find((summary) => summary.id === id);
    assert.match(listed?.question ?? '', /^Is \[REDACTED:[a-z-]+\] still valid\?$/);
    assert.ok(!JSON.stringify(proxy.store.get(id)).includes(key), 'the key is nowhere in the snapshot');
  });

  test('the list groups a conversation, and audit show prints why each item was sent', async () => {
    const first = await ask('Where is start defined?');
    const second = await ask('And what does it return?', MODEL, [
      { role: 'user', content: 'Where is start defined?' },
      { role: 'assistant', content: first.reply.content },
    ]);
    assert.ok(second.conversationId && second.conversationId === first.conversationId, 'one conversation');
    const page = await (await fetch(`${proxy.url}/audit?group=conversation`)).text();
    const group = page.slice(page.indexOf(`data-conversation="${second.conversationId}"`));
    const end = group.indexOf('</tbody>');
    assert.ok(end > 0, 'the conversation has its own group');
    assert.ok(group.slice(0, end).includes(first.id) && group.slice(0, end).includes(second.id));
    assert.ok(
      itemsOf(second).some((item) => item.why !== undefined),
      'the carried block keeps its items',
    );
    const show = await runCommand(['audit', 'show', second.id, '--db', proxy.dbPath]);
    assert.equal(show.code, 0, show.stderr);
    assert.match(show.stdout, /why this context/);
    assert.match(show.stdout, /git\.status\s+\d+\s+carried from turn 1\s+what is modified, staged or new/);
    assert.match(show.stdout, /mode\s+git-aware \(the server's --mode setting\)/);
  });
});
