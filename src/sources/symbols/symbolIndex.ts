// The symbol index of one workspace: per file, its definitions and the names
// it uses. Built in the background in small slices (other sources and
// requests keep their turns), and incremental: a rebuild, started when the
// work-tree fingerprint changes, re-parses only files whose mtime or size
// changed, and drops files that left the listing.

import path from 'node:path';
import { setTimeout } from 'node:timers';
import { statStamp } from '../fingerprint.ts';
import { FileGuard, workspaceZone } from '../guard.ts';
import { admit } from './admit.ts';
import { type Definition, extractDefinitions, extractReferences } from './extract.ts';
import { defaultLocator, type GrammarLocator, loadGrammar, parseWithin } from './grammars.ts';
import { type Grammar, grammarOf, SPECS } from './languages.ts';

/**
 * A pause that does not keep the process alive: a server that has stopped
 * exits without waiting for a build nobody will use. (An unreferenced
 * setImmediate would not do: the loop then sleeps in its poll phase until some
 * other event comes.)
 */
function yieldTurn(): Promise<void> {
  return new Promise((resolve) => {
    setTimeout(resolve, 0).unref?.();
  });
}

export interface IndexedFile {
  stamp: string;
  grammar: Grammar;
  defs: Definition[];
  refs: string[];
}

export interface DefinitionHit {
  rel: string;
  def: Definition;
}

export interface IndexOptions {
  /** A parse taking longer turns its language off (tree-sitter checks as it goes). */
  parseTimeoutMs: number;
  /** The longest the build holds the event loop before it yields a turn (requests arriving meanwhile wait this long at most). */
  sliceMs: number;
  /** Files indexed at most (the rest are listed as not indexed). */
  maxFiles: number;
  locate: GrammarLocator;
}

export const defaultIndexOptions: IndexOptions = {
  parseTimeoutMs: 1_000,
  sliceMs: 8,
  maxFiles: 50_000,
  locate: defaultLocator,
};

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
  readonly files = new Map<string, IndexedFile>();
  /** Files not parsed, why, and the stamp they had then (bounded), for the report. */
  readonly skipped = new Map<string, { reason: string; stamp: string }>();
  readonly #off = new Map<Grammar, string>();
  #byName: Map<string, DefinitionHit[]> | undefined;
  #builtFor: string | undefined;
  #wantedFor: string | undefined;
  #building: Promise<void> | undefined;
  #listed = 0;
  #closed = false;
  /** Bumps whenever the index changes (memos of rendered results key on it). */
  version = 0;

  constructor(
    readonly root: string,
    private readonly isNeverRead: (rel: string) => boolean,
    private readonly allowedRoots: readonly string[],
    private readonly options: IndexOptions = defaultIndexOptions,
  ) {}

  state(): IndexState {
    return {
      ready: this.#builtFor !== undefined,
      current: this.#builtFor !== undefined && this.#building === undefined,
      indexed: this.files.size,
      listed: this.#listed,
      off: this.#off,
    };
  }

  /**
   * Brings the index up to date with the work tree whose state is `fingerprint`
   * (listing: `list()`), in the background. Resolves when that build ends.
   */
  ensure(
    fingerprint: string,
    list: () => Promise<readonly string[]>,
    first: (rel: string) => number = () => 0,
  ): Promise<void> {
    this.#wantedFor = fingerprint;
    if (this.#building) return this.#building;
    if (this.#builtFor === fingerprint) return Promise.resolve();
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
      });
    return this.#building;
  }

  /** Re-parses these files now if they changed (the files a request names: they must be current). */
  async refresh(rels: readonly string[]): Promise<void> {
    const guard = new FileGuard(this.isNeverRead);
    for (const rel of rels) await this.#update(rel, guard);
  }

  close(): void {
    this.#closed = true;
  }

  /** Definitions by bare or qualified name (`create`, `OrderService.create`). */
  lookup(name: string): DefinitionHit[] {
    if (!this.#byName) {
      const byName = new Map<string, DefinitionHit[]>();
      const add = (key: string, hit: DefinitionHit) => {
        const list = byName.get(key);
        if (list) list.push(hit);
        else byName.set(key, [hit]);
      };
      for (const [rel, file] of this.files) {
        for (const def of file.defs) {
          add(def.name, { rel, def });
          if (def.qualified !== def.name) add(def.qualified, { rel, def });
        }
      }
      this.#byName = byName;
    }
    return this.#byName.get(name) ?? [];
  }

  async #build(listing: readonly string[], first: (rel: string) => number): Promise<void> {
    const wanted = new Set<string>();
    for (const rel of listing) {
      if (grammarOf(rel) !== undefined && wanted.size < this.options.maxFiles) wanted.add(rel);
    }
    this.#listed = wanted.size;
    for (const rel of this.files.keys()) {
      if (!wanted.has(rel)) this.#drop(rel);
    }
    // Files the question hints at go first (the best hints first), so a lookup during the first build finds
    // them sooner.
    const hinted: { rel: string; score: number }[] = [];
    const rest: string[] = [];
    for (const rel of wanted) {
      const score = first(rel);
      if (score > 0) hinted.push({ rel, score });
      else rest.push(rel);
    }
    hinted.sort((a, b) => b.score - a.score);
    const order = [...hinted.map((hint) => hint.rel), ...rest];
    const guard = new FileGuard(this.isNeverRead);
    let sliceEnd = performance.now() + this.options.sliceMs;
    for (const rel of order) {
      if (this.#closed) return;
      await this.#update(rel, guard);
      if (performance.now() > sliceEnd) {
        await yieldTurn();
        sliceEnd = performance.now() + this.options.sliceMs;
      }
    }
  }

  /** Parses `rel` when its stamp changed; drops it when it is gone or refused. */
  async #update(rel: string, guard: FileGuard): Promise<void> {
    const grammar = grammarOf(rel);
    if (!grammar || this.#off.has(grammar)) return;
    const abs = path.join(this.root, rel);
    const stamp = statStamp(abs);
    const known = this.files.get(rel);
    if (known?.stamp === stamp || this.skipped.get(rel)?.stamp === stamp) return;
    const loaded = await loadGrammar(grammar, this.options.locate);
    if (!loaded.ok) {
      this.#off.set(grammar, loaded.reason);
      return;
    }
    const zone = workspaceZone(this.root, this.allowedRoots);
    const read = admit(guard, zone, this.root, rel);
    if ('missing' in read || 'skip' in read) {
      this.#drop(rel);
      if ('skip' in read && this.skipped.size < 200) this.skipped.set(rel, { reason: read.skip, stamp });
      return;
    }
    const tree = parseWithin(loaded.parser, read.text, this.options.parseTimeoutMs);
    if (!tree) {
      this.#off.set(grammar, `parse timed out on ${rel}`);
      return;
    }
    try {
      const spec = SPECS[grammar];
      this.files.set(rel, {
        stamp,
        grammar,
        defs: extractDefinitions(tree, spec),
        refs: extractReferences(tree, spec),
      });
      this.skipped.delete(rel);
      this.#changed();
    } finally {
      tree.delete();
    }
  }

  #drop(rel: string): void {
    if (this.files.delete(rel)) this.#changed();
  }

  #changed(): void {
    this.version++;
    this.#byName = undefined;
  }
}
