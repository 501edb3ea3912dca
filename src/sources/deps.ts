// The I/O every source needs, in one object with real defaults, so tests can
// point git anywhere, count its processes, fix the clock and the home directory.

import os from 'node:os';
import { silentLogger } from '../shared/logger.ts';
import type { Logger } from '../shared/ports.ts';
import { type GitRunner, spawnGit } from './git/gitRunner.ts';
import type { IndexSql } from './retrieval/index/indexSql.ts';

/** A simple-git instance fits: only `raw` is used. */
export type GitFactory = (baseDir: string, signal?: AbortSignal) => GitRunner;

export interface SourceDeps {
  /** Builds a git client (`spawnGit`, or a simple-git instance) for a directory; called only when a git command must run. */
  git: GitFactory;
  /** The user's home, for `~/.claude/CLAUDE.md` and `~/` imports. */
  homeDir: string;
  /**
   * Files that are secrets by nature (from the redactor); never opened, even when
   * named. Required on purpose: a default here would fail open.
   */
  isNeverRead: (relativePath: string) => boolean;
  /** Folders besides the workspace that reads may land in (the `allowedRoots` setting). */
  allowedRoots: readonly string[];
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
  /**
   * Bytes of `git ls-files` and `git status` output read at most (listings sized
   * for a 200k-file monorepo with room to spare); see workspace.ts.
   */
  gitListingBytes: number;
  /** How many files are read at once. */
  readConcurrency: number;
  logger: Logger;
  /**
   * Opens (making it when missing) the persistent index database of a workspace root
   * (`.ctxproxy/index.db`); throws when it cannot. Without it retrieval searches with git grep only.
   */
  openIndex?: ((root: string) => IndexSql) | undefined;
  /**
   * Semantic retrieval (`--embed-model`): vectors of texts from the upstream's embedding model. Each text
   * is redacted before it leaves the process (the composition root's embedder does it, and fails closed).
   * Absent: off, the index ranks by words only.
   */
  embedder?: Embedder | undefined;
}

export interface Embedder {
  /** The upstream's model; stored vectors of another model are dropped. */
  model: string;
  /** One vector per text, in order; rejects when redaction or the upstream fails. */
  embed(texts: readonly { text: string; path?: string | undefined }[], signal: AbortSignal): Promise<number[][]>;
}

/**
 * simple-git refuses `-c core.fsmonitor=…`, `-c core.hooksPath=…` and the like
 * unless told otherwise, because it cannot tell a value that turns a command
 * off from one that turns it on. Every git call of ours passes exactly such
 * overrides (gitSafety.ts) to switch the repository's commands off, so a
 * factory must allow them; one that does not makes git fail (closed), never run
 * without the overrides.
 */
export const gitOverridesAllowed = {
  allowUnsafeFsMonitor: true,
  allowUnsafeHooksPath: true,
  allowUnsafePager: true,
  allowUnsafeEditor: true,
  allowUnsafeSshCommand: true,
  allowUnsafeAskPass: true,
  allowUnsafeGitProxy: true,
  allowUnsafeCredentialHelper: true,
  allowUnsafeDiffExternal: true,
  allowUnsafeFilter: true,
  allowUnsafeGpgProgram: true,
  allowUnsafeProtocolOverride: true,
  // `--work-tree` names the checked top folder on every call (gitSafety.ts).
  allowUnsafeConfigPaths: true,
} as const;

export const defaultGitFactory: GitFactory = spawnGit;

export function defaultSourceDeps(overrides: Partial<SourceDeps> & Pick<SourceDeps, 'isNeverRead'>): SourceDeps {
  return {
    git: defaultGitFactory,
    homeDir: os.homedir(),
    allowedRoots: [],
    platform: `${os.type()} ${os.release()} (${process.platform}/${process.arch})`,
    shell: process.env.SHELL ?? process.env.ComSpec,
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    clock: () => performance.now(),
    memoTtlMs: 30_000,
    watchWorkTree: true,
    readConcurrency: 16,
    gitListingBytes: 64 * 1024 * 1024,
    logger: silentLogger,
    ...overrides,
  };
}

/** True when the plan wants any key in this namespace part (`git.diff.` wanted → `git.diff.staged` wanted). */
export function wants(wanted: readonly string[], key: string): boolean {
  return wanted.some((w) => key.startsWith(w) || w.startsWith(key));
}
