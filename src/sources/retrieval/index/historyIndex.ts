// Keeps the history part of the workspace index (historyStore.ts) current:
// the newest `maxCommits` commits reachable from HEAD, each read once with
// `git show` (hardened runner, stopped at `commitBytes`, a deadline per
// commit), parsed, its words hashed and stored in its own transaction.
//
// Incremental: when HEAD moves, git lists the commits again (`rev-list`,
// bounded by the count) and only the ones the index lacks are read; the ones
// no longer listed (a rebase or an amend rewrote them, or they aged past the
// bound) are dropped. The stored list survives a restart; the HEAD it was
// completed for is recorded last, so a build stopped half-way resumes with the
// commits still missing. Built in the background, one commit per slice, giving
// way to requests like the chunk index; a request waits for it briefly, and
// retrieval reads history with git meanwhile and says so.

import { type GitRunner, readPrefix } from '../../git/gitRunner.ts';
import { BuildPacer } from '../../symbols/buildPacer.ts';
import type { WorkspaceState } from '../../workspace.ts';
import { commitPathsArgs, commitShowArgs, type ParsedCommit, parseCommit } from './historyPatch.ts';
import type { HistoryHit, HistoryStore, IndexedCommit } from './historyStore.ts';
import { waitAtMost } from './waitAtMost.ts';
import { hashedText, matchExpression } from './words.ts';

export interface HistoryIndexOptions {
  /**
   * Commits indexed at most, newest first. 2,000 covers a year or more of most projects (svelte: about two
   * years) and keeps the list, the rev-list output (82 KB) and a full rebuild (one git per commit, ~20-40 s in
   * the background) small; a history of 100,000 commits costs the same.
   */
  maxCommits: number;
  /**
   * Bytes of one commit's `git show` read at most (git is stopped there): 64 KB holds the whole patch of
   * nearly every commit a person writes; a generated or vendored mass change is indexed in part, its paths
   * still whole (a tree comparison), and the commit says so.
   */
  commitBytes: number;
  /** A commit git has not shown within this is recorded with its paths only (a pathological diff). */
  commitTimeoutMs: number;
  /** The longest a request waits for an update (one or two new commits finish well within it). */
  waitMs: number;
  /** The longest one pause of the build gives way to requests. */
  maxPauseMs: number;
}

export const defaultHistoryIndexOptions: HistoryIndexOptions = {
  maxCommits: 2_000,
  commitBytes: 64 * 1024,
  commitTimeoutMs: 10_000,
  waitMs: 150,
  maxPauseMs: 2_000,
};

export interface HistoryProgress {
  /** Indexed for the current HEAD. */
  ready: boolean;
  /** Commits of the current build's list stored so far, of the list's length. */
  indexed: number;
  of: number;
}

/** A commit found by the words of what the question names, with the paths of its matching hunks. */
export interface RankedCommit {
  sha: string;
  /** added/removed: its changed lines hold the words; message: only its subject or body does. */
  place: HistoryHit['place'];
  rels: string[];
}

export class HistoryIndex {
  readonly #pacer: BuildPacer;
  #build: Promise<void> | undefined;
  #head: { fingerprint: string; head: Promise<string | undefined> } | undefined;
  #progress = { indexed: 0, of: 0 };
  #closed = false;
  /** Commits read with git since this process opened the index (a restart reads only new ones). */
  reads = 0;

  constructor(
    readonly ws: WorkspaceState,
    readonly store: HistoryStore,
    private readonly seed: number,
    private readonly options: HistoryIndexOptions = defaultHistoryIndexOptions,
  ) {
    this.#pacer = new BuildPacer(options.maxPauseMs);
  }

  /** Brings the history up to HEAD for a request, waiting up to waitMs; says whether it is current. */
  async prepare(): Promise<HistoryProgress> {
    const head = await this.#currentHead();
    if (!head || this.#closed) return { ready: false, indexed: 0, of: 0 };
    if (this.#completedFor(head)) return { ready: true, ...this.#progress };
    const build = this.#ensureBuild();
    this.#pacer.hurry();
    await waitAtMost(build, this.options.waitMs);
    // A build nobody waits on gives way to requests again.
    if (this.#build) this.#pacer.giveWay(() => this.ws.whenIdle());
    return { ready: this.#completedFor(head), ...this.#progress };
  }

  /** Starts the build in the background (server start); resolves when it ends. */
  warm(): Promise<void> {
    // Whoever awaits this holds the process until the build ends (its own pauses do not; see WorkspaceIndex).
    const hold = setInterval(() => undefined, 60_000);
    return this.#ensureBuild().finally(() => clearInterval(hold));
  }

  close(): void {
    this.#closed = true;
    this.#pacer.hurry();
  }

  /**
   * Commits whose changed lines (then, below them, whose messages) hold one of the patterns' words, best
   * first: lines of the asked kind (`added` for "which commit added X") before the other side, newer first.
   */
  changesOf(patterns: readonly string[], wanted: 'added' | 'removed' | undefined, limit: number): RankedCommit[] {
    const expression = matchExpression(patterns, this.seed);
    if (expression === undefined) return [];
    const places = ['added', 'removed', 'message'] as const;
    const rank = (place: HistoryHit['place']) => (place === 'message' ? 2 : wanted && place !== wanted ? 1 : 0);
    const byCommit = new Map<string, { pos: number; score: number; place: HistoryHit['place']; rels: Set<string> }>();
    for (const place of places) {
      for (const hit of this.store.search(expression, place, ROWS_READ)) {
        const known = byCommit.get(hit.sha);
        const score = rank(place);
        if (!known) byCommit.set(hit.sha, { pos: hit.pos, score, place, rels: new Set(hit.rel ? [hit.rel] : []) });
        else {
          if (hit.rel) known.rels.add(hit.rel);
          if (score < known.score) Object.assign(known, { score, place });
        }
      }
    }
    return [...byCommit.entries()]
      .sort(([, a], [, b]) => a.score - b.score || a.pos - b.pos)
      .slice(0, limit)
      .map(([sha, found]) => ({ sha, place: found.place, rels: [...found.rels] }));
  }

  /** The newest commits that changed one of `rels` (paths, or bare file names matched at any depth). */
  commitsOf(rels: readonly string[], limit: number): { sha: string; rels: string[] }[] {
    const exact = rels.filter((rel) => rel.includes('/'));
    const names = rels.filter((rel) => !rel.includes('/'));
    const rows = [...this.store.touching(exact, false, ROWS_READ), ...this.store.touching(names, true, ROWS_READ)];
    rows.sort((a, b) => a.pos - b.pos);
    const byCommit = new Map<string, Set<string>>();
    for (const row of rows) {
      const set = byCommit.get(row.sha) ?? new Set<string>();
      set.add(row.rel);
      byCommit.set(row.sha, set);
    }
    return [...byCommit.entries()].slice(0, limit).map(([sha, set]) => ({ sha, rels: [...set] }));
  }

  /** The stored history is HEAD's, listed with this bound (a new bound lists again). */
  #completedFor(head: string): boolean {
    return this.store.head() === this.#stamp(head);
  }

  #stamp(head: string): string {
    return `${head} ${this.options.maxCommits}`;
  }

  /** Why a commit was indexed in part, or null. */
  cutOf(sha: string): string | null {
    return this.store.cutOf(sha);
  }

  #git(timeoutMs: number): GitRunner {
    return this.ws.deps.git(this.ws.root, AbortSignal.timeout(timeoutMs));
  }

  /** HEAD's commit, asked of git once per change of the repository's files. */
  #currentHead(): Promise<string | undefined> {
    const fingerprint = this.ws.gitFingerprint();
    if (this.#head?.fingerprint !== fingerprint) {
      const head = this.ws
        .checkedRepo()
        .then((repo) =>
          repo
            ? readPrefix(
                this.#git(GIT_TIMEOUT_MS),
                this.ws.gitArgs(['rev-parse', '--verify', '-q', 'HEAD^{commit}']),
                200,
              )
            : undefined,
        )
        .then((out) => {
          const sha = out?.text.trim() ?? '';
          return /^[0-9a-f]{40,64}$/.test(sha) ? sha : undefined;
        })
        .catch(() => undefined);
      this.#head = { fingerprint, head };
    }
    return this.#head.head;
  }

  #ensureBuild(): Promise<void> {
    if (this.#build) return this.#build;
    this.#pacer.giveWay(() => this.ws.whenIdle());
    this.#build = this.#run()
      .catch(() => undefined)
      .finally(() => {
        this.#build = undefined;
        this.#pacer.giveWay(undefined);
      });
    return this.#build;
  }

  /** Builds for HEAD until the stored history is HEAD's (HEAD may move while it builds). */
  async #run(): Promise<void> {
    for (let round = 0; round < MAX_ROUNDS && !this.#closed; round++) {
      const head = await this.#currentHead();
      if (!head || this.#completedFor(head)) return;
      await this.#buildFor(head);
    }
  }

  async #buildFor(head: string): Promise<void> {
    const listed = await readPrefix(
      this.#git(GIT_TIMEOUT_MS),
      this.ws.gitArgs(['rev-list', `--max-count=${this.options.maxCommits}`, head, '--']),
      this.options.maxCommits * 66 + 1024,
    );
    const list = listed.text.split('\n').filter((sha) => /^[0-9a-f]{40,64}$/.test(sha));
    const position = new Map(list.map((sha, pos) => [sha, pos]));
    this.store.incomplete();
    const stored = this.store.commits();
    const gone = [...stored].filter(([sha]) => !position.has(sha)).map(([, id]) => id);
    for (let i = 0; i < gone.length; i += DROP_PAGE) {
      this.store.drop(gone.slice(i, i + DROP_PAGE));
      await this.#pacer.pause();
      if (this.#closed) return;
    }
    const missing = list.filter((sha) => !stored.has(sha));
    this.#progress = { indexed: list.length - missing.length, of: list.length };
    // A long build commits often: its WAL is checkpointed apart (store.ts), as the chunk index's passes do.
    const aside = missing.length >= MANY_COMMITS;
    if (aside) this.store.checkpointsAside(true);
    try {
      // A few commits read at once (git runs off the event loop, in the spawner's worker: the spawns' waits
      // overlap); each stored in its own short transaction, with a turn of the event loop between.
      for (let i = 0; i < missing.length; i += READ_AT_ONCE) {
        const batch = missing.slice(i, i + READ_AT_ONCE);
        const commits = await Promise.all(batch.map((sha) => this.#read(sha)));
        for (const commit of commits) {
          if (this.#closed) return;
          if (commit) this.store.put([{ commit, pos: position.get(commit.sha) ?? 0 }]);
          this.#progress.indexed++;
          await this.#pacer.pause();
        }
        if (this.#closed) return;
      }
      this.store.complete(this.#stamp(head), list);
    } finally {
      if (aside) this.store.checkpointsAside(false);
    }
  }

  /** One commit, read with git up to the byte limit and the deadline; its words hashed. */
  async #read(sha: string): Promise<IndexedCommit | undefined> {
    this.reads++;
    let parsed: ParsedCommit | undefined;
    let cut: string | undefined;
    try {
      const shown = await readPrefix(
        this.#git(this.options.commitTimeoutMs),
        this.ws.gitArgs(commitShowArgs(sha)),
        this.options.commitBytes,
      );
      parsed = parseCommit(shown.text);
      if (shown.cut) cut = `changes over ${this.options.commitBytes} bytes: the first part indexed`;
    } catch {
      cut = `git did not show it within ${this.options.commitTimeoutMs} ms: paths only`;
    }
    if (!parsed || cut) {
      // The paths of a commit too large (or too slow) to read whole: a tree comparison, bounded too.
      const paths = await readPrefix(
        this.#git(GIT_TIMEOUT_MS),
        this.ws.gitArgs(commitPathsArgs(sha)),
        this.options.commitBytes,
        '\0',
      ).catch(() => undefined);
      const names = paths?.text.split('\0').filter(Boolean) ?? [];
      if (!parsed) {
        const time = await readPrefix(
          this.#git(GIT_TIMEOUT_MS),
          this.ws.gitArgs(['show', '-s', '--format=%ct', sha, '--']),
          64,
        ).catch(() => undefined);
        parsed = { sha, time: Number(time?.text.trim() ?? 0) || 0, message: '', paths: [], hunks: [] };
        cut ??= 'its header was not read: paths only';
      }
      for (const name of names) if (!parsed.paths.includes(name)) parsed.paths.push(name);
    }
    // A commit of thousands of small hunks (a rename across the tree): the first ones, and its paths whole.
    if (parsed.hunks.length > MAX_HUNKS) {
      cut ??= `over ${MAX_HUNKS} changed hunks: the first ${MAX_HUNKS} indexed`;
      parsed.hunks.length = MAX_HUNKS;
    }
    return {
      sha,
      time: parsed.time,
      cut,
      messageWords: hashedText(parsed.message, this.seed),
      paths: parsed.paths,
      hunks: parsed.hunks.map((hunk) => ({
        rel: hunk.rel,
        start: hunk.start,
        lines: hunk.lines,
        added: hashedText(hunk.added.join('\n'), this.seed),
        removed: hashedText(hunk.removed.join('\n'), this.seed),
      })),
    };
  }
}

/** Hunks of one commit indexed at most (each is two rows: one short write per batch). */
const MAX_HUNKS = 500;
/** Commits read with git at once. */
const READ_AT_ONCE = 4;
/** A build of this many commits has its WAL checkpointed by another thread (store.ts). */
const MANY_COMMITS = 40;
/** Rows one lookup reads from the index at most, per column. */
const ROWS_READ = 400;
/** Commits dropped in one step. */
const DROP_PAGE = 200;
/** HEAD moving again and again while the build runs: it stops after this many rounds, the next request resumes. */
const MAX_ROUNDS = 4;
const GIT_TIMEOUT_MS = 10_000;
