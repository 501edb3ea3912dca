// Where the symbol index keeps what it parsed: per file its stamp (mtime and
// size), its definitions and the uses of names, as numbers only. Names are
// seeded hashes (`nameKey`), places are lines and offsets in the file's text:
// what is shown is read again from the file (extract.ts `definitionAt`), so
// the tables hold no repository text, as the retrieval index's do not.
//
// Two homes: the workspace's persistent index (`.ctxproxy/index.db`, the
// retrieval index's symbolTables.ts), so a restart reparses only what changed;
// and, where no index can be opened (tests, benchmarks without one), a copy in
// memory with the same rows (`MemorySymbolTables`).

import type { Definition, Reference, ReferenceKind } from './extract.ts';

/** A definition as stored: its place, and where its name and signature are in the text. */
export type StoredDefinition = Pick<Definition, 'kind' | 'line' | 'endLine' | 'depth' | 'spans' | 'sig'>;

export interface StoredUse {
  rel: string;
  line: number;
  kind: ReferenceKind;
}

export interface SymbolFileState {
  /** `mtime:size` when it was read; empty when it must be read again at the next update. */
  stamp: string;
  /** Why it was not parsed (binary, too large, a parse that failed), or undefined when it was. */
  skip: string | undefined;
}

export interface SymbolTables {
  state(rel: string): SymbolFileState | undefined;
  /** Replaces what is held for `rel` with a parse's result. */
  put(rel: string, stamp: string, defs: readonly Definition[], uses: readonly Reference[], names: Int32Array): void;
  /** Records `rel` as not parsed, and why. */
  skip(rel: string, stamp: string, reason: string): void;
  /** True when something was held for `rel`. */
  remove(rel: string): boolean;
  /** Files held (parsed or skipped) after `after` in path order, `limit` at most. */
  relsAfter(after: string, limit: number): string[];
  counts(): { indexed: number; skipped: number };
  /** Definitions named `name` (bare, or qualified `Type.method`); by hash: the caller confirms from the text. */
  definitions(name: string): { rel: string; def: StoredDefinition }[];
  definitionsOf(rel: string): StoredDefinition[];
  /** Uses of `name` (the kinds asked, or every kind), files in path order, `limit` at most. */
  uses(name: string, kinds: readonly ReferenceKind[] | undefined, limit: number): StoredUse[];
  /** The repository map's numbers of the parsed files after `after` in path order (repoMap.ts `rankNames`). */
  rankPage(after: string, limit: number): [string, Int32Array][];
  /** Runs `fn` as one write (a transaction where there is one). */
  write(fn: () => void): void;
}

export const REFERENCE_KINDS: readonly ReferenceKind[] = ['call', 'import', 'type', 'use'];

/** cyrb53 over the UTF-16 code units, seeded, case kept: a name's key in the tables (53 bits, a safe integer). */
export function nameKey(name: string, seed: number): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < name.length; i++) {
    const code = name.charCodeAt(i);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** The keys a lookup of `name` matches on: the bare name's, and the whole qualified name's when it has a dot. */
export function lookupKeys(name: string, seed: number): { bare: number; qualified: number | undefined } {
  const last = name.split('.').at(-1) ?? name;
  return { bare: nameKey(last, seed), qualified: last === name ? undefined : nameKey(name, seed) };
}

interface HeldFile {
  stamp: string;
  skip: string | undefined;
  defs: (StoredDefinition & { name: number; qualified: number })[];
  /** Per use: name key, line, kind index, one after another. */
  uses: number[];
  names: Int32Array | undefined;
}

/** The tables in memory, for a symbol index without a persistent index (same rows, no file). */
export class MemorySymbolTables implements SymbolTables {
  readonly #files = new Map<string, HeldFile>();
  #sorted: string[] | undefined;

  constructor(private readonly seed = 0) {}

  state(rel: string): SymbolFileState | undefined {
    const held = this.#files.get(rel);
    return held ? { stamp: held.stamp, skip: held.skip } : undefined;
  }

  put(rel: string, stamp: string, defs: readonly Definition[], uses: readonly Reference[], names: Int32Array): void {
    if (!this.#files.has(rel)) this.#sorted = undefined;
    this.#files.set(rel, {
      stamp,
      skip: undefined,
      defs: defs.map((def) => ({
        kind: def.kind,
        line: def.line,
        endLine: def.endLine,
        depth: def.depth,
        spans: def.spans,
        sig: def.sig,
        name: nameKey(def.name, this.seed),
        qualified: nameKey(def.qualified, this.seed),
      })),
      uses: uses.flatMap((use) => [nameKey(use.name, this.seed), use.line, REFERENCE_KINDS.indexOf(use.kind)]),
      names,
    });
  }

  skip(rel: string, stamp: string, reason: string): void {
    if (!this.#files.has(rel)) this.#sorted = undefined;
    this.#files.set(rel, { stamp, skip: reason, defs: [], uses: [], names: undefined });
  }

  remove(rel: string): boolean {
    this.#sorted = undefined;
    return this.#files.delete(rel);
  }

  relsAfter(after: string, limit: number): string[] {
    return this.#paths()
      .filter((rel) => rel > after)
      .slice(0, limit);
  }

  counts(): { indexed: number; skipped: number } {
    let skipped = 0;
    for (const held of this.#files.values()) if (held.skip !== undefined) skipped++;
    return { indexed: this.#files.size - skipped, skipped };
  }

  definitions(name: string): { rel: string; def: StoredDefinition }[] {
    const { bare, qualified } = lookupKeys(name, this.seed);
    const out: { rel: string; def: StoredDefinition }[] = [];
    for (const rel of this.#paths()) {
      for (const def of this.#files.get(rel)?.defs ?? []) {
        if (def.name === bare && (qualified === undefined || def.qualified === qualified)) out.push({ rel, def });
      }
    }
    return out;
  }

  definitionsOf(rel: string): StoredDefinition[] {
    return this.#files.get(rel)?.defs ?? [];
  }

  uses(name: string, kinds: readonly ReferenceKind[] | undefined, limit: number): StoredUse[] {
    const key = nameKey(name, this.seed);
    const out: StoredUse[] = [];
    for (const rel of this.#paths()) {
      const uses = this.#files.get(rel)?.uses ?? [];
      for (let i = 0; i + 2 < uses.length && out.length < limit; i += 3) {
        const kind = REFERENCE_KINDS[uses[i + 2] ?? 3] ?? 'use';
        if (uses[i] === key && (!kinds || kinds.includes(kind))) out.push({ rel, line: uses[i + 1] ?? 0, kind });
      }
    }
    return out;
  }

  rankPage(after: string, limit: number): [string, Int32Array][] {
    const out: [string, Int32Array][] = [];
    for (const rel of this.#paths()) {
      if (rel <= after) continue;
      const names = this.#files.get(rel)?.names;
      if (names) out.push([rel, names]);
      if (out.length >= limit) break;
    }
    return out;
  }

  write(fn: () => void): void {
    fn();
  }

  #paths(): string[] {
    this.#sorted ??= [...this.#files.keys()].sort();
    return this.#sorted;
  }
}
