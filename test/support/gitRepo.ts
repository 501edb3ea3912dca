// Builds real git repositories (and plain directories) in temp dirs for tests.
// Every helper returns a cleanup; call it in `after`/`finally`.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** File contents by relative path; `null` deletes the file. */
export type FileMap = Record<string, string | Buffer | null>;

export interface RepoSpec {
  /** Files of the first commit. */
  files?: FileMap;
  /** Name of the initial branch (default `main`). */
  initialBranch?: string;
  /** Further commits, in order, on the current branch. */
  commits?: { message: string; files: FileMap; date?: string }[];
  /** Branches to create at the current commit (not checked out). */
  branches?: string[];
  /** Branch to create (if missing) and check out after the commits. */
  checkout?: string;
  /** Changes added to the index after the commits. */
  staged?: FileMap;
  /** Changes left in the work tree (applied after `staged`). */
  unstaged?: FileMap;
}

export interface TempDir {
  dir: string;
  write(rel: string, content: string | Buffer): void;
  cleanup(): void;
}

export interface TempRepo extends TempDir {
  /** Runs git in the repository and returns its stdout. */
  git(...args: string[]): string;
}

const GIT_ENV = {
  GIT_AUTHOR_NAME: 'Test Author',
  GIT_AUTHOR_EMAIL: 'author@example.test',
  GIT_COMMITTER_NAME: 'Test Author',
  GIT_COMMITTER_EMAIL: 'author@example.test',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};

function applyFiles(dir: string, files: FileMap): void {
  for (const [rel, content] of Object.entries(files)) {
    const file = path.join(dir, rel);
    if (content === null) {
      fs.rmSync(file, { force: true });
      continue;
    }
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
  }
}

/** A plain directory (not a repository) with these files. */
export function makeDir(files: FileMap = {}, prefix = 'ctxproxy-dir-'): TempDir {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  applyFiles(dir, files);
  return {
    dir,
    write: (rel, content) => applyFiles(dir, { [rel]: content }),
    cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

export function makeRepo(spec: RepoSpec = {}): TempRepo {
  const base = makeDir({}, 'ctxproxy-repo-');
  const { dir } = base;
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: dir, env: { ...process.env, ...GIT_ENV }, encoding: 'utf8' });
  const commitAll = (message: string, date?: string) => {
    git('add', '-A');
    const env = date ? { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date } : {};
    execFileSync('git', ['commit', '-q', '--allow-empty', '-m', message], {
      cwd: dir,
      env: { ...process.env, ...GIT_ENV, ...env },
    });
  };
  git('init', '-q', '-b', spec.initialBranch ?? 'main');
  if (spec.files) {
    applyFiles(dir, spec.files);
    commitAll('Initial commit', '2026-01-01T10:00:00Z');
  }
  for (const commit of spec.commits ?? []) {
    applyFiles(dir, commit.files);
    commitAll(commit.message, commit.date);
  }
  for (const branch of spec.branches ?? []) git('branch', branch);
  if (spec.checkout) {
    const exists = git('branch', '--list', spec.checkout).trim() !== '';
    git('checkout', '-q', ...(exists ? [] : ['-b']), spec.checkout);
  }
  if (spec.staged) {
    applyFiles(dir, spec.staged);
    git('add', '-A', '--', ...Object.keys(spec.staged));
  }
  if (spec.unstaged) applyFiles(dir, spec.unstaged);
  return { ...base, git };
}
