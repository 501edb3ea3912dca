// The repository does not configure git (issue 24, part 2), through the real
// git, tree and stats sources and real git: config hidden from a hand parser,
// commands in a submodule's own config, partial clones whose lazy fetch runs a
// transport, a core.worktree that moves git to the home folder, includes and
// paths that lead outside, commands with no known off value. Each attack is a
// class with several spellings; none may run a command or bring home-folder text.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { GIT_CHILD_VARIABLES, gitChildEnvironment } from '../../src/sources/git/gitEnvironment.ts';
import { spawnGit } from '../../src/sources/git/gitRunner.ts';
import { gitPrefix } from '../../src/sources/git/gitSafety.ts';
import { createGitSource } from '../../src/sources/git.ts';
import { createStatsSource } from '../../src/sources/stats.ts';
import { createTreeSource } from '../../src/sources/tree.ts';
import { Workspaces } from '../../src/sources/workspace.ts';
import { makeRepo } from '../support/gitRepo.ts';
import {
  appendConfig,
  attributedRepo,
  HOME_TEXT,
  makeHostileWorld,
  partialClone,
  repoWithSubmodule,
} from '../support/hostileGit.ts';
import { historyInput as input, signal, testDeps } from './input.ts';

const world = makeHostileWorld();
after(() => world.cleanup());

/** Every source that runs git, on `dir`; the git items' text, everything's text, and the git source's skips. */
async function collect(dir: string) {
  const deps = testDeps({ homeDir: world.home.dir });
  const workspaces = new Workspaces(deps);
  const wanted = ['git.', 'tree.', 'stats.'];
  try {
    const git = await createGitSource(deps, workspaces).collect(input(dir, { wanted }), signal);
    const tree = await createTreeSource(deps, workspaces).collect(input(dir, { wanted }), signal);
    const stats = await createStatsSource(deps, workspaces).collect(input(dir, { wanted }), signal);
    const all = [git, tree, stats].flatMap((result) => result.items.map((item) => item.text)).join('\n');
    const reasons = (git.skipped ?? []).map((skip) => skip.reason);
    return { gitText: git.items.map((item) => item.text).join('\n'), all, reasons };
  } finally {
    workspaces.closeAll();
  }
}

function assertNothingRanOrLeaked(all: string): void {
  assert.deepEqual(world.ran(), [], 'a command from the repository config ran');
  for (const [name, text] of Object.entries(HOME_TEXT)) assert.ok(!all.includes(text), `home ${name} was read`);
  assert.ok(!all.includes('.bash_history'), 'the home folder was listed');
}

describe('keys a hand parser misses are seen: git reads the config for us', () => {
  const spellings: Record<string, (run: string) => string> = {
    'two section headers on one line': (run) => `[core][filter "evil"]\n\tclean = ${run}; cat\n`,
    'a filter after another subsection on the line': (run) => `[remote "x"][filter "evil"]\n\tprocess = ${run}\n`,
    'a textconv after a header on the line': (run) => `[core][diff "evil"]\n\ttextconv = ${run}; cat\n`,
    'a value continued on the next line': (run) => `[filter "evil"]\n\tclean = \\\n${run}\n`,
    'the old dotted spelling in capitals': (run) => `[FILTER.Evil]\n\tclean = ${run}\n`,
  };
  for (const [name, text] of Object.entries(spellings)) {
    test(name, async () => {
      const repo = attributedRepo(world);
      appendConfig(repo, text(world.touch(name.replace(/\W+/g, '-'))));
      const { gitText, all } = await collect(repo.dir);
      assertNothingRanOrLeaked(all);
      assert.match(gitText, /^\+two$/m, 'the diff is still there: the filter was switched off, git was not');
    });
  }
});

describe("a submodule's own config runs nothing: submodules are never entered", () => {
  const hooks = (run: string) => {
    const dir = world.track(makeRepo()).dir;
    fs.writeFileSync(path.join(dir, 'post-index-change'), `#!/bin/sh\n${run}\n`, { mode: 0o755 });
    return dir;
  };
  const keys: Record<string, (run: string) => [string, string][]> = {
    'filter.<name>.clean': (run) => [['filter.evil.clean', `${run}; cat`]],
    'diff.<name>.textconv': (run) => [['diff.evil.textconv', `${run}; cat`]],
    'core.fsmonitor': (run) => [['core.fsmonitor', `${run}; false`]],
    'core.hooksPath': (run) => [['core.hooksPath', hooks(run)]],
    'diff.external and core.pager': (run) => [
      ['diff.external', run],
      ['core.pager', `${run}; cat`],
    ],
    'core.worktree to the home folder': () => [['core.worktree', world.home.dir]],
  };
  for (const [name, configure] of Object.entries(keys)) {
    test(name, async () => {
      const run = world.touch(`submodule-${name.replace(/\W+/g, '-')}`);
      const repo = repoWithSubmodule(world, (sub) => {
        for (const [key, value] of configure(run)) sub.git('config', key, value);
      });
      const { gitText, all } = await collect(repo.dir);
      assertNothingRanOrLeaked(all);
      assert.match(gitText, /add submodule/, "the superproject's own git context is still there");
    });
  }
});

describe('a partial clone never fetches: no lazy fetch, no transport', () => {
  const remotes: Record<string, (run: string) => [string, string][]> = {
    'an ext:: remote with protocol.ext.allow=always': (run) => [
      ['remote.origin.url', `ext::sh -c ${run.replace(/ /g, '% ')}`],
      ['protocol.ext.allow', 'always'],
    ],
    'a file remote with its own uploadpack and protocol.file.allow=always': (run) => [
      ['remote.origin.url', world.track(makeRepo({ files: { 'a.txt': 'one\n' } })).dir],
      ['remote.origin.uploadpack', `${run}; git-upload-pack`],
      ['protocol.file.allow', 'always'],
    ],
  };
  for (const [name, remote] of Object.entries(remotes)) {
    test(`${name}: git is off with a reason`, async () => {
      const repo = partialClone(world, remote(world.touch(`lazy-${name.slice(0, 8).replace(/\W+/g, '-')}`)));
      const { all, reasons } = await collect(repo.dir);
      assertNothingRanOrLeaked(all);
      assert.deepEqual(reasons, [
        'the repository is a partial clone (a missing object would be fetched); git context is off',
      ]);
    });

    test(`${name}: even a diff run past the check starts no transport (the child's environment)`, async () => {
      const marker = `lazy-env-${name.slice(0, 8).replace(/\W+/g, '-')}`;
      const repo = partialClone(world, remote(world.touch(marker)));
      await assert.rejects(spawnGit(repo.dir).raw([...gitPrefix([]), 'diff', '--no-ext-diff', '--no-textconv']));
      assert.deepEqual(world.ran(), []);
    });
  }
});

describe('core.worktree cannot move git to the home folder, however it is written', () => {
  const spellings: Record<string, (home: string) => string> = {
    'after another header on the line': (home) => `[remote "x"][core]\n\tworktree = ${home}\n`,
    'continued on the next line': (home) => `[core]\n\tworktree = \\\n${home}\n`,
    'as a subsection-less old spelling in capitals': (home) => `[CORE]\n\tWorkTree = "${home}"\n`,
  };
  for (const [name, text] of Object.entries(spellings)) {
    test(name, async () => {
      const repo = world.track(makeRepo({ files: { 'a.txt': 'one\n' } }));
      appendConfig(repo, text(world.home.dir));
      const { all, reasons } = await collect(repo.dir);
      assertNothingRanOrLeaked(all);
      assert.deepEqual(reasons, ['core.worktree points away from the workspace; git context is off']);
    });
  }

  test('in the per-worktree config, or in an included file inside the repository', async () => {
    const perWorktree = world.track(makeRepo({ files: { 'a.txt': 'one\n' } }));
    perWorktree.git('config', 'extensions.worktreeConfig', 'true');
    perWorktree.git('config', '--worktree', 'core.worktree', world.home.dir);
    const included = world.track(makeRepo({ files: { 'a.txt': 'one\n' } }));
    fs.writeFileSync(path.join(included.dir, 'project.gitconfig'), `[core]\n\tworktree = ${world.home.dir}\n`);
    included.git('config', 'include.path', '../project.gitconfig');
    for (const repo of [perWorktree, included]) {
      const { all, reasons } = await collect(repo.dir);
      assertNothingRanOrLeaked(all);
      assert.deepEqual(reasons, ['core.worktree points away from the workspace; git context is off']);
    }
  });
});

describe('includes and paths that lead outside turn git off; inside ones are judged like the rest', () => {
  const outsideConfig = () => {
    const file = path.join(world.home.dir, 'evil.gitconfig');
    fs.writeFileSync(file, `[filter "evil"]\n\tclean = ${world.touch('included-filter')}; cat\n`);
    return file;
  };
  const includes: Record<string, (gitDir: string) => [string, string]> = {
    'include.path, absolute': () => ['include.path', outsideConfig()],
    // Relative to the config file's folder, .git/.
    'include.path, relative and climbing out': (gitDir) => ['include.path', path.relative(gitDir, outsideConfig())],
    'includeIf on the git folder': () => ['includeIf.gitdir:/.path', outsideConfig()],
    'includeIf on a branch, from ~/': () => ['includeIf.onbranch:main.path', '~/.bash_history'],
  };
  for (const [name, include] of Object.entries(includes)) {
    test(name, async () => {
      const repo = attributedRepo(world);
      const [key, value] = include(path.join(repo.dir, '.git'));
      repo.git('config', key, value);
      const { all, reasons } = await collect(repo.dir);
      assertNothingRanOrLeaked(all);
      assert.deepEqual(reasons, ['the repository config includes a file outside the workspace; git context is off']);
    });
  }

  test('an inside include that is a symlink to an outside file', async () => {
    const repo = attributedRepo(world);
    fs.symlinkSync(outsideConfig(), path.join(repo.dir, 'linked.gitconfig'));
    repo.git('config', 'include.path', '../linked.gitconfig');
    const { all, reasons } = await collect(repo.dir);
    assertNothingRanOrLeaked(all);
    assert.deepEqual(reasons, ['the repository config includes a file outside the workspace; git context is off']);
  });

  test('an include inside the repository is followed: its filter is switched off, git keeps working', async () => {
    const repo = attributedRepo(world);
    fs.writeFileSync(
      path.join(repo.dir, 'project.gitconfig'),
      `[filter "evil"]\n\tclean = ${world.touch('inside-include')}; cat\n`,
    );
    repo.git('config', 'include.path', '../project.gitconfig');
    const { gitText, all } = await collect(repo.dir);
    assertNothingRanOrLeaked(all);
    assert.match(gitText, /^\+two$/m);
  });

  const paths: [string, string][] = [
    ['core.excludesFile', '~/.bash_history'],
    ['core.attributesFile', '~/notes.txt'],
    ['mailmap.file', '/etc/passwd'],
  ];
  for (const [key, value] of paths) {
    test(`${key} outside the workspace`, async () => {
      const repo = world.track(makeRepo({ files: { 'a.txt': 'one\n' } }));
      repo.git('config', key, value);
      const { reasons } = await collect(repo.dir);
      assert.deepEqual(reasons, [
        `the repository config points ${key.toLowerCase()} outside the workspace; git context is off`,
      ]);
    });
  }
});

describe('a command with no known off value turns git off (fail closed)', () => {
  const keys: [string, string][] = [
    ['core.alternateRefsCommand', 'touch /nonexistent'],
    ['remote.origin.vcs', 'evil'],
    ['uploadpack.packObjectsHook', 'touch /nonexistent'],
  ];
  for (const [key, value] of keys) {
    test(key, async () => {
      const repo = world.track(makeRepo({ files: { 'a.txt': 'one\n' } }));
      repo.git('config', key, value);
      const { reasons } = await collect(repo.dir);
      assert.equal(reasons.length, 1);
      assert.match(reasons[0] ?? '', /^the repository config sets a command \(.+\) that cannot be switched off; git/);
    });
  }
});

describe("the parent's GIT_* variables never reach git", () => {
  test('GIT_DIR, GIT_WORK_TREE and GIT_CONFIG_PARAMETERS of the parent are dropped', async () => {
    const other = world.track(makeRepo({ commits: [{ message: 'OTHER-REPO-COMMIT', files: { 'o.txt': 'o\n' } }] }));
    const repo = world.track(makeRepo({ files: { 'a.txt': 'one\n' } }));
    const saved = { ...process.env };
    process.env.GIT_DIR = path.join(other.dir, '.git');
    process.env.GIT_WORK_TREE = other.dir;
    process.env.GIT_CONFIG_PARAMETERS = `'core.fsmonitor=${world.touch('env-fsmonitor')}; false'`;
    try {
      const env = gitChildEnvironment();
      assert.deepEqual(
        Object.keys(env).filter((name) => name.startsWith('GIT_')),
        Object.keys(GIT_CHILD_VARIABLES),
      );
      const { gitText, all } = await collect(repo.dir);
      assertNothingRanOrLeaked(all);
      assert.match(gitText, /Initial commit/);
      assert.ok(!gitText.includes('OTHER-REPO-COMMIT'), "the parent's GIT_DIR was used");
    } finally {
      for (const name of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_CONFIG_PARAMETERS']) {
        if (saved[name] === undefined) delete process.env[name];
        else process.env[name] = saved[name];
      }
    }
  });
});

describe('what the check read is watched, and the files git reads are the repository’s', () => {
  test('an included file edited after the check is judged again before git runs on it', async () => {
    const repo = attributedRepo(world);
    const included = path.join(repo.dir, 'project.gitconfig');
    fs.writeFileSync(included, '[core]\n\tautocrlf = false\n');
    repo.git('config', 'include.path', '../project.gitconfig');
    const deps = testDeps({ homeDir: world.home.dir });
    const workspaces = new Workspaces(deps);
    const source = createGitSource(deps, workspaces);
    const ask = () => source.collect(input(repo.dir, { wanted: ['git.'] }), signal);
    try {
      assert.match((await ask()).items.map((item) => item.text).join('\n'), /^\+two$/m);
      fs.writeFileSync(included, `[filter "evil"]\n\tclean = ${world.touch('late-include')}; cat\n`);
      fs.writeFileSync(path.join(repo.dir, 'a.txt'), 'one\ntwo\nthree\n');
      const text = (await ask()).items.map((item) => item.text).join('\n');
      assertNothingRanOrLeaked(text);
      assert.match(text, /^\+three$/m);
    } finally {
      workspaces.closeAll();
    }
  });

  test('a .git/config that is a link to a file outside: git is off', async () => {
    const repo = world.track(makeRepo({ files: { 'a.txt': 'one\n' } }));
    const outside = path.join(world.home.dir, 'linked-config');
    fs.copyFileSync(path.join(repo.dir, '.git', 'config'), outside);
    fs.rmSync(path.join(repo.dir, '.git', 'config'));
    fs.symlinkSync(outside, path.join(repo.dir, '.git', 'config'));
    const { reasons } = await collect(repo.dir);
    assert.deepEqual(reasons, ['the repository config is not a file inside the workspace; git context is off']);
  });

  test('object alternates that leave the workspace one hop later: git is off', async () => {
    const other = world.track(makeRepo({ files: { 'o.txt': 'o\n' } }));
    const repo = world.track(makeRepo({ files: { 'a.txt': 'one\n' } }));
    const hop = path.join(repo.dir, 'hop', 'objects');
    fs.mkdirSync(path.join(hop, 'info'), { recursive: true });
    fs.writeFileSync(path.join(hop, 'info', 'alternates'), `${path.join(other.dir, '.git', 'objects')}\n`);
    fs.writeFileSync(path.join(repo.dir, '.git', 'objects', 'info', 'alternates'), `${hop}\n`);
    const { reasons } = await collect(repo.dir);
    assert.deepEqual(reasons, ['the object alternates point outside the workspace; git context is off']);
  });
});

describe('a repository configured the usual ways keeps its git context', () => {
  test('Git LFS installed locally, husky hooks, ssh signing, a local-path remote, aliases and tools', async () => {
    const origin = world.track(makeRepo({ files: { 'a.txt': 'one\n' } }));
    const repo = world.track(makeRepo({ files: { 'a.txt': 'one\n' }, unstaged: { 'a.txt': 'one\ntwo\n' } }));
    const settings: [string, string][] = [
      ['filter.lfs.clean', 'git-lfs clean -- %f'],
      ['filter.lfs.process', 'git-lfs filter-process'],
      ['filter.lfs.required', 'true'],
      ['lfs.repositoryformatversion', '0'],
      ['core.hooksPath', '.husky'],
      ['gpg.format', 'ssh'],
      ['user.signingkey', '~/.ssh/id_ed25519.pub'],
      ['gpg.ssh.allowedSignersFile', '~/.ssh/allowed_signers'],
      ['commit.gpgsign', 'true'],
      ['commit.template', '~/.gitmessage'],
      ['remote.origin.url', origin.dir],
      ['remote.origin.fetch', '+refs/heads/*:refs/remotes/origin/*'],
      ['branch.main.remote', 'origin'],
      ['branch.main.merge', 'refs/heads/main'],
      ['alias.lg', '!git log --graph'],
      ['diff.tool', 'vimdiff'],
      ['difftool.vimdiff.cmd', 'vimdiff "$LOCAL" "$REMOTE"'],
      ['blame.ignoreRevsFile', '.git-blame-ignore-revs'],
      ['diff.lockb.textconv', 'bun'],
      ['merge.npm-merge-driver.driver', 'npx npm-merge-driver merge %A %O %B %P'],
      ['color.pager', 'true'],
      ['safe.directory', '/'],
      ['pager.log', 'less -R'],
      ['credential.https://example.test.helper', 'store'],
    ];
    for (const [key, value] of settings) repo.git('config', key, value);
    const { gitText, reasons } = await collect(repo.dir);
    assert.deepEqual(reasons, []);
    assert.match(gitText, /^\+two$/m);
    assert.match(gitText, /Initial commit/);
  });
});
