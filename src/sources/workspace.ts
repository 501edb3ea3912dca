// Per-workspace state shared by the sources: where the repository is, the
// work-tree watcher, the memoized walk and `git status` (the git and files
// sources both need the status; it runs once).

import fs from 'node:fs';
import path from 'node:path';
import type { SourceDeps } from './deps.ts';
import { gitMetaFingerprint, locateRepo, type RepoLocation, statFingerprint, statStamp } from './fingerprint.ts';
import { Memo } from './memo.ts';
import { parseStatus, type StatusSnapshot } from './statusParse.ts';
import { type WalkResult, walkWorkTree } from './walk.ts';
import { WorkTreeWatcher } from './workTreeWatcher.ts';

export class WorkspaceState {
  readonly watcher: WorkTreeWatcher;
  readonly #walkMemo: Memo<WalkResult>;
  readonly #statusMemo: Memo<StatusSnapshot | undefined>;
  #dirty: string[] = [];
  #dirtyRecorded = '';
  #dirtyEpoch = 0;
  #arming: Promise<void> | undefined;

  constructor(
    readonly root: string,
    readonly deps: SourceDeps,
  ) {
    this.watcher = new WorkTreeWatcher(root);
    const ttl = () => deps.memoTtlMs;
    this.#walkMemo = new Memo(ttl, deps.clock, 1);
    this.#statusMemo = new Memo(ttl, deps.clock, 1);
  }

  repo(): RepoLocation | undefined {
    return locateRepo(this.root);
  }

  /** Work-tree changes: watcher events, entries added or removed at the top, and edits to dirty files. */
  workTreeStamp(): string {
    return `${this.watcher.stamp()}|${statStamp(this.root)}|${this.#dirtyGeneration()}`;
  }

  /** Bumps when a file that was dirty at the last status changed since (covers an unarmed watcher). */
  #dirtyGeneration(): number {
    if (this.#dirty.length > 0) {
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
    const repo = this.repo();
    return repo ? `${repo.gitDir}|${gitMetaFingerprint(repo)}|${this.workTreeStamp()}` : `none|${this.workTreeStamp()}`;
  }

  walk(): Promise<WalkResult> {
    return this.#walkMemo.get('walk', this.gitFingerprint(), async () => {
      const result = await walkWorkTree(this.root);
      if (this.deps.watchWorkTree) this.watcher.arm(result.dirs, result.isIgnored);
      return result;
    });
  }

  /** Starts watching in the background (a walk), so the next request can trust the fingerprint. */
  armWatcherSoon(): Promise<void> {
    if (!this.deps.watchWorkTree || this.watcher.armed) return Promise.resolve();
    this.#arming ??= new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.walk())
      .then(
        () => undefined,
        () => undefined,
      );
    return this.#arming;
  }

  /** `git status` of the repository holding the workspace; undefined outside a repository. */
  status(signal?: AbortSignal): Promise<StatusSnapshot | undefined> {
    const repo = this.repo();
    if (!repo) return Promise.resolve(undefined);
    return this.#statusMemo.get('status', this.gitFingerprint(), async () => {
      const git = this.deps.git(this.root, signal);
      const raw = await git.raw([
        '--no-optional-locks',
        '-c',
        'core.quotePath=false',
        'status',
        '--porcelain=v1',
        '-z',
        '--branch',
      ]);
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

  get(workspace: string): WorkspaceState {
    const root = realRoot(workspace);
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
