// The persistent index of one workspace: every tracked and untracked-not-ignored
// text file (the work-tree listing git gives), chunked by structure (chunks.ts),
// its hashed words full-text indexed in SQLite (store.ts), so retrieval finds
// the files a question points at without reading the repository per request.
//
// Built in the background, in slices of a few milliseconds that give way to
// requests (the symbol index's pacer), and kept current three ways: the
// work-tree watcher names each changed file (re-indexed a moment later, or at
// once when a request comes first); a pass over the listing compares each
// file's size and mtime with what the index holds and re-reads only the ones
// that changed (whenever the watcher cannot vouch for the tree); files gone
// from the listing are dropped.
//
// A restart asks git instead of stat-ing every file: the index stores the
// commit it was brought up to date against (its baseline) and the files that
// may differ from it (`unsure`: what `git status` listed, what the watcher
// re-indexed). Every other stored file holds that commit's content, so the
// files to look at again are the unsure ones, those `git status` lists now
// (git's own index does the stat of every file, in C) and those changed
// between the two commits (`git diff --name-only`, trees only). Until that
// catch-up ends the stored index answers, and the report says it may miss
// what changed while no server ran.
// Never-read files and files outside the listing (ignored ones) are never
// indexed; binary, huge, minified, generated and bundled files are recorded as
// skipped with the reason, without their words.

import fs from 'node:fs';
import path from 'node:path';
import type { Embedder } from '../../deps.ts';
import { readWhole } from '../../git/gitRunner.ts';
import { NO_SUBMODULES } from '../../git/gitSafety.ts';
import { parseStatus } from '../../git/statusParse.ts';
import { refusedByName } from '../../symbols/admit.ts';
import { BuildPacer } from '../../symbols/buildPacer.ts';
import { FileGuard, workspaceZone } from '../../workspace/guard.ts';
import { readRegularFile } from '../../workspace/syncRead.ts';
import { DEFAULT_IGNORED_DIRS } from '../../workspace/walk.ts';
import type { WorkspaceState } from '../../workspace.ts';
import { isTaskPath } from '../regions.ts';
import { type GrepHit, type GrepRequest, grepArgs } from '../search.ts';
import { type Chunk, chunkLines } from './chunks.ts';
import { pathspecFilter } from './pathspec.ts';
import type { ChunkHit, IndexStore, StoredFile } from './store.ts';
import { ChunkVectors, defaultVectorOptions, type VectorOptions } from './vectors.ts';
import { waitAtMost } from './waitAtMost.ts';
import { hashedText, lineMatcher, matchExpression } from './words.ts';

export interface WorkspaceIndexOptions {
  /** The longest the build holds the event loop before it yields a turn. */
  sliceMs: number;
  /** The longest one pause of a build nobody waits on gives way to requests. */
  maxPauseMs: number;
  /** Files a restart's catch-up through git looks at, at most; more and it compares every file instead. */
  maxCatchUp: number;
  /** Files indexed at most; past it the rest are not indexed and the report says so. */
  maxFiles: number;
  /** Larger files are not read (their size says so before any read). */
  maxFileBytes: number;
  /** The longest a request waits for a pass that is running (catching up after a restart, or a small tree). */
  waitMs: number;
  /** The longest a request waits for a first build's listing (how large the tree is), within waitMs. */
  listingWaitMs: number;
  /** The longest a request waits for a stored index's catch-up: the stored index answers meanwhile. */
  catchUpWaitMs: number;
  /** A first build of a listing this small is waited for (up to waitMs); a larger one answers with git grep meanwhile. */
  waitFiles: number;
  /** Changed files named by the watcher are re-indexed this long after the last event. */
  settleMs: number;
  /** Changed files taken one by one at most; more than this and a pass compares every file. */
  maxPending: number;
  /** Chunks one search reads from the index at most. */
  maxChunks: number;
  /**
   * Files one search reads again at most (definitions, named and changed files, then best BM25 first); past it
   * the answer says it was cut. Each read is a guarded open of a file (six system calls, 15-40 µs): 64 keeps
   * a name in hundreds of files within a request's 5 ms on a loaded machine, and is more files than retrieval
   * forwards from one search (regions of 10 files at most, a listing of one line per file in 2,400 characters).
   */
  maxSearchFiles: number;
  /** Milliseconds since some epoch, for the backstop when the watcher is not armed. */
  clock: () => number;
  /** Without an armed watcher, a pass runs at least this often when asked (edits of clean files are not seen otherwise). */
  ttlMs: number;
  /** Semantic retrieval's bounds (used only with an embedder). */
  vectors: VectorOptions;
}

export const defaultWorkspaceIndexOptions: WorkspaceIndexOptions = {
  sliceMs: 8,
  maxPauseMs: 2_000,
  maxFiles: 100_000,
  maxCatchUp: 20_000,
  maxFileBytes: 2 * 1024 * 1024,
  waitMs: 200,
  listingWaitMs: 100,
  catchUpWaitMs: 50,
  waitFiles: 2_000,
  settleMs: 15,
  maxPending: 256,
  maxChunks: 2_000,
  maxSearchFiles: 64,
  clock: () => performance.now(),
  ttlMs: 30_000,
  vectors: defaultVectorOptions,
};

/** The paths git grep never searches for retrieval (search.ts), read from its own arguments: one list. */
const searchExcluded = pathspecFilter(
  grepArgs({ patterns: ['x'], words: false, perFile: 1, maxBytes: 1 })
    .filter((arg) => arg.startsWith(':(exclude'))
    .map((arg) => arg.replace(':(exclude,glob)', ':(glob)')),
);

/** Minified: a file of some size whose lines average over this many characters. */
const MINIFIED_MEAN_LINE = 1_000;
const MINIFIED_MIN_BYTES = 16 * 1024;

/** Why a file is not indexed, by its name alone; undefined when it may be read. */
function refusedByPath(rel: string): string | undefined {
  if (searchExcluded?.(rel)) return 'bundle, map or vendored tree (never searched)';
  return isTaskPath(rel) ? undefined : refusedByName(rel);
}

export interface IndexProgress {
  /** A pass finished in this process and nothing is known to have changed since. */
  current: boolean;
  /** Files checked by the running (or last) pass, of those listed. */
  checked: number;
  listed: number;
  /** Files past maxFiles, not indexed. */
  overLimit: number;
  /** Files the index covers (listed, not never-read, within the limit). */
  held: number;
  /** While a stored index catches up (after a restart): files looked at, of those it must look at. */
  catchingUp?: { checked: number; of: number } | undefined;
  /** The longest the index's background work held the event loop in one step, in ms. */
  longestStepMs: number;
  /** The same step's CPU time (the process's), in ms: the wall time above also counts waiting for a CPU. */
  longestStepCpuMs: number;
}

/** A search's candidate file: its stored stamp and the chunks that matched (undefined: not all of them known). */
interface SearchFile {
  rel: string;
  size: number;
  mtime: number;
  chunks: Chunk[] | undefined;
}

/** Patterns whose files (`LICENSE` for `license`) a search reads first: the first four of a request. */
const NAMED_PATTERNS = 4;

/** A pattern the symbol index may define: a name, bare or qualified. */
const IDENTIFIER = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/;

interface Prepared {
  rel: string;
  size: number;
  mtime: number;
  chunks: { start: number; end: number; words: string }[];
  skip?: string;
}

export class WorkspaceIndex {
  readonly #pacer: BuildPacer;
  #pass: Promise<void> | undefined;
  /** The last pass finished in this process: the fingerprint it started at, and whether the watcher covered it. */
  #passed: { fingerprint: string; armed: boolean } | undefined;
  readonly #pending = new Set<string>();
  #overflow = false;
  #settle: NodeJS.Timeout | undefined;
  #checked = 0;
  #listed = 0;
  #overLimit = 0;
  #held = 0;
  #catchingUp: { checked: number; of: number } | undefined;
  #longestStep = 0;
  #longestStepCpu = 0;
  #stepCpu = process.cpuUsage();
  /** Resolves once the running pass has its listing (how large the tree is decides whether a request waits). */
  #listing: Promise<void> = Promise.resolve();
  #closed = false;
  /** Batches the running pass has written. */
  #passWrites = 0;
  readonly #unlisten: () => void;
  /** Semantic retrieval: the chunks' vectors, when an embedding model is named. */
  readonly #vectors: ChunkVectors | undefined;
  /** Bumps whenever the index changes (memos of rendered results may key on it). */
  version = 0;
  /** Files read to be indexed since this process opened the index (a restart should read only what changed). */
  reads = 0;
  /** Files a pass compared with what the index holds (a stat each): a restart through git compares few. */
  compared = 0;

  constructor(
    readonly ws: WorkspaceState,
    readonly store: IndexStore,
    private readonly isNeverRead: (rel: string) => boolean,
    private readonly allowedRoots: readonly string[],
    private readonly options: WorkspaceIndexOptions = defaultWorkspaceIndexOptions,
    embedder?: Embedder,
  ) {
    this.#pacer = new BuildPacer(options.maxPauseMs);
    this.#vectors = embedder
      ? new ChunkVectors(
          store,
          embedder,
          (chunk) => this.#chunkText(chunk),
          () => ws.whenIdle(),
          options.vectors,
        )
      : undefined;
    this.#unlisten = ws.watcher.listen((rel, isDir) => this.#changed(rel, isDir));
  }

  progress(): IndexProgress {
    return {
      current: this.#current(),
      checked: this.#checked,
      listed: this.#listed,
      overLimit: this.#overLimit,
      held: this.#held,
      catchingUp: this.#catchingUp && !this.#current() ? { ...this.#catchingUp } : undefined,
      longestStepMs: this.#longestStep,
      longestStepCpuMs: this.#longestStepCpu,
    };
  }

  /**
   * Brings the index up to date for a request: files the watcher named are re-indexed now; when the index
   * cannot vouch for the tree, a pass starts (or goes on) and is waited for up to waitMs when it is a
   * catch-up of a stored index or a small tree. True when the index may answer: it is current, or it is a
   * stored index still catching up (progress().catchingUp says so, and the report says what may be missed).
   */
  async prepare(): Promise<boolean> {
    if (this.#closed) return false;
    this.#flush();
    if (this.#current()) return true;
    const deadline = performance.now() + this.options.waitMs;
    const pass = this.#ensurePass();
    const catchUp = () => this.store.complete() || this.#passed !== undefined;
    // A first build: how large the tree is decides, so the listing (shared with tree and stats) is awaited,
    // briefly: a small tree's listing comes in tens of milliseconds, and on a loaded machine the turn that
    // ends this wait comes late by what other work holds the loop (the wait's bound is the request's).
    if (!catchUp()) await waitAtMost(this.#listing, Math.min(this.options.waitMs, this.options.listingWaitMs));
    if (catchUp() || (this.#listed > 0 && this.#listed <= this.options.waitFiles)) {
      // This request is collecting: a pass still giving way to requests would wait on it.
      this.#pacer.hurry();
      const until = catchUp() ? Math.min(deadline, performance.now() + this.options.catchUpWaitMs) : deadline;
      await waitAtMost(pass, until - performance.now());
      this.#flush();
    }
    if (this.#current()) return true;
    // A whole pass finished once: the stored index answers while it catches up. Its hits are re-read and
    // matched now (search), so a stale row costs at most a miss, which the report names.
    return this.store.complete();
  }

  /** Starts a pass in the background if none runs and the index cannot vouch for the tree (server start). */
  warm(): Promise<void> {
    if (this.#current()) return Promise.resolve();
    // Whoever awaits this holds the process until the pass ends (its own pauses do not: a server that
    // stops must not wait for a build nobody will use, and close() ends the pass at its next pause).
    const hold = setInterval(() => undefined, 60_000);
    return this.#ensurePass().finally(() => clearInterval(hold));
  }

  /**
   * The hits `git grep` would give for `request`, from the index's candidates re-read now; undefined when
   * the request has a form the index cannot narrow (a pattern without a word, a regular expression, an unknown pathspec, or a
   * search inside words: the index knows whole words only, and retrieval looks for a name's pieces inside
   * longer identifiers, `headerlinks` in `parseHeaderLinks`, which only git grep finds).
   */
  search(request: GrepRequest): { hits: GrepHit[]; cut: boolean } | undefined {
    if (!request.words || request.regex) return undefined;
    if (request.patterns.length === 0) return { hits: [], cut: false };
    const expression = matchExpression(request.patterns, this.store.seed);
    const inPaths = pathspecFilter(request.paths);
    if (expression === undefined || inPaths === undefined) return undefined;
    const order = this.#readOrder(expression, request.patterns, inPaths, request.paths !== undefined);
    let cut = order.cut;
    const matches = lineMatcher(request.patterns, request.words, request.ignoreCase ?? false);
    const guard = new FileGuard(this.isNeverRead);
    const zone = workspaceZone(this.ws.root, this.allowedRoots);
    const hits: GrepHit[] = [];
    let bytes = 0;
    for (const file of order.files) {
      const rel = file.rel;
      // The guard judges the name (never-read: a stored row of a file made never-read since it was indexed is
      // refused before any look at the disk), then where it really lies; only then is the file opened.
      const verdict = guard.check(path.join(this.ws.root, rel), zone, [rel]);
      if (!verdict.ok) continue;
      const read = readGuarded(verdict.real, this.options.maxFileBytes);
      if (read === undefined) continue;
      const lines = read.text.split('\n');
      // The matching chunks' lines when the file is as indexed and all of them are known; else the whole file
      // (lines moved, or the chunks past the rows read). Either gives grep's first perFile lines of the file.
      const same = file.chunks !== undefined && read.size === file.size && read.mtimeMs === file.mtime;
      const ranges = same && file.chunks ? merged(file.chunks) : [{ start: 0, end: lines.length - 1 }];
      let found = 0;
      for (const range of ranges) {
        for (let i = range.start; i <= range.end && i < lines.length && found < request.perFile; i++) {
          const line = lines[i] ?? '';
          if (!matches(line)) continue;
          found++;
          const text = line.slice(0, MAX_LINE_CHARS);
          hits.push({ rel, line: i + 1, text });
          // What git grep -z -n would have written: path, number, text, separators.
          bytes += rel.length + text.length + 12;
        }
      }
      if (bytes > request.maxBytes) {
        cut = true;
        break;
      }
    }
    // In git grep's order (path, then line), so the same hits rank and cut the same way on either path.
    hits.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : a.line - b.line));
    return { hits, cut };
  }

  /**
   * The files a search reads, maxSearchFiles at most, in this order: a file that defines a pattern (the
   * symbol index's definitions) or is named by one (`LICENSE` for `license`), then the files changed in the
   * work tree (the unsure rows: what git status listed, what the watcher re-indexed), then the rest by their
   * best chunk's BM25. Retrieval ranks a definition, the file a question names and the changed code first
   * whatever their term density (a license header in every source file is denser than the license). `cut`
   * when more files match. Rows are asked for until one more file than can be read is known (one row a file
   * at first, then as many as the files per row need): a common name's thousand rows are ranked by SQLite,
   * not each turned into an object. A file whose rows did not all come is matched whole (`chunks` undefined).
   */
  #readOrder(
    expression: string,
    patterns: readonly string[],
    inPaths: (rel: string) => boolean,
    filtered: boolean,
  ): { files: SearchFile[]; cut: boolean } {
    const max = this.options.maxSearchFiles;
    const defining = new Set<string>();
    for (const pattern of patterns) {
      if (!IDENTIFIER.test(pattern)) continue;
      for (const rel of this.store.symbols.definingFiles(pattern, max)) defining.add(rel);
    }
    // A file named by a pattern costs SQLite four LIKE tests per matched row and pattern: the first few only.
    const stems = [...new Set(patterns.slice(0, NAMED_PATTERNS).map((pattern) => pattern.toLowerCase()))];
    // Each query ranks every match again: a search limited to some paths (most rows outside them) asks for
    // all rows at once; otherwise the next query asks for as many rows as the files per row so far need.
    let limit = filtered ? this.options.maxChunks : max + 1;
    for (;;) {
      const capped = Math.min(limit, this.options.maxChunks);
      const rows = this.store.search(expression, [...defining], stems, capped);
      const complete = rows.length < capped;
      const byFile = new Map<string, SearchFile>();
      const outside = new Set<string>();
      for (const row of rows) {
        let file = byFile.get(row.rel);
        if (!file) {
          if (outside.has(row.rel)) continue;
          if (!inPaths(row.rel)) {
            outside.add(row.rel);
            continue;
          }
          file = { rel: row.rel, size: row.size, mtime: row.mtime, chunks: complete ? [] : undefined };
          byFile.set(row.rel, file);
        }
        file.chunks?.push({ start: row.start, end: row.end });
      }
      if (byFile.size > max || complete || capped === this.options.maxChunks) {
        return { files: [...byFile.values()].slice(0, max), cut: byFile.size > max || !complete };
      }
      limit = Math.max(2 * capped, Math.ceil((capped * (max + 1) * 1.25) / Math.max(1, byFile.size)));
    }
  }

  /** Whether semantic retrieval is on, and why its ranking is partial now (see ChunkVectors.partial). */
  vectorStatus(): { partial: ReturnType<ChunkVectors['partial']> } | undefined {
    return this.#vectors ? { partial: this.#vectors.partial() } : undefined;
  }

  /** Starts (or goes on with) embedding the chunks without a vector; resolves when no more can be done now. */
  embedChunks(): Promise<void> {
    return this.#vectors?.run() ?? Promise.resolve();
  }

  /**
   * The chunks nearest in meaning to the question, as hits on their first line (their file re-read now, and
   * skipped when it changed since it was indexed); undefined when semantic retrieval is off.
   */
  async semantic(question: string): Promise<GrepHit[] | undefined> {
    if (!this.#vectors || this.#closed) return undefined;
    void this.#vectors.run();
    const near = await this.#vectors.nearest(question, (rel) => !this.isNeverRead(rel));
    const hits: GrepHit[] = [];
    for (const chunk of near) {
      const lines = this.#chunkLines(chunk);
      if (!lines) continue;
      const first = lines.findIndex((line) => line.trim() !== '');
      if (first < 0) continue;
      hits.push({ rel: chunk.rel, line: chunk.start + first + 1, text: (lines[first] ?? '').slice(0, MAX_LINE_CHARS) });
    }
    return hits;
  }

  /** A chunk's lines as they are on disk, through the guard; undefined when its file changed since indexing. */
  #chunkLines(chunk: ChunkHit): string[] | undefined {
    if (this.isNeverRead(chunk.rel)) return undefined;
    const abs = path.join(this.ws.root, chunk.rel);
    const stat = statOf(abs);
    if (!stat || stat.size !== chunk.size || stat.mtimeMs !== chunk.mtime) return undefined;
    const read = new FileGuard(this.isNeverRead).read(
      abs,
      workspaceZone(this.ws.root, this.allowedRoots),
      [chunk.rel],
      {
        maxBytes: this.options.maxFileBytes,
        skipLarger: true,
      },
    );
    return read.text?.split('\n').slice(chunk.start, chunk.end + 1);
  }

  #chunkText(chunk: ChunkHit): string | undefined {
    return this.#chunkLines(chunk)?.join('\n');
  }

  close(): void {
    this.#closed = true;
    this.#vectors?.close();
    this.#unlisten();
    clearTimeout(this.#settle);
    this.#pacer.hurry();
  }

  #fingerprint(): string {
    // Without an armed watcher an in-place edit of a clean file changes no stamp: the TTL backstop.
    const epoch = this.ws.watcher.armed ? 0 : Math.floor(this.options.clock() / Math.max(1, this.options.ttlMs));
    return `${this.ws.gitFingerprint()}|${epoch}`;
  }

  #current(): boolean {
    if (!this.#passed || this.#overflow || this.#pending.size > 0) return false;
    // A watcher armed before the pass began has named every change since: each was re-indexed.
    if (this.#passed.armed && this.ws.watcher.armed) return true;
    if (this.#passed.fingerprint === this.#fingerprint()) return true;
    if (this.ws.watcher.armed) {
      // The watcher armed during or after the pass (its arming changed the fingerprint): one more pass,
      // in the background, is covered by it from its start. Until then the index answers; its only gap
      // is a file edited between the first pass's look at it and the arming, moments apart.
      void this.#ensurePass();
      return true;
    }
    return false;
  }

  #changed(rel: string, isDir: boolean): void {
    if (this.#closed) return;
    // A folder (created, renamed, no longer watched) or an ignore file changes the listing: a pass looks again.
    if (isDir || path.posix.basename(rel) === '.gitignore' || this.#pending.size >= this.options.maxPending) {
      this.#overflow = true;
    } else this.#pending.add(rel);
    clearTimeout(this.#settle);
    this.#settle = setTimeout(() => {
      this.#flush();
      if (this.#overflow) void this.#ensurePass();
    }, this.options.settleMs);
    this.#settle.unref?.();
  }

  /** Re-indexes the files the watcher named (a stat each; a read for those that changed). */
  #flush(): void {
    try {
      this.#flushNow();
    } catch {
      // #write said the index no longer vouches for the tree; the request greps.
    }
  }

  #flushNow(): void {
    if (this.#pending.size === 0 || this.#closed) return;
    const rels = [...this.#pending];
    this.#pending.clear();
    const guard = new FileGuard(this.isNeverRead);
    const prepared: (Prepared | { gone: string })[] = [];
    for (const rel of rels) {
      if (this.isNeverRead(rel)) continue;
      const abs = path.join(this.ws.root, rel);
      const stat = statOf(abs);
      if (!stat) {
        const link = brokenLink(abs);
        prepared.push(link ? { rel, size: 0, mtime: link.mtimeMs, chunks: [], skip: BROKEN_LINK } : { gone: rel });
        continue;
      }
      const known = this.store.file(rel);
      if (known && known.size === stat.size && known.mtime === stat.mtimeMs) continue;
      prepared.push(this.#read(rel, stat, guard));
    }
    this.#write(prepared, true);
    if (prepared.length > 0 && this.#vectors) {
      this.#vectors.forget();
      void this.#vectors.run();
    }
  }

  #ensurePass(): Promise<void> {
    if (this.#pass) return this.#pass;
    this.#pacer.giveWay(() => this.ws.whenIdle());
    this.#passWrites = 0;
    this.#pass = this.#runPass()
      .catch(() => undefined)
      .finally(() => {
        if (this.#passWrites >= MANY_WRITES) this.store.db.checkpointsAside?.(false);
        this.#pass = undefined;
        this.#pacer.giveWay(undefined);
      });
    return this.#pass;
  }

  async #runPass(): Promise<void> {
    let listed: () => void = () => undefined;
    this.#listing = new Promise((resolve) => {
      listed = resolve;
    });
    const fingerprint = this.#fingerprint();
    const armed = this.ws.watcher.armed;
    // The pass looks at every file: what the watcher named so far is covered.
    this.#pending.clear();
    this.#overflow = false;
    const listingOnce = this.ws.searchable().finally(listed);
    listingOnce.catch(() => undefined);
    // Any pass over a stored index with a baseline asks git, not every file: the one after a restart, and the
    // later ones (the watcher arming, an overflow, the TTL without a watcher). The stored index is current
    // once git has answered; a file the index holds with other content than the baseline's commit is in
    // `unsure` (the watcher's re-index put it there), any other changed file differs from the commit.
    const base = this.store.complete() ? this.store.baseline() : undefined;
    const caughtUp = base ? await this.#catchUpFromGit(base.head, () => listingOnce).catch(() => false) : false;
    if (this.#closed) return;
    if (caughtUp) {
      this.store.markComplete();
      this.#catchingUp = undefined;
      this.#passed = { fingerprint, armed };
      void this.#vectors?.run();
    }
    const listing = await listingOnce;
    this.#listed = listing.length;
    if (this.#closed) return;
    if (caughtUp) {
      this.#checked = listing.length;
      this.#held = listing.length;
      this.#overLimit = 0;
      // Stored files that left the listing unseen by git (made never-read since, or an odd ignore change).
      await this.#sweep(new Set(listing));
      return;
    }
    await this.#comparePass(listing);
    if (this.#closed) return;
    this.store.markComplete();
    this.#catchingUp = undefined;
    this.#passed = { fingerprint, armed };
    void this.#vectors?.run();
  }

  /**
   * A restart's catch-up: only the files that may differ from the stored baseline are looked at (see the
   * head of this file). False when it cannot vouch for the rest (no repository, the baseline's commit is
   * gone, too many files, past the file limit); the caller then compares every file.
   */
  async #catchUpFromGit(head0: string, listing: () => Promise<readonly string[]>): Promise<boolean> {
    if (!(await this.ws.checkedRepo())) return false;
    const stored = this.store.unsure(this.options.maxCatchUp + 1);
    if (stored.length > this.options.maxCatchUp) return false;
    // git status, and whether the listing holds the stored unsure files, at once (both are git's work).
    const [now, storedListed] = await Promise.all([this.#gitState(), this.#listedAmong(stored, [], listing)]);
    if (!now || !storedListed || this.#closed) return false;
    const candidates = new Set([...stored, ...now.dirty]);
    const listed = storedListed;
    // What git status names is listed by the walk's rule (walkable), with no further question.
    for (const rel of now.dirty) if (walkable(rel, !now.untracked.has(rel))) listed.add(rel);
    const between =
      now.head === head0
        ? []
        : splitNul(
            await this.#git([
              'diff',
              '--name-only',
              '-z',
              '--no-renames',
              '--relative',
              ...NO_SUBMODULES,
              head0,
              now.head,
              '--',
            ]),
          );
    if (candidates.size + between.length + now.folders.length > this.options.maxCatchUp || this.#closed) return false;
    // The files changed between the commits, and those in the untracked folders git status named.
    if (between.length > 0 || now.folders.length > 0) {
      const more = await this.#listedAmong(between, now.folders, listing);
      if (!more || this.#closed) return false;
      for (const rel of between) candidates.add(rel);
      for (const rel of more) {
        listed.add(rel);
        candidates.add(rel);
      }
    }
    if (candidates.size > this.options.maxCatchUp) return false;
    const { indexed, skipped } = this.store.counts();
    if (indexed + skipped + candidates.size > this.options.maxFiles) return false;
    // Kept before any is looked at: a catch-up cut short (the process ends) leaves them to the next one.
    this.store.db.transaction(() => this.store.markUnsure(candidates));
    const mark = this.store.unsureMark();
    this.#catchingUp = { checked: 0, of: candidates.size };
    const guard = new FileGuard(this.isNeverRead);
    let batch: (Prepared | { gone: string })[] = [];
    let stepStart = this.#stepBegan();
    for (const rel of candidates) {
      this.#catchingUp.checked++;
      if (this.isNeverRead(rel) || !listed.has(rel)) {
        if (this.store.file(rel)) batch.push({ gone: rel });
      } else this.#compare(rel, this.store.file(rel), guard, batch);
      if (performance.now() - stepStart > this.options.sliceMs) {
        this.#write(batch);
        batch = [];
        this.#stepEnded(stepStart);
        await this.#pacer.pause();
        if (this.#closed) return false;
        stepStart = this.#stepBegan();
      }
    }
    this.#write(batch);
    this.#stepEnded(stepStart);
    const dirty = new Set(now.dirty);
    for (const rel of listed) if (now.folders.some((folder) => rel.startsWith(folder))) dirty.add(rel);
    this.store.setBaseline(now.head, dirty, mark);
    return true;
  }

  /**
   * Which of `rels` the work-tree listing holds, plus the listed files under `folders`: asked of git for
   * those paths only (`ls-files -t`: tracked, or untracked and not ignored; untracked files in folders
   * the walk skips, such as node_modules/, are not listed, as in the walk). Many paths: the listing.
   */
  async #listedAmong(
    rels: readonly string[],
    folders: readonly string[],
    listing: () => Promise<readonly string[]>,
  ): Promise<Set<string> | undefined> {
    const specs = [...rels, ...folders].map((rel) => `:(literal)${rel}`);
    if (specs.length === 0) return new Set();
    if (specs.length > MAX_PATHSPECS || specs.reduce((sum, spec) => sum + spec.length + 1, 0) > MAX_PATHSPEC_CHARS) {
      const all = await listing();
      const inListing = new Set(all);
      const out = new Set(rels.filter((rel) => inListing.has(rel)));
      for (const rel of all) if (folders.some((folder) => rel.startsWith(folder))) out.add(rel);
      return out;
    }
    const raw = await this.#git(['ls-files', '-z', '-t', '-c', '-o', '--exclude-standard', '--', ...specs]);
    const out = new Set<string>();
    for (const entry of splitNul(raw)) {
      const rel = entry.slice(2);
      if (walkable(rel, !entry.startsWith('?'))) out.add(rel);
    }
    return out;
  }

  /** The commit checked out and the files that differ from it (git status; its untracked folders apart). */
  async #gitState(): Promise<
    { head: string; dirty: Set<string>; untracked: Set<string>; folders: string[] } | undefined
  > {
    const repo = await this.ws.checkedRepo();
    if (!repo) return undefined;
    // Its own git status, not the workspace's memo: that one is keyed by a fingerprint an in-place edit of a
    // clean file does not change when no watcher runs (the TTL pass exists for those edits).
    const [head, raw] = await Promise.all([
      this.#git(['rev-parse', '--verify', '-q', 'HEAD^{commit}']).then((out) => out.trim()),
      this.#git(['status', ...NO_SUBMODULES, '--porcelain=v1', '-z']),
    ]);
    if (!/^[0-9a-f]{40,64}$/.test(head)) return undefined;
    const status = parseStatus(raw, repo.topLevel, this.ws.root);
    const dirty = new Set<string>();
    const untracked = new Set<string>();
    const folders: string[] = [];
    for (const entry of status.entries) {
      for (const repoRel of [entry.path, entry.from]) {
        if (!repoRel) continue;
        const rel = path.relative(this.ws.root, path.join(repo.topLevel, repoRel)).split(path.sep).join('/');
        if (rel === '' || rel.startsWith('../') || rel === '..' || path.isAbsolute(rel)) continue;
        if (repoRel.endsWith('/')) folders.push(`${rel}/`);
        else dirty.add(rel);
        if (entry.xy === '??') untracked.add(rel);
      }
    }
    return { head, dirty, untracked, folders };
  }

  #git(args: string[]): Promise<string> {
    const git = this.ws.deps.git(this.ws.root, AbortSignal.timeout(GIT_TIMEOUT_MS));
    return readWhole(git, this.ws.gitArgs(args), this.ws.deps.gitListingBytes);
  }

  /** Every listed file's size and mtime against what the index holds; the ones that differ are read again. */
  async #comparePass(listing: readonly string[]): Promise<void> {
    // Rows rewritten here are not all in `unsure`: until this pass ends, a restart compares every file too.
    const state = async () => {
      const now = this.#closed ? undefined : await this.#gitState().catch(() => undefined);
      if (now && now.folders.length > 0) {
        // `git status` names an untracked folder, not its files: the listing's files under it.
        const untracked = new Set(now.folders);
        for (const rel of listing) {
          for (let slash = rel.indexOf('/'); slash !== -1; slash = rel.indexOf('/', slash + 1)) {
            if (untracked.has(rel.slice(0, slash + 1))) {
              now.dirty.add(rel);
              break;
            }
          }
        }
      }
      return now;
    };
    this.store.dropBaseline();
    const mark = this.store.unsureMark();
    const before = await state();
    if (this.store.complete()) this.#catchingUp = { checked: 0, of: listing.length };
    // What the index holds is read a page at a time in path order, as git lists (not loaded whole: a
    // 300,000-file tree's rows would cost tens of MB and one long block of the event loop).
    const stored = new StoredPages(this.store);
    const guard = new FileGuard(this.isNeverRead);
    const wanted = new Set<string>();
    this.#checked = 0;
    this.#overLimit = 0;
    let batch: (Prepared | { gone: string })[] = [];
    let stepStart = this.#stepBegan();
    for (const rel of listing) {
      this.#checked++;
      if (this.#catchingUp) this.#catchingUp.checked = this.#checked;
      if (this.isNeverRead(rel)) continue;
      if (wanted.size >= this.options.maxFiles) {
        this.#overLimit++;
        continue;
      }
      wanted.add(rel);
      this.#compare(rel, stored.get(rel), guard, batch);
      if (performance.now() - stepStart > this.options.sliceMs) {
        this.#write(batch);
        batch = [];
        this.#stepEnded(stepStart);
        await this.#pacer.pause();
        if (this.#closed) return;
        stepStart = this.#stepBegan();
      }
    }
    this.#held = wanted.size;
    this.#write(batch);
    this.#stepEnded(stepStart);
    await this.#sweep(wanted);
    if (this.#closed) return;
    // The baseline for the next restart: what differed from the commit when the pass began or ended.
    const after = await state();
    if (before && after && before.head === after.head && this.#overLimit === 0 && !this.#closed) {
      this.store.setBaseline(after.head, new Set([...before.dirty, ...after.dirty]), mark);
    }
  }

  /** Queues what one listed file needs: nothing when it is as stored, else its new rows (or its removal). */
  #compare(rel: string, known: StoredFile | undefined, guard: FileGuard, batch: (Prepared | { gone: string })[]) {
    this.compared++;
    const abs = path.join(this.ws.root, rel);
    const stat = statOf(abs);
    if (!stat) {
      const link = brokenLink(abs);
      if (link) {
        if (!known || known.mtime !== link.mtimeMs)
          batch.push({ rel, size: 0, mtime: link.mtimeMs, chunks: [], skip: BROKEN_LINK });
      } else if (known) batch.push({ gone: rel });
    } else if (!known || known.size !== stat.size || known.mtime !== stat.mtimeMs) {
      batch.push(this.#read(rel, stat, guard));
    }
  }

  /** Drops stored files not in `keep` (gone from the listing, or never-read now), a page of rows at a time. */
  async #sweep(keep: ReadonlySet<string>): Promise<void> {
    for (let after = ''; ; ) {
      const stepStart = this.#stepBegan();
      const page = this.store.relsAfter(after, PAGE_ROWS);
      if (page.length === 0) break;
      const batch = page.filter((rel) => !keep.has(rel) || this.isNeverRead(rel)).map((gone) => ({ gone }));
      after = page.at(-1) as string;
      this.#write(batch);
      this.#stepEnded(stepStart);
      await this.#pacer.pause();
      if (this.#closed) return;
    }
  }

  #stepBegan(): number {
    this.#stepCpu = process.cpuUsage();
    return performance.now();
  }

  #stepEnded(start: number): void {
    this.#longestStep = Math.max(this.#longestStep, performance.now() - start);
    const cpu = process.cpuUsage(this.#stepCpu);
    this.#longestStepCpu = Math.max(this.#longestStepCpu, (cpu.user + cpu.system) / 1000);
  }

  /** A file's chunks and their words, or why it is not indexed. */
  #read(rel: string, stat: fs.Stats, guard: FileGuard): Prepared {
    this.reads++;
    const base = { rel, size: stat.size, mtime: stat.mtimeMs, chunks: [] };
    const byName = refusedByPath(rel);
    if (byName) return { ...base, skip: byName };
    if (stat.size > this.options.maxFileBytes)
      return { ...base, skip: `too large (over ${this.options.maxFileBytes} bytes)` };
    const zone = workspaceZone(this.ws.root, this.allowedRoots);
    const read = guard.read(path.join(this.ws.root, rel), zone, [rel], {
      maxBytes: this.options.maxFileBytes,
      skipLarger: true,
    });
    if (read.refused) return { ...base, skip: read.refused };
    if (read.text === undefined) return { ...base, skip: 'unreadable' };
    const text = read.text;
    if (looksBinary(text.slice(0, 8192))) return { ...base, skip: 'binary' };
    const lines = text.split('\n');
    if (text.length >= MINIFIED_MIN_BYTES && text.length / lines.length > MINIFIED_MEAN_LINE) {
      return { ...base, skip: 'minified (lines average over 1,000 characters)' };
    }
    const seed = this.store.seed;
    const chunks = chunkLines(rel, lines).map((chunk) => ({
      ...chunk,
      words: hashedText(lines.slice(chunk.start, chunk.end + 1).join('\n'), seed),
    }));
    return { ...base, chunks };
  }

  /**
   * Writes a batch in one transaction. A write that fails (another process holds the lock past the busy
   * timeout, a full disk) is not retried here: the index stops vouching for the tree, and the next
   * request's pass compares every file again.
   */
  #write(batch: readonly (Prepared | { gone: string })[], unsure = false): void {
    if (batch.length === 0 || this.#closed) return;
    // A pass that writes many batches (a first build, a full comparison) has its WAL checkpointed apart
    // (store.ts); a catch-up that rewrites a few files does not start a thread for them.
    if (this.#pass && ++this.#passWrites === MANY_WRITES) this.store.db.checkpointsAside?.(true);
    try {
      this.store.db.transaction(() => {
        for (const entry of batch) {
          if ('gone' in entry) this.store.remove(entry.gone);
          else this.store.put(entry.rel, entry.size, entry.mtime, entry.chunks, entry.skip);
        }
        // Re-indexed between passes (the watcher): the content may differ from the baseline's commit.
        if (unsure) this.store.markUnsure(batch.map((entry) => ('gone' in entry ? entry.gone : entry.rel)));
      });
    } catch (error) {
      this.#overflow = true;
      this.#passed = undefined;
      throw error;
    } finally {
      this.version++;
    }
  }
}

/** A catch-up asks git about at most this many paths by name (its command line); more, and it lists all. */
const MAX_PATHSPECS = 2_000;
const MAX_PATHSPEC_CHARS = 200_000;

/** A pass that writes this many batches has its WAL checkpointed by another thread (a worker costs ~17 MB). */
const MANY_WRITES = 20;

/** Stored rows read in one synchronous step (a page): a few ms of the event loop. */
const PAGE_ROWS = 500;

/** A git command of the catch-up that takes longer fails it (a full comparison follows). */
const GIT_TIMEOUT_MS = 10_000;

function splitNul(raw: string): string[] {
  const list = raw.split('\0');
  if (list.at(-1) === '') list.pop();
  return list;
}

/**
 * Whether the work-tree listing (WorkspaceState.searchable) holds a file git knows of: never in .git/ or
 * .ctxproxy/; an untracked one never in a folder the walk skips (node_modules/, build/ …).
 */
function walkable(rel: string, tracked: boolean): boolean {
  const parts = rel.split('/').slice(0, -1);
  if (parts.some((part) => part === '.git' || part === '.ctxproxy')) return false;
  return tracked || !parts.some((part) => DEFAULT_IGNORED_DIRS.has(part));
}

/** A hit line longer than this is minified or data; only its head is kept (as search.ts does). */
const MAX_LINE_CHARS = 400;

/**
 * A file the guard let through (its real path), read whole, with the size and mtime of what was read (one
 * fstat on the open descriptor, no stat of the path before); undefined when it is missing, not a regular file
 * or over maxBytes.
 */
function readGuarded(real: string, maxBytes: number): { text: string; size: number; mtimeMs: number } | undefined {
  try {
    const read = readRegularFile(real, maxBytes, true);
    if (read?.buffer === undefined) return undefined;
    return { text: read.buffer.toString('utf8'), size: read.size, mtimeMs: read.mtimeMs };
  } catch {
    return undefined;
  }
}

function statOf(abs: string): fs.Stats | undefined {
  try {
    // Follows a link to what it names; a loop or a dangling link reads as missing here and the guard says why.
    return fs.statSync(abs, { throwIfNoEntry: false }) ?? undefined;
  } catch {
    return undefined;
  }
}

/** A NUL, or more than 1 in 100 control characters a text file does not hold (images without a NUL byte). */
function looksBinary(head: string): boolean {
  if (head.includes('\0')) return true;
  let control = 0;
  for (let i = 0; i < head.length; i++) {
    const code = head.charCodeAt(i);
    if ((code < 9 || (code > 13 && code < 32) || code === 0xfffd) && ++control > head.length / 100) return true;
  }
  return false;
}

/**
 * The stored files, read in pages of path order alongside a listing in (nearly) the same order. A path the
 * current page cannot answer (a listing order that differs, for some non-ASCII names) is looked up alone.
 */
class StoredPages {
  #page = new Map<string, StoredFile>();
  #first = '';
  #last = '';
  #done = false;

  constructor(private readonly store: IndexStore) {}

  get(rel: string): StoredFile | undefined {
    while (!this.#done && rel > this.#last) {
      const rows = this.store.filesAfter(this.#last, PAGE_ROWS);
      if (rows.length === 0) {
        this.#done = true;
        break;
      }
      this.#page = new Map(rows);
      this.#first = rows[0]?.[0] ?? '';
      this.#last = rows.at(-1)?.[0] ?? '';
    }
    const hit = this.#page.get(rel);
    if (hit || (rel >= this.#first && rel <= this.#last)) return hit;
    return this.store.file(rel);
  }
}

const BROKEN_LINK = 'symlink that leads nowhere (a loop, or a missing target)';

/** The link's own stat when `abs` is a symlink that cannot be followed (a loop, a missing target). */
function brokenLink(abs: string): fs.Stats | undefined {
  try {
    const own = fs.lstatSync(abs, { throwIfNoEntry: false });
    return own?.isSymbolicLink() ? own : undefined;
  } catch {
    return undefined;
  }
}

function merged(chunks: readonly Chunk[]): Chunk[] {
  const sorted = [...chunks].sort((a, b) => a.start - b.start);
  const out: Chunk[] = [];
  for (const chunk of sorted) {
    const last = out.at(-1);
    if (last && chunk.start <= last.end + 1) last.end = Math.max(last.end, chunk.end);
    else out.push({ ...chunk });
  }
  return out;
}
