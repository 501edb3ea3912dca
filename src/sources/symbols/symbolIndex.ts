// The symbol index of one workspace: per file, its definitions and the names
// it uses, kept in its tables (symbolTables.ts: the workspace's persistent
// index when one is open, so a restart reparses only the files whose stamp
// changed; else in memory). Built in the background: this thread lists, stats and reads the
// files (through the guard) in small slices, so other sources and requests
// keep their turns, and the parse worker (parseHost.ts) parses them, so the
// parser's memory is not the server's. Incremental: a rebuild, started when the
// work-tree fingerprint changes, re-parses only files whose mtime or size
// changed, and drops files that left the listing; one with nothing changed
// starts no worker.

import path from 'node:path';
import { statStamp } from '../workspace/fingerprint.ts';
import { FileGuard, workspaceZone, type Zone } from '../workspace/guard.ts';
import { admit } from './admit.ts';
import { BuildPacer } from './buildPacer.ts';
import { defaultLocator, type GrammarLocator } from './grammars.ts';
import { type Grammar, grammarOf } from './languages.ts';
import { defaultParseHostOptions, type ParseHost, ParseLost, sharedParseHost } from './parseHost.ts';
import type { ParseJob } from './parseProtocol.ts';
import { MemorySymbolTables, type StoredDefinition, type SymbolTables } from './symbolTables.ts';

/** A definition found by name, as stored (extract.ts `definitionAt` reads its name and signature again). */
export interface DefinitionHit {
  rel: string;
  def: StoredDefinition;
}

export interface IndexOptions {
  /** A parse taking longer turns its language off (tree-sitter checks as it goes). */
  parseTimeoutMs: number;
  /** The longest the build holds the event loop before it yields a turn (requests arriving meanwhile wait this long at most). */
  sliceMs: number;
  /** Files indexed at most (the rest are listed as not indexed). */
  maxFiles: number;
  locate: GrammarLocator;
  /** The parse worker's module (the compiled package's, or the sources'). */
  workerUrl: URL;
  /** How long an idle parse worker lingers before it exits and its memory goes back to the system. */
  workerIdleMs: number;
  /** The longest one pause of a build nobody waits on gives way to requests (buildPacer.ts). */
  maxPauseMs: number;
}

export const defaultIndexOptions: IndexOptions = {
  parseTimeoutMs: 1_000,
  sliceMs: 8,
  maxFiles: 50_000,
  locate: defaultLocator,
  workerUrl: defaultParseHostOptions.workerUrl,
  workerIdleMs: defaultParseHostOptions.idleMs,
  maxPauseMs: 2_000,
};

/** Files sent to the worker at once, and their characters: one batch is parsed while the next is read. */
const BATCH_FILES = 16;
const BATCH_CHARS = 256 * 1024;

/** Crashes of the worker, on batches holding a language, that turn the language off. */
const CRASHES_OFF = 2;

/** A file read and ready to parse, with the stamp it had before the read and the read's place in order. */
interface Prepared {
  job: ParseJob;
  stamp: string;
  seq: number;
}

export interface IndexState {
  /** At least one build has finished: lookups and the map are meaningful (perhaps a little stale). */
  ready: boolean;
  /** No build is running: the index matches the last fingerprint asked for. */
  current: boolean;
  indexed: number;
  listed: number;
  /** Languages turned off, with why (a grammar that did not load, a parse that timed out). */
  off: ReadonlyMap<Grammar, string>;
}

export class SymbolIndex {
  readonly #off = new Map<Grammar, string>();
  /** Per language, how often the worker crashed on a batch holding it. */
  readonly #crashes = new Map<Grammar, number>();
  /** Reads so far: each read of a file takes the next number. */
  #reads = 0;
  /**
   * Per file, the number of the read the index holds the result of. A background batch read before a
   * request's refresh can come back after it: its older result must not replace the fresher one. Cleared
   * whenever no batch is in the worker (no older result can come back then).
   */
  readonly #held = new Map<string, number>();
  #inWorker = 0;
  /** The tables held parsed files when this index was made (a stored index: lookups answer while it catches up). */
  readonly #stored: boolean;
  #counts: { indexed: number; skipped: number } | undefined;
  #builtFor: string | undefined;
  #wantedFor: string | undefined;
  #building: Promise<void> | undefined;
  /** How the running build gives way to requests (see `ensure`). */
  readonly #pacer: BuildPacer;
  #listed = 0;
  #closed = false;
  readonly #host: ParseHost;
  /** Bumps whenever the index changes (memos of rendered results key on it). */
  version = 0;
  /** Files sent to the parser since this index was made (a restart should parse only what changed). */
  parsed = 0;

  constructor(
    readonly root: string,
    private readonly isNeverRead: (rel: string) => boolean,
    private readonly allowedRoots: readonly string[],
    private readonly options: IndexOptions = defaultIndexOptions,
    host: ParseHost = sharedParseHost({ workerUrl: options.workerUrl, idleMs: options.workerIdleMs }),
    readonly tables: SymbolTables = new MemorySymbolTables(),
  ) {
    this.#host = host;
    this.#pacer = new BuildPacer(options.maxPauseMs);
    this.#stored = this.#count().indexed > 0;
  }

  state(): IndexState {
    return {
      ready: this.#builtFor !== undefined || this.#stored,
      current: this.#builtFor !== undefined && this.#building === undefined,
      indexed: this.#count().indexed,
      listed: this.#listed,
      off: this.#off,
    };
  }

  /** Whether `rel` is parsed and held. */
  has(rel: string): boolean {
    const state = this.tables.state(rel);
    return state !== undefined && state.skip === undefined;
  }

  /** Why `rel` was not parsed, if it was not. */
  skipOf(rel: string): string | undefined {
    return this.tables.state(rel)?.skip;
  }

  definitionsOf(rel: string): StoredDefinition[] {
    return this.tables.definitionsOf(rel);
  }

  /**
   * Brings the index up to date with the work tree whose state is `fingerprint`
   * (listing: `list()`), in the background. Resolves when that build ends.
   *
   * `whenIdle` (a build nobody waits on): before reading and before sending each batch the build waits
   * for it, so the git processes of a request collecting meanwhile have both cores to themselves. A
   * request that then waits on the build calls `hurry()`: it is itself collecting, so a build still
   * pausing would wait on it.
   */
  ensure(
    fingerprint: string,
    list: () => Promise<readonly string[]>,
    first: (rel: string) => number = () => 0,
    whenIdle?: () => Promise<void>,
  ): Promise<void> {
    this.#wantedFor = fingerprint;
    if (this.#building) return this.#building;
    if (this.#builtFor === fingerprint) return Promise.resolve();
    this.#pacer.giveWay(whenIdle);
    const run = async () => {
      while (!this.#closed && this.#wantedFor !== this.#builtFor) {
        const target = this.#wantedFor;
        await this.#build(await list(), first);
        this.#builtFor = target;
      }
    };
    this.#building = run()
      .catch(() => undefined)
      .finally(() => {
        this.#building = undefined;
        this.#pacer.giveWay(undefined);
      });
    return this.#building;
  }

  /** Someone waits on the running build: it stops pausing (and goes on now if it is paused). */
  hurry(): void {
    this.#pacer.hurry();
  }

  /** Re-parses these files now if they changed (the files a request names: they must be current). */
  async refresh(rels: readonly string[]): Promise<void> {
    const guard = new FileGuard(this.isNeverRead);
    const zone = workspaceZone(this.root, this.allowedRoots);
    const batch: Prepared[] = [];
    for (const rel of rels) {
      const prepared = this.#prepare(rel, guard, zone);
      if (prepared) batch.push(prepared);
    }
    if (batch.length > 0) await this.#parse(batch, true);
  }

  close(): void {
    // The shared worker is not ended here: another index may use it, and once idle it exits on its own.
    this.#closed = true;
    // A build paused for a quiet moment ends now rather than at the next one.
    this.#pacer.hurry();
  }

  /** Definitions by bare or qualified name (`create`, `OrderService.create`), as stored (by the name's key). */
  lookup(name: string): DefinitionHit[] {
    return this.tables.definitions(name);
  }

  async #build(listing: readonly string[], first: (rel: string) => number): Promise<void> {
    // Every pass goes over the whole listing (50,000 paths in a large tree) before it reads a file: in
    // slices too, as the reads are, so no request waits for the loop behind it.
    let sliceEnd = performance.now() + this.options.sliceMs;
    const wanted = new Set<string>();
    // Files the question hints at go first (the best hints first), so a lookup during the first build finds
    // them sooner.
    const hinted: { rel: string; score: number }[] = [];
    for (const rel of listing) {
      if (wanted.size >= this.options.maxFiles) break;
      if (performance.now() > sliceEnd) {
        await this.#pacer.pause();
        if (this.#closed) return;
        sliceEnd = performance.now() + this.options.sliceMs;
      }
      if (grammarOf(rel) === undefined) continue;
      wanted.add(rel);
      const score = first(rel);
      if (score > 0) hinted.push({ rel, score });
    }
    this.#listed = wanted.size;
    // Held files that left the listing, read a page of paths at a time.
    for (let after = ''; ; ) {
      const page = this.tables.relsAfter(after, 500);
      if (page.length === 0) break;
      after = page.at(-1) as string;
      const gone = page.filter((rel) => !wanted.has(rel));
      if (gone.length > 0) {
        this.tables.write(() => {
          for (const rel of gone) {
            this.#newer(rel, ++this.#reads);
            this.#drop(rel);
          }
        });
      }
      await this.#pacer.pause();
      if (this.#closed) return;
    }
    hinted.sort((a, b) => b.score - a.score);
    const early = new Set(hinted.map((hint) => hint.rel));
    // The hinted files, then the rest in listing order (no second array of every path).
    const order = function* () {
      yield* early;
      for (const rel of wanted) if (!early.has(rel)) yield rel;
    };
    const guard = new FileGuard(this.isNeverRead);
    const zone = workspaceZone(this.root, this.allowedRoots);
    let batch: Prepared[] = [];
    let chars = 0;
    let parsing: Promise<void> | undefined;
    sliceEnd = performance.now() + this.options.sliceMs;
    // Before reading a batch (once per batch: unchanged files are a stat each and fill none).
    let beforeBatch = true;
    for (const rel of order()) {
      if (beforeBatch && this.#pacer.givingWay) {
        await this.#pacer.pause();
        sliceEnd = performance.now() + this.options.sliceMs;
      }
      beforeBatch = false;
      if (this.#closed) return;
      const prepared = this.#prepare(rel, guard, zone);
      if (prepared) {
        batch.push(prepared);
        chars += prepared.job.text.length;
      }
      if (batch.length >= BATCH_FILES || chars >= BATCH_CHARS) {
        // At most one batch in the worker and one being read: the texts in memory stay bounded.
        await parsing;
        if (this.#pacer.givingWay) await this.#pacer.pause();
        if (this.#closed) return;
        parsing = this.#parse(batch, false);
        beforeBatch = true;
        batch = [];
        chars = 0;
      }
      if (performance.now() > sliceEnd) {
        await this.#pacer.pause();
        sliceEnd = performance.now() + this.options.sliceMs;
      }
    }
    await parsing;
    if (batch.length > 0 && this.#pacer.givingWay) await this.#pacer.pause();
    if (batch.length > 0 && !this.#closed) await this.#parse(batch, false);
  }

  /** Reads `rel` for parsing when its stamp changed; drops it when it is gone or refused. */
  #prepare(rel: string, guard: FileGuard, zone: Zone): Prepared | undefined {
    const grammar = grammarOf(rel);
    if (!grammar || this.#off.has(grammar)) return undefined;
    const seq = ++this.#reads;
    const stamp = statStamp(path.join(this.root, rel));
    if (this.tables.state(rel)?.stamp === stamp) return undefined;
    let wasm: string;
    try {
      wasm = this.options.locate(grammar);
    } catch {
      this.#off.set(grammar, 'grammar failed to load (its file was not found)');
      return undefined;
    }
    const read = admit(guard, zone, this.root, rel);
    if ('missing' in read || 'skip' in read) {
      this.#newer(rel, seq);
      this.#drop(rel);
      if ('skip' in read) this.#skip(rel, read.skip, stamp);
      return undefined;
    }
    return { job: { rel, grammar, wasm, text: read.text }, stamp, seq };
  }

  /**
   * Parses a batch in the worker and takes in what it found. `waited`: a request waits for it (the
   * background build does not hold a process that is done).
   *
   * A worker that went away fails the batch's files as skips for this update only (the next one reads
   * them again), not their languages: one bad file, a momentary lack of memory or another index's batch
   * that crashed the shared worker says little about a language. A language goes off when it is clearly
   * the language: its grammar did not load, a parse timed out (the worker answers so), or batches holding
   * it crashed the worker CRASHES_OFF times (counted only for the batch the worker was on). Counting per
   * language rather than finding the file keeps this simple; a language sharing batches with a bad file
   * may go off with it, which is what happened to every language before.
   */
  async #parse(batch: Prepared[], waited: boolean): Promise<void> {
    let outcomes: Awaited<ReturnType<ParseHost['parse']>>;
    this.parsed += batch.length;
    this.#inWorker++;
    try {
      outcomes = await this.#host.parse(
        batch.map((prepared) => prepared.job),
        this.options.parseTimeoutMs,
        waited,
      );
    } catch (error) {
      if (this.#closed) return;
      const reason = error instanceof Error ? error.message : String(error);
      this.#write(() => {
        for (const { job, seq } of batch) if (this.#newer(job.rel, seq)) this.#skip(job.rel, reason, '');
      });
      if (--this.#inWorker === 0) this.#held.clear();
      if (!(error instanceof ParseLost) || !error.culprit) return;
      for (const grammar of new Set(batch.map((prepared) => prepared.job.grammar))) {
        const crashes = (this.#crashes.get(grammar) ?? 0) + 1;
        this.#crashes.set(grammar, crashes);
        if (crashes >= CRASHES_OFF && !this.#off.has(grammar)) this.#off.set(grammar, reason);
      }
      return;
    }
    if (this.#closed) return;
    this.#write(() =>
      outcomes.forEach((outcome, i) => {
        const prepared = batch[i];
        if (!prepared) return;
        const { job, stamp, seq } = prepared;
        if ('off' in outcome) {
          if (!this.#off.has(job.grammar)) this.#off.set(job.grammar, outcome.off);
          return;
        }
        if (!this.#newer(job.rel, seq)) return;
        if ('skip' in outcome) {
          // Its old definitions no longer match its text; it is read again once it changes.
          this.#skip(job.rel, outcome.skip, stamp);
          return;
        }
        this.tables.put(job.rel, stamp, outcome.defs, outcome.uses, outcome.names);
        this.#changed();
      }),
    );
    if (--this.#inWorker === 0) this.#held.clear();
  }

  /**
   * One write of the tables. One that fails (the index file locked by another process past its wait, a full
   * disk) loses this batch only: its files are read again at the next update, whose stamps do not match.
   */
  #write(fn: () => void): void {
    try {
      this.tables.write(fn);
    } catch {
      this.#changed();
    }
  }

  /** Whether read `seq` of `rel` is at least as new as what the index holds for it; if so, it is held now. */
  #newer(rel: string, seq: number): boolean {
    if ((this.#held.get(rel) ?? 0) > seq) return false;
    this.#held.set(rel, seq);
    return true;
  }

  /** Notes a file not parsed, and why; with an empty stamp it is read again at the next update. */
  #skip(rel: string, reason: string, stamp: string): void {
    this.tables.skip(rel, stamp, reason);
    this.#changed();
  }

  #drop(rel: string): void {
    if (this.tables.remove(rel)) this.#changed();
  }

  #changed(): void {
    this.version++;
    this.#counts = undefined;
  }

  #count(): { indexed: number; skipped: number } {
    this.#counts ??= this.tables.counts();
    return this.#counts;
  }
}
