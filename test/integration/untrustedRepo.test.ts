// The real server on repositories written by an attacker (issue 11, items 3–5):
// symlinked instruction files, `@~/` imports of home files, a `.git` file that
// leads to another repository, and a git config that runs commands. Nothing
// from outside the workspace may reach the model server or the bytes of the
// audit database, no command may run, and the audit page names each refusal.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DEFAULT_NEVER_READ_FILE } from '../../src/redact/createRedactor.ts';
import { loadNeverRead } from '../../src/redact/loadRules.ts';
import { createSourceSet, defaultSourceDeps, type SourceSet } from '../../src/sources/index.ts';
import { type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { type RunningProxy, startProxy } from '../support/proxy.ts';
import { CLAUDE_MEMORY, makeUntrustedFixture, OUTSIDE, type UntrustedFixture } from '../support/untrustedRepo.ts';

let fake: FakeOllama;
let fx: UntrustedFixture;

before(async () => {
  fake = await startFakeOllama();
  fx = makeUntrustedFixture();
});
after(async () => {
  await fake.close();
  fx.cleanup();
});

/** The production sources and never-read list, with the home folder pointed at the fixture's. */
async function proxyOn(workspace: string): Promise<{ proxy: RunningProxy; sources: SourceSet }> {
  const sources = createSourceSet(
    defaultSourceDeps({
      homeDir: fx.home.dir,
      isNeverRead: loadNeverRead(DEFAULT_NEVER_READ_FILE),
      watchWorkTree: false,
    }),
  );
  const proxy = await startProxy({
    upstreamUrl: fake.url,
    workspace,
    settings: { mode: 'deep' },
    sources: sources.sources,
  });
  return { proxy, sources };
}

/** A deep and a debug request (the debug plan adds the diffs); returns their snapshot ids. */
async function ask(proxy: RunningProxy, question: string): Promise<string[]> {
  const ids: string[] = [];
  for (const mode of ['deep', 'debug']) {
    const { response } = await proxy
      .client()
      .chat.completions.create(
        { model: 'qwen2.5-coder:7b', messages: [{ role: 'user', content: question }] },
        { headers: { 'X-Ctx-Mode': mode } },
      )
      .withResponse();
    ids.push(response.headers.get('x-ctx-snapshot-id') as string);
  }
  await proxy.store.flush();
  return ids;
}

/** The database file and its write-ahead log, as bytes. */
function databaseBytes(proxy: RunningProxy): Buffer[] {
  const dir = path.dirname(proxy.dbPath);
  const files = readdirSync(dir).filter((f) => f.startsWith(path.basename(proxy.dbPath)));
  assert.ok(files.length > 0);
  return files.map((file) => readFileSync(path.join(dir, file)));
}

function assertNothingOutside(proxy: RunningProxy, since: number): void {
  const upstream = JSON.stringify(fake.chats.slice(since).map((chat) => chat.body));
  const bytes = databaseBytes(proxy);
  for (const [name, marker] of Object.entries(OUTSIDE)) {
    assert.ok(!upstream.includes(marker), `${name} reached the model server`);
    for (const file of bytes) assert.ok(!file.includes(marker), `${name} is in the raw database bytes`);
  }
}

describe('an untrusted repository through the real server', () => {
  test('symlinked instruction files and @~/ imports: refused, reported on the audit page, never forwarded or stored', async () => {
    const { proxy, sources } = await proxyOn(fx.links.dir);
    try {
      const since = fake.chats.length;
      const ids = await ask(proxy, 'Please review src/app.ts and src/leak.ts');
      assertNothingOutside(proxy, since);
      // The user's own ~/.claude memory still reaches the model: the guard is not a blanket refusal.
      assert.ok(JSON.stringify(fake.chats.at(-1)?.body).includes(CLAUDE_MEMORY));

      const page = await (await fetch(`${proxy.url}/audit/${ids[0]}`)).text();
      const refusals = [
        'AGENTS.md</span>: refused: symlink to a path outside the workspace',
        'CLAUDE.local.md</span>: refused: symlink to a path outside the workspace',
        '.claude/CLAUDE.md</span>: refused: symlink to a path outside the workspace',
        '.github/copilot-instructions.md</span>: refused: symlink to a path outside the workspace',
        '~/.ssh/id_rsa</span>: refused: never read',
        '~/.aws/credentials</span>: refused: never read',
        '~/plain.txt</span>: refused: outside ~/.claude',
      ];
      for (const refusal of refusals) assert.ok(page.includes(refusal), `the audit page shows "${refusal}"`);
      assert.ok(!page.includes(fx.outside.dir), 'the page does not say where an outside link points');
    } finally {
      await proxy.close();
      sources.close();
    }
  });

  test('a .git file that leads to another repository: git is off, and the report says why', async () => {
    const { proxy, sources } = await proxyOn(fx.pointsOut.dir);
    try {
      const since = fake.chats.length;
      const [id] = await ask(proxy, 'What changed recently?');
      assertNothingOutside(proxy, since);
      const snapshot = proxy.store.get(id as string);
      const git = snapshot?.sources.find((report) => report.source === 'git');
      assert.deepEqual(git?.skipped, [
        { path: 'git', reason: '.git points outside the workspace; git context is off' },
      ]);
      const page = await (await fetch(`${proxy.url}/audit/${id}`)).text();
      assert.ok(page.includes('.git points outside the workspace; git context is off'));
    } finally {
      await proxy.close();
      sources.close();
    }
  });

  test('a git config that runs commands (fsmonitor, filters, diff drivers, pager, hooks): none runs', async () => {
    const { proxy, sources } = await proxyOn(fx.evil.dir);
    try {
      const since = fake.chats.length;
      await ask(proxy, 'Why does notes.txt look different?');
      assert.deepEqual(fx.ran(), [], 'a command from the repository config ran');
      // The in-tree git folder is allowed: the model still sees the real change.
      const upstream = JSON.stringify(fake.chats.slice(since).map((chat) => chat.body));
      assert.match(upstream, /\+two/);
    } finally {
      await proxy.close();
      sources.close();
    }
  });
});
