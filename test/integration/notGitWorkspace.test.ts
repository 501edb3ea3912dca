// A workspace with no git to go on is named when `ctxproxy serve` starts (one
// line with a hint) and in the snapshot of every request, whatever the mode, so
// "what did I change?" is never answered as if nothing had changed. The real
// command, a real folder and a real repository.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startServe } from '../support/ctxproxyProcess.ts';
import { type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { makeDir, makeRepo, type TempDir, type TempRepo } from '../support/gitRepo.ts';
import { until } from '../support/poll.ts';
import { startProxy } from '../support/proxy.ts';

let fake: FakeOllama;
let plain: TempDir;
let repo: TempRepo;

before(async () => {
  fake = await startFakeOllama();
  plain = makeDir({ 'notes.md': 'a folder, not a repository\n' });
  repo = makeRepo({ files: { 'README.md': '# app\n' } });
});
after(async () => {
  await fake.close();
  plain.cleanup();
  repo.cleanup();
});

describe('at start-up', () => {
  test('a folder that is not a repository is named in one warning line, with what to do', async () => {
    const serving = await startServe(['--upstream', fake.url, '--workspace', plain.dir], plain.dir);
    try {
      await until(() => serving.log().includes('not a git repository'), 'the warning line');
      const line = serving
        .log()
        .split('\n')
        .find((l) => l.includes('not a git repository'));
      assert.ok(line?.startsWith(`ctxproxy: warning: ${plain.dir}: the workspace is not a git repository`), line);
      assert.match(line ?? '', /run `git init` there, or point --workspace at a repository/);
    } finally {
      serving.child.kill('SIGTERM');
      await serving.exited;
    }
  });

  test('a repository gets no such line', async () => {
    const serving = await startServe(['--upstream', fake.url, '--workspace', repo.dir], repo.dir);
    try {
      // Written in order on standard error: a request's log line comes after any start-up warning.
      await fetch(`${serving.url}/v1/models`);
      await until(() => serving.log().includes('"event":"http.request"'), "the request's log line");
      assert.doesNotMatch(serving.log(), /git repository|git cannot read/);
    } finally {
      serving.child.kill('SIGTERM');
      await serving.exited;
    }
  });
});

describe('in every snapshot', () => {
  for (const mode of ['off', 'quick', 'git-aware'] as const) {
    test(`mode ${mode}: the snapshot and X-Ctx-Warning say the workspace is not a repository`, async () => {
      const proxy = await startProxy({ upstreamUrl: fake.url, workspace: plain.dir, settings: { mode } });
      try {
        const { response } = await proxy
          .client()
          .chat.completions.create({
            model: 'qwen2.5-coder:7b',
            messages: [{ role: 'user', content: 'What did I change?' }],
          })
          .withResponse();
        assert.match(response.headers.get('x-ctx-warning') ?? '', /not a git repository/);
        const snapshot = await proxy.snapshotOf(response);
        assert.ok(snapshot.warnings.some((w) => /not a git repository/.test(w)));
      } finally {
        await proxy.close();
      }
    });
  }

  test('a repository: no such warning', async () => {
    const proxy = await startProxy({ upstreamUrl: fake.url, workspace: repo.dir, settings: { mode: 'git-aware' } });
    try {
      const { response } = await proxy
        .client()
        .chat.completions.create({
          model: 'qwen2.5-coder:7b',
          messages: [{ role: 'user', content: 'What did I change?' }],
        })
        .withResponse();
      const snapshot = await proxy.snapshotOf(response);
      assert.ok(!snapshot.warnings.some((w) => /git repository|git cannot read/.test(w)), snapshot.warnings.join('; '));
    } finally {
      await proxy.close();
    }
  });
});
