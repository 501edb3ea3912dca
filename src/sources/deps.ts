// The I/O every source needs, in one object with real defaults, so tests can
// point git anywhere, count its processes, fix the clock and the home directory.

import os from 'node:os';
import { type SimpleGit, simpleGit } from 'simple-git';
import { silentLogger } from '../shared/logger.ts';
import type { Logger } from '../shared/ports.ts';

export type GitFactory = (baseDir: string, signal?: AbortSignal) => SimpleGit;

export interface SourceDeps {
  /** Builds a simple-git instance for a directory; called only when a git command must run. */
  git: GitFactory;
  /** The user's home, for `~/.claude/CLAUDE.md` and `~/` imports. */
  homeDir: string;
  /** Files that are secrets by nature (from the redactor); never opened, even when named. */
  isNeverRead: (relativePath: string) => boolean;
  platform: string;
  shell: string | undefined;
  /** IANA time zone for the date and time lines. */
  timeZone: string;
  /** Milliseconds, for memo ages only. */
  clock: () => number;
  /** Backstop: a memoized result older than this is recomputed even if nothing seems changed. */
  memoTtlMs: number;
  /** Arm fs.watch on the work tree's directories so in-place edits invalidate memos at once. */
  watchWorkTree: boolean;
  /** How many files are read at once. */
  readConcurrency: number;
  logger: Logger;
}

export const defaultGitFactory: GitFactory = (baseDir, signal) =>
  simpleGit({
    baseDir,
    maxConcurrentProcesses: 8,
    // Resolve as soon as the process closes its pipes instead of waiting after `exit`.
    completion: { onClose: true, onExit: false },
    ...(signal ? { abort: signal } : {}),
  });

export function defaultSourceDeps(overrides: Partial<SourceDeps> = {}): SourceDeps {
  return {
    git: defaultGitFactory,
    homeDir: os.homedir(),
    isNeverRead: () => false,
    platform: `${os.type()} ${os.release()} (${process.platform}/${process.arch})`,
    shell: process.env.SHELL ?? process.env.ComSpec,
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    clock: () => performance.now(),
    memoTtlMs: 30_000,
    watchWorkTree: true,
    readConcurrency: 16,
    logger: silentLogger,
    ...overrides,
  };
}

/** True when the plan wants any key in this namespace part (`git.diff.` wanted → `git.diff.staged` wanted). */
export function wants(wanted: readonly string[], key: string): boolean {
  return wanted.some((w) => key.startsWith(w) || w.startsWith(key));
}
