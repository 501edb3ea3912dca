// The real server on a repository with a huge change and on one where `git
// diff` fails: the request is answered with the rest of the git snapshot, the
// huge diff arrives cut and says so, and a failed part is named in the source
// report in fixed words: nothing of git's stderr (object names, paths) reaches
// the audit.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chatTurn } from '../support/chatTurns.ts';
import { type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { makeRepo } from '../support/gitRepo.ts';
import { type RunningProxy, startProxy } from '../support/proxy.ts';

const MODEL = 'qwen2.5-coder:7b';

let fake: FakeOllama;
const cleanups: Array<() => void | Promise<void>> = [];

before(async () => {
  fake = await startFakeOllama();
});
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await fake.close();
});

async function proxyOn(workspace: string): Promise<RunningProxy> {
  const proxy = await startProxy({ upstreamUrl: fake.url, workspace, settings: { mode: 'git-aware' } });
  cleanups.push(() => proxy.close());
  return proxy;
}

describe('hostile or huge repositories', () => {
  test('a 40 MB change: answered, the huge file named but not diffed, the small edit and the other git parts there', async () => {
    const repo = makeRepo({ files: { 'src/app.js': 'run();\n', 'logs/build.log': 'start\n' } });
    cleanups.push(repo.cleanup);
    const line = `${'build step ok '.repeat(5)}\n`;
    repo.write('logs/build.log', `start\n${line.repeat((40 * 1024 * 1024) / line.length)}`);
    repo.write('src/app.js', 'run();\nstop();\n');
    const proxy = await proxyOn(repo.dir);
    const turn = await chatTurn(
      proxy,
      proxy.client(),
      fake,
      [{ role: 'user', content: 'What did I change since the last commit?' }],
      {
        model: MODEL,
      },
    );
    assert.ok(turn.reply.length > 0);
    const wire = turn.received.map((m) => m.content).join('\n');
    assert.match(wire, /<context source="git\.diff\.unstaged"[^>]*>[\s\S]*\+stop\(\);/);
    // git treats a file over the big-file size as binary: named, with no lines.
    assert.match(
      wire,
      /changed lines not shown: logs\/build\.log \[binary or too large to diff\]/,
      'the huge file named',
    );
    assert.doesNotMatch(wire, /build step ok/, 'none of its lines');
    for (const key of ['git.branch', 'git.status', 'git.log']) assert.match(wire, new RegExp(`source="${key}"`));
    assert.ok(wire.length < 200_000, `the prompt stays small (${wire.length} chars)`);
    const git = turn.snapshot.sources.find((report) => report.source === 'git');
    assert.equal(git?.status, 'ok');
  });

  test('a failing diff: the other parts arrive; the report names the failure, the audit holds no stderr', async () => {
    const repo = makeRepo({ files: { 'merger-plans.txt': 'a\nb\n', 'README.md': '# app\n' } });
    cleanups.push(repo.cleanup);
    const sha = repo.git('rev-parse', 'HEAD:merger-plans.txt').trim();
    fs.rmSync(path.join(repo.dir, '.git', 'objects', sha.slice(0, 2), sha.slice(2)));
    repo.write('merger-plans.txt', 'a\nb\nc\n');
    const proxy = await proxyOn(repo.dir);
    const turn = await chatTurn(
      proxy,
      proxy.client(),
      fake,
      [{ role: 'user', content: 'What did I change since the last commit?' }],
      {
        model: MODEL,
      },
    );
    const wire = turn.received.map((m) => m.content).join('\n');
    for (const key of ['git.branch', 'git.status', 'git.log']) assert.match(wire, new RegExp(`source="${key}"`));
    assert.doesNotMatch(wire, /source="git\.diff\.unstaged"/);
    const git = turn.snapshot.sources.find((report) => report.source === 'git');
    assert.equal(git?.status, 'ok');
    assert.deepEqual(
      git?.skipped.filter((skip) => skip.path.startsWith('git.diff')),
      [{ path: 'git.diff.unstaged', reason: 'git diff failed (exit 128): a missing or corrupt object' }],
    );
    // git's own words name the object; neither they nor the name reach the stored snapshot.
    await proxy.store.flush();
    const stored = JSON.stringify(turn.snapshot);
    assert.doesNotMatch(stored, new RegExp(sha.slice(0, 7)));
    assert.doesNotMatch(stored, /unable to read/);
    assert.doesNotMatch(fs.readFileSync(proxy.dbPath).toString('latin1'), new RegExp(sha));
  });
});
