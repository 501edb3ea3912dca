// Per-workspace state shared by the sources: where the repository is, the
// work-tree watcher, the memoized walk and `git status` (the git and files
// sources both need the status; it runs once).

import fs from 'node:fs';
import path from 'node:path';
import type { QuestionPath } from '../shared/question.ts';
import type { SourceDeps } from './deps.ts';
import { gitMetaFingerprint, locateRepo, type RepoLocation, statFingerprint, statStamp } from './fingerprint.ts';
import { GitCommandError, type GitRunner, gitErrorReason, readPrefix, readWhole } from './gitRunner.ts';
import { checkRepo, gitPrefix, type RepoCheck } from './gitSafety.ts';
import { Memo } from './memo.ts';
import { type MentionResult, namedFiles } from './mentions.ts';
import { RunListings } from './runListings.ts';
import { parseStatus, type StatusSnapshot } from './statusParse.ts';
import { type WalkResult, walkResultFromList, walkWorkTree } from './walk.ts';
import { WorkTreeWatcher } from './workTreeWatcher.ts';

/** The work tree as git sees it: tracked plus untracked-but-not-ignored files. */
const LS_FILES = ['ls-files', '-z', '-co', '--exclude-standard'];

// Listings are read up to deps.gitListingBytes: `ls-files` past it is cut after its
// last whole name, as the walk cuts a listing past its file limit (marked truncated);
// `status` past it fails (a file left out of it would read as unchanged), and each
// source that wanted it reports the part skipped.

function splitNul(raw: string): string[] {
  const list = raw.split('\0');
  if (list.at(-1) === '') list.pop();
  return list;
}

export class WorkspaceState {
  readonly watcher: WorkTreeWatcher;
  /** Folder listings and the ignore checker, shared by the sources of one run. */
  readonly listings: RunListings;
  readonly #walkMemo: Memo<WalkResult>;
  readonly #statusMemo: Memo<StatusSnapshot | undefined>;
  #dirty: string[] = [];
  #dirtyRecorded = '';
  #dirtyEpoch = 0;
  #arming: Promise<void> | undefined;
  /** The fingerprint, reused until the current synchronous run ends (all sources of one request share it). */
  #fingerprint: string | undefined;
  #repo: RepoLocation | undefined;
  #check: { stamp: string; result: RepoCheck } | undefined;
  #named: { home: string; paths: readonly QuestionPath[]; result: MentionResult } | undefined;
  #git: GitRunner | undefined;
  #spawning: Promise<void> | undefined;
  /** Sources collecting for this workspace right now, and what waits until there are none. */
  #active = 0;
  #whenIdle: Array<() => void> = [];

  constructor(
    readonly root: string,
    readonly deps: SourceDeps,
  ) {
    this.watcher = new WorkTreeWatcher(root);
    this.listings = new RunListings(root);
    this.#walkMemo = new Memo(deps, 1);
    this.#statusMemo = new Memo(deps, 1);
  }

  /** The repository git may run on; undefined when there is none or it is refused (see `repoRefusal`). */
  repo(): RepoLocation | undefined {
    const repo = this.#locate();
    return repo && this.#checked(repo).ok ? repo : undefined;
  }

  /** Why git is off for this workspace, when a repository was found but refused (gitSafety.ts). */
  repoRefusal(): string | undefined {
    const repo = this.#locate();
    const check = repo ? this.#checked(repo) : undefined;
    return check && !check.ok ? check.reason : undefined;
  }

  /**
   * While git commands put together in the current run are being spawned: resolves
   * on the next turn of the event loop, when the git client has started them all.
   * Undefined when no command was asked for (a warm run).
   */
  spawning(): Promise<void> | undefined {
    return this.#spawning;
  }

  /** Arguments that precede every git subcommand run here: the untrusted-repository overrides. */
  gitArgs(args: readonly string[]): string[] {
    this.#spawning ??= new Promise((resolve) =>
      setImmediate(() => {
        this.#spawning = undefined;
        resolve();
      }),
    );
    const repo = this.#locate();
    const check = repo ? this.#checked(repo) : undefined;
    return [...gitPrefix(check?.ok ? check.filters : []), ...args];
  }

  #locate(): RepoLocation | undefined {
    // Re-check the cached location with one stat; look again only when it is gone (or there was none).
    if (this.#repo && fs.existsSync(path.join(this.#repo.gitDir, 'HEAD'))) return this.#repo;
    this.#repo = locateRepo(this.root);
    return this.#repo;
  }

  /** The safety check, redone when the location or the config files change (a few stat calls). */
  #checked(repo: RepoLocation): RepoCheck {
    const stamp = [
      repo.gitDir,
      repo.commonDir,
      statStamp(path.join(repo.topLevel, '.git')),
      statStamp(path.join(repo.commonDir, 'config')),
      statStamp(path.join(repo.gitDir, 'config.worktree')),
      statStamp(path.join(repo.commonDir, 'objects', 'info', 'alternates')),
    ].join('|');
    if (this.#check?.stamp !== stamp) this.#check = { stamp, result: checkRepo(repo) };
    return this.#check.result;
  }

  /** Work-tree changes: watcher events, entries added or removed at the top, and edits to dirty files. */
  workTreeStamp(): string {
    return `${this.watcher.stamp()}|${statStamp(this.root)}|${this.#dirtyGeneration()}`;
  }

  /** Bumps when a file that was dirty at the last status changed since (covers an unarmed watcher). */
  #dirtyGeneration(): number {
    // An armed watcher already sees every edit; the stats are only needed without it.
    if (this.#dirty.length > 0 && !this.watcher.armed) {
      const now = statFingerprint(this.#dirty);
      if (now !== this.#dirtyRecorded) {
        this.#dirtyRecorded = now;
        this.#dirtyEpoch++;
      }
    }
    return this.#dirtyEpoch;
  }

  /** Everything git's answers depend on; computed with stat calls only. */
  gitFingerprint(): string {
    if (this.#fingerprint !== undefined) return this.#fingerprint;
    const repo = this.repo();
    this.#fingerprint = repo
      ? `${repo.gitDir}|${gitMetaFingerprint(repo)}|${this.workTreeStamp()}`
      : `none|${this.workTreeStamp()}`;
    // Nothing on disk can be observed to change before the current synchronous run ends.
    queueMicrotask(() => {
      this.#fingerprint = undefined;
    });
    return this.#fingerprint;
  }

  walk(): Promise<WalkResult> {
    return this.#walkMemo.get('walk', this.gitFingerprint(), async () => {
      const repo = this.repo();
      const listed = repo ? await this.#listFiles() : undefined;
      const result = listed ? walkResultFromList(this.root, splitNul(listed.text)) : null;
      if (result && listed?.cut) result.truncated = true;
      const walk = result ?? (await walkWorkTree(this.root));
      // Arming blocks on every directory: it starts once no source is collecting and goes in
      // slices (workTreeWatcher.ts), so the request's next steps run between them, not behind them.
      if (this.deps.watchWorkTree) void this.#idle().then(() => this.watcher.arm(walk.dirs, walk.isIgnored));
      return walk;
    });
  }

  /** Starts watching in the background (a walk), so the next request can trust the fingerprint. */
  armWatcherSoon(): Promise<void> {
    if (!this.deps.watchWorkTree || this.watcher.armed) return Promise.resolve();
    this.#arming ??= this.#idle()
      .then(() => this.walk())
      .then(
        (result) => this.#idle().then(() => this.watcher.arm(result.dirs, result.isIgnored)),
        () => undefined,
      );
    return this.#arming;
  }

  /** A source starts collecting for this workspace (defineSource counts them). */
  enter(): void {
    this.#active++;
  }

  /** A source is done; background work waiting for a quiet moment runs once none is left. */
  leave(): void {
    this.#active--;
    // The next request lists afresh, even one that starts within this turn of the event loop.
    if (this.#active === 0) this.listings.clear();
    if (this.#active > 0 || this.#whenIdle.length === 0) return;
    const waiting = this.#whenIdle.splice(0);
    setImmediate(() => {
      for (const resolve of waiting) resolve();
    });
  }

  /** Background work (the symbol index's build) holds back until no request is collecting here. */
  whenIdle(): Promise<void> {
    return this.#idle();
  }

  /** Resolves on a later turn of the event loop at which no source is collecting for this workspace. */
  #idle(): Promise<void> {
    return new Promise((resolve) => {
      if (this.#active === 0) setImmediate(resolve);
      else this.#whenIdle.push(resolve);
    });
  }

  async #listFiles(): Promise<{ text: string; cut: boolean }> {
    try {
      return await readPrefix(this.#sharedGit(), this.gitArgs(LS_FILES), this.deps.gitListingBytes, '\0');
    } catch (error) {
      // The walk is shared by several sources' reports: a fixed reason, never git's own words.
      throw new GitCommandError(gitErrorReason(error), null);
    }
  }

  /** One git client for the shared, never-aborted commands (status, listing); made on first need. */
  #sharedGit(): GitRunner {
    this.#git ??= this.deps.git(this.root);
    return this.#git;
  }

  /** Files named in the conversation, shared by the sources of one request (same synchronous run). */
  named(home: string, paths: readonly QuestionPath[]): MentionResult {
    const hit = this.#named?.paths === paths && this.#named.home === home ? this.#named.result : undefined;
    if (hit) return hit;
    const result = namedFiles(this.root, home, paths);
    this.#named = { home, paths, result };
    queueMicrotask(() => {
      this.#named = undefined;
    });
    return result;
  }

  /**
   * `git status` of the repository holding the workspace; undefined outside a repository.
   * Shared by several sources with different timeouts, so no caller's abort signal
   * reaches it: one source giving up must not kill the others' answer.
   */
  status(): Promise<StatusSnapshot | undefined> {
    const repo = this.repo();
    if (!repo) return Promise.resolve(undefined);
    return this.#statusMemo.get('status', this.gitFingerprint(), async () => {
      const git = this.#sharedGit();
      const args = this.gitArgs(['status', '--porcelain=v1', '-z', '--branch']);
      const raw = await readWhole(git, args, this.deps.gitListingBytes).catch((error: unknown) => {
        throw error instanceof GitCommandError ? error : new GitCommandError(gitErrorReason(error), null);
      });
      const snapshot = parseStatus(raw, repo.topLevel, this.root);
      this.#dirty = snapshot.entries
        .slice(0, 200)
        .map((entry) => path.join(repo.topLevel, entry.path))
        .filter((file) => !file.endsWith('/'));
      this.#dirtyRecorded = statFingerprint(this.#dirty);
      return snapshot;
    });
  }

  close(): void {
    this.watcher.close();
  }
}

export class Workspaces {
  readonly #states = new Map<string, WorkspaceState>();

  constructor(private readonly deps: SourceDeps) {}

  readonly #roots = new Map<string, string>();

  get(workspace: string): WorkspaceState {
    let root = this.#roots.get(workspace);
    if (root === undefined) {
      root = realRoot(workspace);
      this.#roots.set(workspace, root);
    }
    let state = this.#states.get(root);
    if (!state) {
      state = new WorkspaceState(root, this.deps);
      this.#states.set(root, state);
    }
    return state;
  }

  closeAll(): void {
    for (const state of this.#states.values()) state.close();
    this.#states.clear();
  }
}

function realRoot(workspace: string): string {
  try {
    return fs.realpathSync(workspace);
  } catch {
    return path.resolve(workspace);
  }
}
