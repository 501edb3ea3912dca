import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import type { ContextItem } from '../../src/shared/types.ts';
import { createGitSource } from '../../src/sources/git.ts';
import { Workspaces } from '../../src/sources/workspace.ts';
import { makeDir, makeRepo, type TempRepo } from '../support/gitRepo.ts';
import { until } from '../support/poll.ts';
import { countingGit, historyInput as input, signal, testDeps } from './input.ts';

const GIT_AWARE = ['git.branch', 'git.status', 'git.diffstat', 'git.log'];
const byKey = (items: ContextItem[]) => Object.fromEntries(items.map((item) => [item.key, item]));

function setup(options: { statusChars?: number } = {}) {
  const counter = countingGit();
  const deps = testDeps({ git: counter.factory });
  const workspaces = new Workspaces(deps);
  const git = createGitSource(deps, workspaces, options.statusChars ? { statusChars: options.statusChars } : {});
  return { counter, git, workspaces };
}

describe('git source', () => {
  const repos: { cleanup(): void }[] = [];
  after(() => {
    for (const repo of repos) repo.cleanup();
  });
  const repo = (spec: Parameters<typeof makeRepo>[0]): TempRepo => {
    const made = makeRepo(spec);
    repos.push(made);
    return made;
  };

  test('branch, status with both columns, diff stat and the commits (at least the last ten)', async () => {
    const r = repo({
      files: { 'README.md': 'hello\n', 'src/app.ts': 'export const a = 1;\n' },
      commits: Array.from({ length: 6 }, (_, i) => ({ message: `change ${i + 1}`, files: { 'log.txt': `${i}\n` } })),
      checkout: 'feature/login',
      staged: { 'src/app.ts': 'export const a = 2;\n' },
      unstaged: { 'README.md': 'hello world\n', 'notes.txt': 'new\n' },
    });
    const { git } = setup();
    const items = byKey((await git.collect(input(r.dir, { wanted: GIT_AWARE }), signal)).items);
    assert.deepEqual(Object.keys(items).sort(), [...GIT_AWARE].sort());
    assert.equal(items['git.branch']?.text, 'Branch: feature/login\nDefault branch: main\nUpstream: none');
    assert.equal(items['git.status']?.text, ' M README.md\nM  src/app.ts\n?? notes.txt');
    assert.match(items['git.diffstat']?.text ?? '', /README\.md +\| 2 \+-/);
    assert.match(items['git.diffstat']?.text ?? '', /2 files changed/);
    const log = (items['git.log']?.text ?? '').split('\n');
    // A branch without commits of its own: the last ten (here all seven) of the default branch.
    assert.equal(log[0], '0 commit(s) on feature/login since it left main:');
    assert.equal(log[1], 'earlier (on main):');
    assert.equal(log.length, 2 + 7);
    assert.match(log[2] ?? '', /^[0-9a-f]{7,} \d{4}-\d\d-\d\d Test Author: change 6$/);
    assert.equal(items['git.status']?.source, 'git');
  });

  test('diffs only when the plan wants them, staged and unstaged apart', async () => {
    const r = repo({
      files: { 'a.txt': 'one\n', 'b.txt': 'two\n' },
      staged: { 'a.txt': 'ONE\n' },
      unstaged: { 'b.txt': 'TWO\n' },
    });
    const { git, counter } = setup();
    const without = await git.collect(input(r.dir, { wanted: GIT_AWARE }), signal);
    assert.equal(
      without.items.some((item) => item.key.startsWith('git.diff.')),
      false,
    );
    const before = counter.processes();
    const debug = byKey((await git.collect(input(r.dir, { wanted: ['git.diff.'] }), signal)).items);
    assert.deepEqual(Object.keys(debug).sort(), ['git.diff.staged', 'git.diff.unstaged']);
    assert.equal(counter.processes() - before, 2, 'only the two diffs ran');
    assert.match(debug['git.diff.staged']?.text ?? '', /^\+ONE$/m);
    assert.doesNotMatch(debug['git.diff.staged']?.text ?? '', /TWO/);
    assert.match(debug['git.diff.unstaged']?.text ?? '', /^\+TWO$/m);
    assert.equal(debug['git.diff.unstaged']?.kind, 'diff');
  });

  test('detached HEAD, default branch from origin/HEAD, ahead and behind its upstream', async () => {
    const origin = repo({ files: { 'a.txt': '1\n' }, commits: [{ message: 'two', files: { 'a.txt': '2\n' } }] });
    const cloneDir = makeDir();
    repos.push(cloneDir);
    execFileSync('git', ['clone', '-q', origin.dir, path.join(cloneDir.dir, 'c')]);
    const clone = path.join(cloneDir.dir, 'c');
    const run = (...args: string[]) =>
      execFileSync('git', args, {
        cwd: clone,
        env: {
          ...process.env,
          GIT_AUTHOR_NAME: 'T',
          GIT_AUTHOR_EMAIL: 't@x',
          GIT_COMMITTER_NAME: 'T',
          GIT_COMMITTER_EMAIL: 't@x',
        },
      });
    fs.writeFileSync(path.join(clone, 'mine.txt'), 'x\n');
    run('add', 'mine.txt');
    run('commit', '-qm', 'local');
    origin.git('commit', '-q', '--allow-empty', '-m', 'upstream 1');
    origin.git('commit', '-q', '--allow-empty', '-m', 'upstream 2');
    run('fetch', '-q');
    const { git } = setup();
    const branch = byKey((await git.collect(input(clone, { wanted: ['git.branch'] }), signal)).items)['git.branch'];
    assert.equal(branch?.text, 'Branch: main\nDefault branch: origin/main\nUpstream: origin/main (ahead 1, behind 2)');

    const head = origin.git('rev-parse', 'HEAD').trim();
    origin.git('checkout', '-q', '--detach', head);
    const detached = byKey((await git.collect(input(origin.dir, { wanted: ['git.branch'] }), signal)).items)[
      'git.branch'
    ];
    assert.equal(detached?.text, `Branch: (detached HEAD at ${head.slice(0, 12)})\nDefault branch: main`);
  });

  test('a repository without commits, and a subdirectory workspace with paths relative to it', async () => {
    const empty = repo({});
    empty.write('first.txt', 'x\n');
    const { git } = setup();
    const items = byKey((await git.collect(input(empty.dir, { wanted: GIT_AWARE }), signal)).items);
    assert.equal(items['git.branch']?.text, 'Branch: main (no commits yet)\nUpstream: none');
    assert.equal(items['git.status']?.text, '?? first.txt');
    assert.equal(items['git.log']?.text, '(no commits yet)');

    const nested = repo({
      files: { 'pkg/lib/a.ts': '1\n', 'top.txt': 't\n' },
      unstaged: { 'pkg/lib/a.ts': '2\n', 'top.txt': 'T\n' },
    });
    const sub = byKey(
      (await git.collect(input(path.join(nested.dir, 'pkg'), { wanted: ['git.status'] }), signal)).items,
    );
    assert.equal(sub['git.status']?.text, ' M lib/a.ts\n M ../top.txt');
  });

  test('a directory that is not a repository yields no items and no error, and runs no git', async () => {
    const plain = makeDir({ 'a.txt': 'x' });
    repos.push(plain);
    const { git, counter } = setup();
    const result = await git.collect(input(plain.dir, { wanted: ['git.'] }), signal);
    assert.deepEqual(result.items, []);
    assert.equal(counter.instances(), 0);
  });

  test('status is capped with a tail line saying how much was cut and how to see it', async () => {
    const files = Object.fromEntries(
      Array.from({ length: 300 }, (_, i) => [`file-${String(i).padStart(3, '0')}.txt`, 'x\n']),
    );
    const r = repo({ files: { 'keep.txt': 'k\n' }, unstaged: files });
    const { git } = setup({ statusChars: 500 });
    const status = byKey((await git.collect(input(r.dir, { wanted: ['git.status'] }), signal)).items)['git.status'];
    assert.ok(status);
    assert.equal(status.truncated, true);
    const lines = status.text.split('\n');
    const shown = lines.length - 1;
    assert.equal(lines.at(-1), `… ${300 - shown} more lines; run \`git status --short\` to see all`);
    assert.ok(status.text.length <= 500 + 80);
    assert.equal(lines[0], '?? file-000.txt');
  });

  test('status and untracked files never list ctxproxy’s own folder, even before its .gitignore is written', async () => {
    // As the index leaves it for a moment (folder made, .gitignore not yet renamed into place),
    // at the top and in a nested workspace, beside a file the user did add.
    const r = repo({
      files: { 'keep.txt': 'k\n' },
      unstaged: {
        'notes.txt': 'new\n',
        '.ctxproxy/index.db': 'x',
        '.ctxproxy/.gitignore.4242.abc': '*\n',
        'pkg/.ctxproxy/index.db': 'x',
        'pkg/lib.ts': 'export {};\n',
      },
    });
    const { git } = setup();
    const items = byKey((await git.collect(input(r.dir, { wanted: ['git.status', 'git.untracked'] }), signal)).items);
    assert.equal(items['git.status']?.text, '?? notes.txt\n?? pkg/');
    assert.deepEqual(
      Object.keys(items)
        .filter((key) => key.startsWith('git.untracked.'))
        .sort(),
      ['git.untracked.notes.txt', 'git.untracked.pkg/lib.ts'],
    );
  });

  describe('memoization', () => {
    test('a warm request with nothing changed spawns no git process', async () => {
      const r = repo({ files: { 'a.txt': 'a\n' }, unstaged: { 'a.txt': 'b\n' } });
      const { git, counter } = setup();
      const first = await git.collect(input(r.dir, { wanted: GIT_AWARE }), signal);
      const spawned = counter.processes();
      assert.ok(spawned >= 3);
      const instances = counter.instances();
      for (let i = 0; i < 5; i++) {
        assert.equal(await git.collect(input(r.dir, { wanted: GIT_AWARE }), signal), first);
      }
      assert.equal(counter.processes(), spawned);
      assert.equal(counter.instances(), instances, 'the git factory was not even called');
    });

    test('editing a dirty file, touching the index or committing invalidates', async () => {
      const r = repo({ files: { 'a.txt': 'a\n', 'b.txt': 'b\n' }, unstaged: { 'a.txt': 'changed\n' } });
      const { git, counter } = setup();
      const status = async () =>
        byKey((await git.collect(input(r.dir, { wanted: GIT_AWARE }), signal)).items)['git.status']?.text;
      assert.equal(await status(), ' M a.txt');

      let spawned = counter.processes();
      const later = new Date(Date.now() + 5_000);
      fs.utimesSync(path.join(r.dir, 'a.txt'), later, later);
      await status();
      assert.ok(counter.processes() > spawned, 'touching a dirty file recomputes');

      spawned = counter.processes();
      r.git('add', 'a.txt');
      assert.equal(await status(), 'M  a.txt');
      assert.ok(counter.processes() > spawned);

      r.git('-c', 'user.name=T', '-c', 'user.email=t@x', 'commit', '-qm', 'commit a');
      assert.equal(await status(), '(clean: nothing to commit)');
      const log = byKey((await git.collect(input(r.dir, { wanted: GIT_AWARE }), signal)).items)['git.log']?.text;
      assert.match(log ?? '', /commit a/);

      r.write('new.txt', 'n\n');
      assert.equal(await status(), '?? new.txt', 'a new file at the top changes the directory mtime');
    });

    test('an in-place edit of a clean file is seen once the work-tree watcher is armed', async () => {
      const r = repo({ files: { 'src/deep/clean.ts': 'a\n', 'x.txt': 'x\n' } });
      const counter = countingGit();
      const deps = testDeps({ git: counter.factory, watchWorkTree: true });
      const workspaces = new Workspaces(deps);
      const git = createGitSource(deps, workspaces);
      try {
        await git.collect(input(r.dir, { wanted: ['git.status'] }), signal);
        await workspaces.get(r.dir).armWatcherSoon();
        const warm = await git.collect(input(r.dir, { wanted: ['git.status'] }), signal);
        const spawned = counter.processes();
        assert.equal(await git.collect(input(r.dir, { wanted: ['git.status'] }), signal), warm);
        assert.equal(counter.processes(), spawned);

        fs.appendFileSync(path.join(r.dir, 'src/deep/clean.ts'), 'edited\n');
        let text = '';
        await until(async () => {
          text =
            byKey((await git.collect(input(r.dir, { wanted: ['git.status'] }), signal)).items)['git.status']?.text ??
            '';
          return text === ' M src/deep/clean.ts';
        }, 'the watcher to report the edit');
        assert.equal(text, ' M src/deep/clean.ts');
      } finally {
        workspaces.closeAll();
      }
    });

    test('the TTL is a backstop', async () => {
      const r = repo({ files: { 'a.txt': 'a\n' } });
      let now = 0;
      const counter = countingGit();
      const deps = testDeps({ git: counter.factory, clock: () => now, memoTtlMs: 1_000 });
      const git = createGitSource(deps, new Workspaces(deps));
      await git.collect(input(r.dir, { wanted: ['git.log'] }), signal);
      const spawned = counter.processes();
      now = 999;
      await git.collect(input(r.dir, { wanted: ['git.log'] }), signal);
      assert.equal(counter.processes(), spawned);
      now = 1_001;
      await git.collect(input(r.dir, { wanted: ['git.log'] }), signal);
      assert.equal(counter.processes(), spawned + 1);
    });
  });
});
