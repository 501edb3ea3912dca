// Per-workspace state shared by the sources: where the repository is, the
// work-tree watcher, the memoized walk and `git status` (the git and files
// sources both need the status; it runs once).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { QuestionPath } from '../shared/question.ts';
import type { SourceDeps } from './deps.ts';
import { GitCommandError, type GitRunner, gitErrorReason, readPrefix, readWhole, runGitSync } from './git/gitRunner.ts';
import {
  CONFIG_LIST_BYTES,
  checkRepo,
  checkRepoSync,
  gitPrefix,
  NO_SUBMODULES,
  type RepoCheck,
} from './git/gitSafety.ts';
import { parseStatus, type StatusSnapshot } from './git/statusParse.ts';
import { Memo } from './memo.ts';
import { type MentionResult, namedFiles } from './mentions.ts';
import { canonicalPath } from './workspace/canonicalPath.ts';
import {
  gitMetaFingerprint,
  locateRepo,
  type RepoLocation,
  statFingerprint,
  statStamp,
} from './workspace/fingerprint.ts';
import { RunListings } from './workspace/runListings.ts';
import { DEFAULT_IGNORED_DIRS, type WalkResult, walkResultFromList, walkWorkTree } from './workspace/walk.ts';
import { WorkTreeWatcher } from './workspace/workTreeWatcher.ts';

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

/** A repository check (its `git config` listings) that takes longer refuses git for that config. */
const CHECK_TIMEOUT_MS = 5_000;

/** A repository check (gitSafety.ts); `result` once settled. */
interface CheckEntry {
  /** The location and config files' stamp it was made at. */
  base: string;
  promise: Promise<RepoCheck>;
  result?: RepoCheck;
  /** The stamp of the files it included, when it settled. */
  included?: string;
}

const includedFiles = (result: RepoCheck | undefined) => (result?.ok ? result.files : []);

function settle(entry: CheckEntry, result: RepoCheck): void {
  entry.result = result;
  entry.included = statFingerprint(includedFiles(result));
}

export class WorkspaceState {
  readonly watcher: WorkTreeWatcher;
  /** Folder listings and the ignore checker, shared by the sources of one run. */
  readonly listings: RunListings;
  readonly #walkMemo: Memo<WalkResult>;
  readonly #searchableMemo: Memo<string[]>;
  readonly #statusMemo: Memo<StatusSnapshot | undefined>;
  #dirty: string[] = [];
  #dirtyRecorded = '';
  #dirtyEpoch = 0;
  #arming: Promise<void> | undefined;
  /** The fingerprint, reused until the current synchronous run ends (all sources of one request share it). */
  #fingerprint: string | undefined;
  #repo: RepoLocation | undefined;
  #check: CheckEntry | undefined;
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
    this.#searchableMemo = new Memo(deps, 1);
    this.#statusMemo = new Memo(deps, 1);
  }

  /**
   * The repository git may run on, once checked: undefined when there is none or
   * it is refused (then `repoRefusal` says why). The check runs `git config`
   * once per change of the config files; the sources wait for it here.
   */
  async checkedRepo(): Promise<RepoLocation | undefined> {
    return (await this.checkedGit()).repo;
  }

  /** The checked repository, or why git is off for it (nothing when there is no repository). */
  async checkedGit(): Promise<{ repo?: RepoLocation; refusal?: string }> {
    const repo = this.#locate();
    if (!repo) return {};
    const check = await this.#checking(repo).promise;
    return check.ok ? { repo } : { refusal: check.reason };
  }

  /**
   * The same, synchronously: the settled check, or one run on the spot with a
   * blocking `git config` for a caller that did not wait for `checkedRepo` first.
   */
  repo(): RepoLocation | undefined {
    const repo = this.#locate();
    return repo && this.#settled(repo).ok ? repo : undefined;
  }

  /** Why git is off for this workspace, when a repository was found but refused (gitSafety.ts). */
  repoRefusal(): string | undefined {
    const repo = this.#locate();
    const check = repo ? this.#settled(repo) : undefined;
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
    // A turn boundary, not a slice of work: the sources of one request ask for their git commands within
    // one turn, and the git client spawns them by the next; `spawning()` lets a caller wait for exactly that.
    this.#spawning ??= new Promise((resolve) =>
      setImmediate(() => {
        this.#spawning = undefined;
        resolve();
      }),
    );
    const repo = this.#locate();
    if (!repo) return [...gitPrefix([]), ...args];
    const check = this.#settled(repo);
    // Never run on a refused repository: the command fails closed instead.
    if (!check.ok) throw new GitCommandError(check.reason, null);
    return [...gitPrefix(check.overrides, repo.topLevel), ...args];
  }

  #locate(): RepoLocation | undefined {
    // Re-check the cached location with one stat; look again only when it is gone (or there was none).
    if (this.#repo && fs.existsSync(path.join(this.#repo.gitDir, 'HEAD'))) return this.#repo;
    this.#repo = locateRepo(this.root);
    return this.#repo;
  }

  /** What any check depends on (a few stat calls): the location and the repository's own config files. */
  #baseStamp(repo: RepoLocation): string {
    return [
      repo.gitDir,
      repo.commonDir,
      statStamp(path.join(repo.topLevel, '.git')),
      statStamp(path.join(repo.commonDir, 'config')),
      statStamp(path.join(repo.gitDir, 'config.worktree')),
      statStamp(path.join(repo.commonDir, 'objects', 'info', 'alternates')),
    ].join('|');
  }

  /** The check's stamp in the git fingerprint: the base, plus the files the last check included. */
  #checkStamp(repo: RepoLocation): string {
    return `${this.#baseStamp(repo)}|${statFingerprint(includedFiles(this.#check?.result))}`;
  }

  /** The check made for the current config, if any (running, or settled and its included files unchanged). */
  #current(repo: RepoLocation): CheckEntry | undefined {
    const entry = this.#check;
    if (!entry || entry.base !== this.#baseStamp(repo)) return undefined;
    if (entry.result && statFingerprint(includedFiles(entry.result)) !== entry.included) return undefined;
    // A listing that failed may pass next time (a loaded machine past the deadline): not kept.
    if (entry.result && !entry.result.ok && entry.result.retry) return undefined;
    return entry;
  }

  /** The check for the current config, started (one `git config`, more for includes) when there is none. */
  #checking(repo: RepoLocation): CheckEntry {
    const current = this.#current(repo);
    if (current) return current;
    // Its own client with a deadline: a listing that hangs refuses git instead of holding every request.
    const git = this.deps.git(this.root, AbortSignal.timeout(CHECK_TIMEOUT_MS));
    const entry: CheckEntry = {
      base: this.#baseStamp(repo),
      promise: checkRepo(repo, os.homedir(), (args) => readWhole(git, args, CONFIG_LIST_BYTES)),
    };
    this.#check = entry;
    entry.promise.then((result) => settle(entry, result));
    return entry;
  }

  /** The settled check for the current config, made synchronously when it has not settled yet. */
  #settled(repo: RepoLocation): RepoCheck {
    const current = this.#current(repo);
    if (current?.result) return current.result;
    const result = checkRepoSync(repo, os.homedir(), (args) =>
      runGitSync(this.root, args, CONFIG_LIST_BYTES, CHECK_TIMEOUT_MS),
    );
    // A check still running for the same config keeps its promise; both reach the same answer.
    const entry = current ?? { base: this.#baseStamp(repo), promise: Promise.resolve(result) };
    this.#check = entry;
    settle(entry, result);
    return result;
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
    // The location, not the check: a fingerprint never waits for (or runs) git.
    const repo = this.#locate();
    this.#fingerprint = repo
      ? `${repo.gitDir}|${gitMetaFingerprint(repo)}|${this.#checkStamp(repo)}|${this.workTreeStamp()}`
      : `none|${this.workTreeStamp()}`;
    // Nothing on disk can be observed to change before the current synchronous run ends.
    queueMicrotask(() => {
      this.#fingerprint = undefined;
    });
    return this.#fingerprint;
  }

  walk(): Promise<WalkResult> {
    return this.#walkMemo.get('walk', this.gitFingerprint(), async () => {
      const repo = await this.checkedRepo();
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

  /**
   * The files retrieval searches: the walk's, plus the tracked files the walk leaves out because their
   * folder is named like build output (`build/`, `dist/`, `out/`, `target/` …). `git grep` searches
   * those, and a committed `build/` is source (bat's build scripts), so the index must hold them too.
   */
  searchable(): Promise<string[]> {
    return this.#searchableMemo.get('searchable', this.gitFingerprint(), async () => {
      const walk = await this.walk();
      const repo = await this.checkedRepo();
      if (!repo) return walk.files;
      const pathspecs = [...DEFAULT_IGNORED_DIRS]
        .filter((name) => name !== '.git' && name !== '.ctxproxy')
        .map((name) => `:(glob)**/${name}/**`);
      let tracked: string[];
      try {
        const listed = await readPrefix(
          this.#sharedGit(),
          this.gitArgs(['ls-files', '-z', '-c', '--', ...pathspecs]),
          this.deps.gitListingBytes,
          '\0',
        );
        tracked = splitNul(listed.text);
      } catch {
        // The walk alone: these folders are then searched by git grep only, as before.
        return walk.files;
      }
      if (tracked.length === 0) return walk.files;
      return [...new Set([...walk.files, ...tracked])].sort();
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
    // A turn boundary, not a slice of work: a request arriving in this same turn enters first, and the
    // background work (the watcher's arming, the symbol index's build) waits for it again.
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
      // On a later turn even when idle now, for the same reason as in leave().
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
    if (!this.#locate()) return Promise.resolve(undefined);
    return this.#statusMemo.get('status', this.gitFingerprint(), async () => {
      const repo = await this.checkedRepo();
      if (!repo) return undefined;
      const git = this.#sharedGit();
      const args = this.gitArgs(['status', ...NO_SUBMODULES, '--porcelain=v1', '-z', '--branch']);
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
      root = canonicalPath(workspace);
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
