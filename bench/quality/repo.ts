// A real git repository on disk for the quality benchmark: files written, a
// default branch and a feature branch with commits at fixed dates (so a seed
// gives the same hashes), then staged, unstaged and untracked changes.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export type Files = Record<string, string>;

export interface RepoPlan {
  dir: string;
  base: Files;
  /** Commits on the default branch after the first. */
  mainCommits: { subject: string; files: Files }[];
  branch: string;
  branchCommits: { subject: string; files: Files }[];
  staged: Files;
  unstaged: Files;
  /** Never added: untracked files and folders, ignored folders, `.env`. */
  untracked: Files;
}

export function writeFiles(dir: string, files: Files): void {
  for (const [rel, text] of Object.entries(files)) {
    const file = path.join(dir, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
  }
}

export function buildRepo(plan: RepoPlan): void {
  fs.rmSync(plan.dir, { recursive: true, force: true });
  fs.mkdirSync(plan.dir, { recursive: true });
  let clock = Date.UTC(2026, 0, 5, 9, 0, 0) / 1000;
  const git = (...args: string[]) => {
    const date = `${clock} +0000`;
    execFileSync('git', args, {
      cwd: plan.dir,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 'Dana Developer',
        GIT_AUTHOR_EMAIL: 'dana@example.test',
        GIT_COMMITTER_NAME: 'Dana Developer',
        GIT_COMMITTER_EMAIL: 'dana@example.test',
        GIT_AUTHOR_DATE: date,
        GIT_COMMITTER_DATE: date,
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null',
      },
    });
  };
  const commit = (subject: string, files: Files) => {
    writeFiles(plan.dir, files);
    git('add', '-A');
    git('commit', '-q', '--no-verify', '-m', subject);
    clock += 3 * 3600;
  };
  git('init', '-q', '-b', 'main');
  commit('Initial import', plan.base);
  for (const c of plan.mainCommits) commit(c.subject, c.files);
  git('checkout', '-q', '-b', plan.branch);
  for (const c of plan.branchCommits) commit(c.subject, c.files);
  writeFiles(plan.dir, plan.staged);
  git('add', '--', ...Object.keys(plan.staged));
  writeFiles(plan.dir, plan.unstaged);
  writeFiles(plan.dir, plan.untracked);
}

/** `git` in a repository, its stdout as text (for the baselines). */
export function gitText(dir: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd: dir,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
  });
}
