// The repository does not configure git (issue 24, part 2), through the real
// server, the production sources and a real OpenAI client, with a fake home
// folder: a hidden core.worktree that would send ~/notes.txt and
// ~/.bash_history, a filter in a submodule's own config, a partial clone whose
// lazy fetch runs a command, an include of a file in the home folder. No
// command runs, no home text reaches the model server or the audit database,
// and the audit says why git was off.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DEFAULT_NEVER_READ_FILE } from '../../src/redact/createRedactor.ts';
import { loadNeverRead } from '../../src/redact/loadRules.ts';
import { createSourceSet, defaultSourceDeps } from '../../src/sources/index.ts';
import { type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { makeRepo } from '../support/gitRepo.ts';
import {
  appendConfig,
  attributedRepo,
  HOME_TEXT,
  type HostileWorld,
  makeHostileWorld,
  partialClone,
  repoWithSubmodule,
} from '../support/hostileGit.ts';
import { startProxy } from '../support/proxy.ts';

let fake: FakeOllama;
let world: HostileWorld;

before(async () => {
  fake = await startFakeOllama();
  world = makeHostileWorld();
});
after(async () => {
  await fake.close();
  world.cleanup();
});

/** A deep and a debug request (debug adds the diffs) on `workspace`; what the model server got, and the git reports. */
async function askOn(workspace: string) {
  const sources = createSourceSet(
    defaultSourceDeps({
      homeDir: world.home.dir,
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
  try {
    const since = fake.chats.length;
    const gitSkips: string[] = [];
    for (const mode of ['deep', 'debug']) {
      const { response } = await proxy
        .client()
        .chat.completions.create(
          { model: 'qwen2.5-coder:7b', messages: [{ role: 'user', content: 'What changed in a.txt?' }] },
          { headers: { 'X-Ctx-Mode': mode } },
        )
        .withResponse();
      const snapshot = await proxy.snapshotOf(response as unknown as Response);
      const git = snapshot.sources.find((report) => report.source === 'git');
      for (const skip of git?.skipped ?? []) gitSkips.push(`${skip.path}: ${skip.reason}`);
    }
    await proxy.store.flush();
    const upstream = JSON.stringify(fake.chats.slice(since).map((chat) => chat.body));
    const dir = path.dirname(proxy.dbPath);
    const database = fs
      .readdirSync(dir)
      .filter((file) => file.startsWith(path.basename(proxy.dbPath)))
      .map((file) => fs.readFileSync(path.join(dir, file)));
    assert.ok(database.length > 0);
    return { upstream, database, gitSkips };
  } finally {
    await proxy.close();
    sources.close();
  }
}

function assertNothingRanOrLeaked(result: Awaited<ReturnType<typeof askOn>>): void {
  assert.deepEqual(world.ran(), [], 'a command from the repository config ran');
  for (const [name, text] of Object.entries(HOME_TEXT)) {
    assert.ok(!result.upstream.includes(text), `home ${name} reached the model server`);
    for (const bytes of result.database) assert.ok(!bytes.includes(text), `home ${name} is in the audit database`);
  }
  // Nor the home folder's listing: git moved to it would list its files as the work tree.
  assert.ok(!result.upstream.includes('.bash_history'), 'the home folder was listed to the model server');
}

describe('a repository that configures git, through the real server', () => {
  test('a core.worktree hidden after a second header names the home folder: nothing of it is read', async () => {
    const repo = world.track(makeRepo({ files: { 'a.txt': 'one\n' } }));
    appendConfig(repo, `[remote "x"][core]\n\tworktree = ${world.home.dir}\n`);
    const result = await askOn(repo.dir);
    assertNothingRanOrLeaked(result);
    assert.ok(result.gitSkips.includes('git: core.worktree points away from the workspace; git context is off'));
  });

  test("a filter in a submodule's own config does not run; the superproject's git context stays", async () => {
    const repo = repoWithSubmodule(world, (sub) =>
      sub.git('config', 'filter.evil.clean', `${world.touch('sub')}; cat`),
    );
    const result = await askOn(repo.dir);
    assertNothingRanOrLeaked(result);
    assert.match(result.upstream, /add submodule/);
  });

  test('a partial clone with protocol.ext.allow=always: no lazy fetch, git is off with a reason', async () => {
    const run = world.touch('lazy-fetch').replace(/ /g, '% ');
    const repo = partialClone(world, [
      ['remote.origin.url', `ext::sh -c ${run}`],
      ['protocol.ext.allow', 'always'],
    ]);
    const result = await askOn(repo.dir);
    assertNothingRanOrLeaked(result);
    assert.ok(
      result.gitSkips.includes(
        'git: the repository is a partial clone (a missing object would be fetched); git context is off',
      ),
    );
  });

  test('an include of a file in the home folder (a filter and a core.worktree in it): git is off', async () => {
    const file = path.join(world.home.dir, 'team.gitconfig');
    fs.writeFileSync(
      file,
      `[filter "evil"]\n\tclean = ${world.touch('include')}; cat\n[core]\n\tworktree = ${world.home.dir}\n`,
    );
    const repo = attributedRepo(world);
    repo.git('config', 'includeIf.gitdir:/.path', file);
    const result = await askOn(repo.dir);
    assertNothingRanOrLeaked(result);
    assert.ok(
      result.gitSkips.includes('git: the repository config includes a file outside the workspace; git context is off'),
    );
  });
});
