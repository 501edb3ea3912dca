// Repositories written by an attacker, for the "untrusted repository" tests:
// instruction files that are symlinks to the user's secrets, `@~/` imports of
// home files, a `.git` file that points at another repository outside the
// workspace, and a `.git` file to an in-tree git folder whose config makes git
// run commands (fsmonitor, a clean filter, a textconv and external diff
// driver, a pager, a hook). Every planted secret carries a unique marker, so a
// test can search upstream bodies and database bytes for it; every command
// would create a file in `markers/`, so a test can see that none ran.

import fs from 'node:fs';
import path from 'node:path';
import { makeDir, makeRepo, type TempDir, type TempRepo } from './gitRepo.ts';

/** Text that must never leave: each is the whole content of a file outside the workspace. */
export const OUTSIDE = {
  secretFile: 'OUTSIDE-SECRET-FILE-7f3a9c',
  sshKey: 'OUTSIDE-SSH-KEY-2b8e41',
  awsCredentials: 'OUTSIDE-AWS-CREDENTIALS-c0d5e7',
  homeSshKey: 'HOME-SSH-KEY-91ad3f',
  homeAws: 'HOME-AWS-CREDENTIALS-5e6b2a',
  homePlain: 'HOME-PLAIN-NOTES-d4c1f8',
  otherRepoCommit: 'OTHER-REPO-COMMIT-8c2d7e',
  otherRepoFile: 'OTHER-REPO-FILE-3f9b0a',
  /** The start of /etc/passwd on every Linux system. */
  etcPasswd: 'root:x:0:0',
} as const;

/** Text the user's own memory file holds: `@~/.claude/…` imports still work. */
export const CLAUDE_MEMORY = 'CLAUDE-MEMORY-OK-6a1e0b';
/** The user's `~/.claude/CLAUDE.md` is a link into their dotfiles: still read. */
export const USER_DOTFILES = 'USER-DOTFILES-OK-0f4c2d';

export interface UntrustedFixture {
  /** Symlinked instruction files and `@~/` imports. */
  links: TempRepo;
  /** `.git` is a file pointing at `other`, a repository outside the workspace. */
  pointsOut: TempDir;
  /** `.git` is a file pointing at `./evilgit`, whose config runs commands. */
  evil: TempDir;
  home: TempDir;
  outside: TempDir;
  other: TempRepo;
  /** Where the evil config's commands would leave their marks. */
  markers: string;
  /** The files in `markers` (empty when no command ran). */
  ran(): string[];
  cleanup(): void;
}

export function makeUntrustedFixture(): UntrustedFixture {
  const outside = makeDir(
    {
      'secret.txt': `${OUTSIDE.secretFile}\n`,
      '.ssh/id_rsa': `${OUTSIDE.sshKey}\n`,
      '.aws/credentials': `${OUTSIDE.awsCredentials}\n`,
    },
    'ctxproxy-outside-',
  );
  fs.mkdirSync(path.join(outside.dir, 'markers'));
  const markers = path.join(outside.dir, 'markers');
  const home = makeDir(
    {
      '.ssh/id_rsa': `${OUTSIDE.homeSshKey}\n`,
      '.aws/credentials': `${OUTSIDE.homeAws}\n`,
      'plain.txt': `${OUTSIDE.homePlain}\n`,
      '.claude/memory.md': `${CLAUDE_MEMORY}\n`,
      'dotfiles/claude.md': `${USER_DOTFILES}\n`,
    },
    'ctxproxy-home-',
  );
  // The user's own memory file, kept in a dotfiles folder: the user's link, followed.
  fs.symlinkSync(path.join(home.dir, 'dotfiles', 'claude.md'), path.join(home.dir, '.claude', 'CLAUDE.md'));

  const links = makeRepo({
    files: {
      'CLAUDE.md': [
        'Project rules.',
        '@~/.ssh/id_rsa',
        '@~/.aws/credentials',
        '@~/plain.txt',
        '@~/.claude/memory.md',
        '@docs/via-link.md',
      ].join('\n'),
      'src/app.ts': 'export const app = 1;\n',
    },
  });
  const link = (rel: string, target: string) => {
    fs.mkdirSync(path.dirname(path.join(links.dir, rel)), { recursive: true });
    fs.symlinkSync(target, path.join(links.dir, rel));
  };
  link('AGENTS.md', path.join(outside.dir, 'secret.txt'));
  link('CLAUDE.local.md', '/etc/passwd');
  link('.claude/CLAUDE.md', path.join(outside.dir, '.ssh', 'id_rsa'));
  link('.github/copilot-instructions.md', path.join(outside.dir, '.aws', 'credentials'));
  link('.cursor/rules/leak.mdc', path.join(outside.dir, 'secret.txt'));
  link('.claude/rules/leak.md', path.join(outside.dir, '.ssh', 'id_rsa'));
  // An import that stays inside by name and leaves through a link.
  link('docs/via-link.md', path.join(outside.dir, 'secret.txt'));
  // A tracked source file that is a link out: stats and named files must not read it.
  link('src/leak.ts', path.join(outside.dir, 'secret.txt'));

  const other = makeRepo({
    files: { 'private.txt': `${OUTSIDE.otherRepoFile}\n` },
    commits: [{ message: OUTSIDE.otherRepoCommit, files: { 'private.txt': `${OUTSIDE.otherRepoFile}\nmore\n` } }],
  });
  const pointsOut = makeDir({ 'README.md': 'A folder whose .git leads elsewhere.\n' }, 'ctxproxy-points-out-');
  fs.writeFileSync(path.join(pointsOut.dir, '.git'), `gitdir: ${path.join(other.dir, '.git')}\n`);

  const evil = makeEvilGitRepo(markers);
  return {
    links,
    pointsOut,
    evil,
    home,
    outside,
    other,
    markers,
    ran: () => fs.readdirSync(markers).sort(),
    cleanup() {
      for (const dir of [links, pointsOut, evil, home, outside, other]) dir.cleanup();
    },
  };
}

/** A repository whose git folder is `./evilgit` (named by a `.git` file) and whose config runs commands. */
function makeEvilGitRepo(markers: string): TempDir {
  const repo = makeRepo({
    files: {
      '.gitattributes': '*.txt filter=evil diff=evil\n*.md filter=evilproc\n',
      'notes.txt': 'one\n',
      'README.md': 'readme\n',
    },
  });
  fs.renameSync(path.join(repo.dir, '.git'), path.join(repo.dir, 'evilgit'));
  fs.writeFileSync(path.join(repo.dir, '.git'), 'gitdir: ./evilgit\n');
  const run = (name: string) => `touch ${path.join(markers, name)}`;
  const hooks = path.join(repo.dir, 'evilhooks');
  fs.mkdirSync(hooks);
  for (const hook of ['post-index-change', 'pre-commit', 'post-checkout']) {
    fs.writeFileSync(path.join(hooks, hook), `#!/bin/sh\n${run(`hook-${hook}`)}\n`, { mode: 0o755 });
  }
  const config: [string, string][] = [
    ['core.fsmonitor', `${run('fsmonitor')}; false`],
    ['core.hooksPath', hooks],
    ['core.pager', `${run('pager')}; cat`],
    ['filter.evil.clean', `${run('filter-clean')}; cat`],
    ['filter.evil.smudge', `${run('filter-smudge')}; cat`],
    ['filter.evilproc.process', run('filter-process')],
    ['diff.evil.textconv', `${run('textconv')}; cat`],
    ['diff.evil.command', run('diff-command')],
    ['diff.external', run('diff-external')],
    ['log.showSignature', 'true'],
    ['gpg.program', run('gpg')],
  ];
  for (const [key, value] of config) repo.git('config', key, value);
  // Changed after the commit, with a new mtime, so status must hash them (through the filters).
  fs.writeFileSync(path.join(repo.dir, 'notes.txt'), 'one\ntwo\n');
  fs.writeFileSync(path.join(repo.dir, 'README.md'), 'readme\nchanged\n');
  return repo;
}
