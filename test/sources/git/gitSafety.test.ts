// Git on an untrusted repository, one attack at a time: each config key that
// can make git run a command is set alone, the git source runs every command
// it has (status, diffs, diff stat, log), and the command must not have run.
// Then the places a repository can lead git outside the workspace.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { subcommandOf } from '../../../src/sources/git/gitFailure.ts';
import { type GitOutput, readWhole, spawnGit } from '../../../src/sources/git/gitRunner.ts';
import { CONFIG_LIST_BYTES, checkRepo } from '../../../src/sources/git/gitSafety.ts';
import { createGitSource } from '../../../src/sources/git.ts';
import { createStatsSource } from '../../../src/sources/stats.ts';
import { createTreeSource } from '../../../src/sources/tree.ts';
import { Workspaces } from '../../../src/sources/workspace.ts';
import { makeDir, makeRepo, type TempDir } from '../../support/gitRepo.ts';
import { historyInput as input, signal, testDeps } from '../input.ts';

const cleanups: (() => void)[] = [];
after(() => {
  for (const cleanup of cleanups) cleanup();
});

function tracked<T extends TempDir>(dir: T): T {
  cleanups.push(() => dir.cleanup());
  return dir;
}

/** A repository with a modified, attributed file, and `key = value` from `configure` in its own config. */
function repoWith(configure: (marker: string) => [string, string][]) {
  const markers = tracked(makeDir({}, 'ctxproxy-markers-'));
  const repo = tracked(
    makeRepo({
      files: { '.gitattributes': '*.txt filter=x diff=y\n', 'a.txt': 'one\n' },
      staged: { 'b.txt': 'staged\n' },
    }),
  );
  const marker = path.join(markers.dir, 'ran');
  for (const [key, value] of configure(`touch ${marker}`)) repo.git('config', key, value);
  fs.writeFileSync(path.join(repo.dir, 'a.txt'), 'one\ntwo\n');
  return { repo, ran: () => fs.existsSync(marker) };
}

const ATTACKS: Record<string, (run: string) => [string, string][]> = {
  'core.fsmonitor': (run) => [['core.fsmonitor', `${run}; false`]],
  'filter.<name>.clean': (run) => [['filter.x.clean', `${run}; cat`]],
  'filter.<name>.process': (run) => [['filter.x.process', run]],
  'filter.<name>.clean, required': (run) => [
    ['filter.x.clean', `${run}; cat`],
    ['filter.x.required', 'true'],
  ],
  'diff.<name>.textconv': (run) => [['diff.y.textconv', `${run}; cat`]],
  'diff.<name>.command': (run) => [['diff.y.command', run]],
  'diff.external': (run) => [['diff.external', run]],
  'core.pager': (run) => [['core.pager', `${run}; cat`]],
};

describe('git runs nothing the repository configures', () => {
  for (const [name, configure] of Object.entries(ATTACKS)) {
    test(name, async () => {
      const { repo, ran } = repoWith(configure);
      const deps = testDeps();
      const workspaces = new Workspaces(deps);
      const wanted = ['git.', 'tree.', 'stats.'];
      const git = await createGitSource(deps, workspaces).collect(input(repo.dir, { wanted }), signal);
      await createTreeSource(deps, workspaces).collect(input(repo.dir, { wanted }), signal);
      await createStatsSource(deps, workspaces).collect(input(repo.dir, { wanted }), signal);
      assert.equal(ran(), false, `${name} ran a command`);
      const text = git.items.map((item) => item.text).join('\n');
      assert.match(text, /^\+two$/m, 'the unstaged diff is still there');
      assert.match(text, /^\+staged$/m, 'the staged diff is still there');
      assert.match(text, /Initial commit/);
      workspaces.closeAll();
    });
  }
});

describe('git stays in the workspace', () => {
  const gitOff = async (workspace: string) => {
    const deps = testDeps();
    const result = await createGitSource(deps, new Workspaces(deps)).collect(
      input(workspace, { wanted: ['git.'] }),
      signal,
    );
    assert.deepEqual(result.items, []);
    return result.skipped?.[0]?.reason ?? '';
  };

  test('a .git folder that is a symlink to another repository', async () => {
    const other = tracked(makeRepo({ files: { 'x.txt': 'x\n' } }));
    const dir = tracked(makeDir({ 'y.txt': 'y\n' }));
    fs.symlinkSync(path.join(other.dir, '.git'), path.join(dir.dir, '.git'));
    assert.equal(await gitOff(dir.dir), '.git points outside the workspace; git context is off');
  });

  test('a commondir that leads out of an in-tree git folder', async () => {
    const other = tracked(makeRepo({ files: { 'x.txt': 'x\n' } }));
    const repo = tracked(makeRepo({ files: { 'y.txt': 'y\n' } }));
    fs.renameSync(path.join(repo.dir, '.git'), path.join(repo.dir, 'inner'));
    fs.writeFileSync(path.join(repo.dir, '.git'), 'gitdir: inner\n');
    fs.writeFileSync(path.join(repo.dir, 'inner', 'commondir'), `${path.join(other.dir, '.git')}\n`);
    assert.match(await gitOff(repo.dir), /^the commondir of \.git points outside the workspace/);
  });

  test('core.worktree pointing elsewhere, an include, object alternates outside', async () => {
    const other = tracked(makeRepo({ files: { 'x.txt': 'x\n' } }));
    const worktree = tracked(makeRepo({ files: { 'y.txt': 'y\n' } }));
    worktree.git('config', 'core.worktree', other.dir);
    assert.match(await gitOff(worktree.dir), /^core\.worktree points away from the workspace/);

    const include = tracked(makeRepo({ files: { 'y.txt': 'y\n' } }));
    include.git('config', 'include.path', path.join(other.dir, '.git', 'config'));
    assert.match(await gitOff(include.dir), /^the repository config includes a file outside the workspace/);

    const alternates = tracked(makeRepo({ files: { 'y.txt': 'y\n' } }));
    fs.writeFileSync(
      path.join(alternates.dir, '.git', 'objects', 'info', 'alternates'),
      `${path.join(other.dir, '.git', 'objects')}\n`,
    );
    assert.match(await gitOff(alternates.dir), /^the object alternates point outside the workspace/);
  });

  test('a workspace below its repository keeps git (the .git folder is the repository’s own)', async () => {
    const repo = tracked(makeRepo({ files: { 'app/y.txt': 'y\n' } }));
    const deps = testDeps();
    const result = await createGitSource(deps, new Workspaces(deps)).collect(
      input(path.join(repo.dir, 'app'), { wanted: ['git.log'] }),
      signal,
    );
    assert.match(result.items[0]?.text ?? '', /Initial commit/);
  });

  test('filter names are read by git in every spelling; names -c cannot override turn git off', async () => {
    const repo = tracked(makeRepo({ files: { 'y.txt': 'y\n' } }));
    fs.appendFileSync(
      path.join(repo.dir, '.git', 'config'),
      '[filter "a b"]\n\tclean = x\n[FILTER.Old]\nsmudge = y\n[core][filter "hidden"]\n\tprocess = z\n',
    );
    const location = {
      topLevel: repo.dir,
      gitDir: path.join(repo.dir, '.git'),
      commonDir: path.join(repo.dir, '.git'),
    };
    const list = (args: string[]) => readWhole(spawnGit(repo.dir), args, CONFIG_LIST_BYTES);
    const check = await checkRepo(location, '/nonexistent-home', list);
    assert.ok(check.ok);
    assert.deepEqual(check.overrides, ['filter.a b.clean=', 'filter.hidden.process=', 'filter.old.smudge=']);
    repo.git('config', 'filter.a=b.clean', 'touch /nonexistent');
    const refused = await checkRepo(location, '/nonexistent-home', list);
    assert.equal(refused.ok, false);
    assert.match(refused.ok ? '' : refused.reason, /under a name -c cannot override; git context is off$/);
  });
});

describe('the repository check costs one git config per change of the config files', () => {
  test('cold: one listing before any other git command; warm: no git at all; a config edit: one more listing', async () => {
    const repo = tracked(makeRepo({ files: { 'a.txt': 'one\n' }, unstaged: { 'a.txt': 'one\ntwo\n' } }));
    const commands: string[] = [];
    const deps = testDeps({
      git: (baseDir, signal) => {
        const git = spawnGit(baseDir, signal);
        const record = (args: string[]) => commands.push(subcommandOf(args));
        return {
          raw: (args) => {
            record(args);
            return git.raw(args);
          },
          rawKept: (args, keeper) => {
            record(args);
            return git.rawKept?.(args, keeper) ?? Promise.reject(new Error('no rawKept'));
          },
        };
      },
    });
    const workspaces = new Workspaces(deps);
    const source = createGitSource(deps, workspaces);
    const collect = () => source.collect(input(repo.dir, { wanted: ['git.'] }), signal);
    assert.match((await collect()).items.map((item) => item.text).join('\n'), /^\+two$/m);
    assert.equal(commands[0], 'config', 'the check ran first');
    assert.equal(commands.filter((name) => name === 'config').length, 1);
    const cold = commands.length;
    await collect();
    assert.equal(commands.length, cold, 'a warm request spawns nothing');
    // A new key (and a new mtime and size): the check is made again, once.
    repo.git('config', 'filter.late.clean', 'touch /nonexistent');
    await collect();
    assert.equal(commands.filter((name) => name === 'config').length, 2);
    workspaces.closeAll();
  });
});

describe('a caller that did not wait for the check still gets it', () => {
  test('repo(), repoRefusal() and gitArgs() check on the spot; gitArgs never builds a command for a refused repository', () => {
    const good = tracked(makeRepo({ files: { 'a.txt': 'one\n' } }));
    good.git('config', 'filter.x.clean', 'touch /nonexistent');
    const bad = tracked(makeRepo({ files: { 'a.txt': 'one\n' } }));
    fs.appendFileSync(
      path.join(bad.dir, '.git', 'config'),
      `[remote "x"][core]\n\tworktree = ${path.dirname(bad.dir)}\n`,
    );
    const deps = testDeps();
    const workspaces = new Workspaces(deps);
    const ok = workspaces.get(good.dir);
    assert.equal(ok.repo()?.topLevel, good.dir);
    const args = ok.gitArgs(['status']);
    assert.ok(args.includes('filter.x.clean='), 'the per-name override is there');
    assert.ok(args.includes(`--work-tree=${good.dir}`));
    const refused = workspaces.get(bad.dir);
    assert.equal(refused.repo(), undefined);
    assert.equal(refused.repoRefusal(), 'core.worktree points away from the workspace; git context is off');
    assert.throws(() => refused.gitArgs(['status']), /core\.worktree points away/);
    workspaces.closeAll();
  });
});

describe('a check whose listing fails is asked again, not kept', () => {
  test('the first git config fails (a deadline, a busy machine): git is off for that request only', async () => {
    const repo = tracked(makeRepo({ files: { 'a.txt': 'one\n' } }));
    let failNext = true;
    const deps = testDeps({
      git: (baseDir, signal) => {
        const git = spawnGit(baseDir, signal);
        const gate = (args: string[]) => {
          if (subcommandOf(args) !== 'config' || !failNext) return undefined;
          failNext = false;
          return Promise.reject(new Error('listing timed out'));
        };
        return {
          raw: (args) => gate(args) ?? git.raw(args),
          rawKept: (args, keeper) => gate(args) ?? (git.rawKept?.(args, keeper) as Promise<GitOutput>),
        };
      },
    });
    const workspaces = new Workspaces(deps);
    const source = createGitSource(deps, workspaces);
    const first = await source.collect(input(repo.dir, { wanted: ['git.log'] }), signal);
    assert.deepEqual(first.skipped, [
      { path: 'git', reason: 'git could not read the repository config; git context is off' },
    ]);
    const second = await source.collect(input(repo.dir, { wanted: ['git.log'] }), signal);
    assert.match(second.items[0]?.text ?? '', /Initial commit/);
    workspaces.closeAll();
  });
});
