// The repository map (after Aider's): files ranked by how much the rest of
// the repository refers to what they define (PageRank over the graph "file A
// uses a name file B defines"), each with its most used definitions'
// signatures, cut to a character budget. It answers "how is this laid out"
// and "where does X happen" without reading any file whole.
//
// The ranking grows with the repository (a second and more of CPU at 50,000
// files), so it never runs on the event loop past a small index: the ranking
// reads names as 32-bit hashes (the parse worker hashes them: `rankNames`),
// the index is packed into one array of numbers (a copy of typed arrays, no
// string or object per name) and ranked in the CPU pool (rankTask.ts), which
// answers with the order of the files and, for those that can fit in the map,
// how many files use each definition. A collision of two names' hashes only
// merges their counts: the order shifts, nothing else.

import type { CpuPool } from '../../shared/cpuPool.ts';
import { taskModule } from '../../shared/cpuPool.ts';
import type { Definition } from './extract.ts';
import type { SymbolTables } from './symbolTables.ts';

/**
 * What the map reads of an index: the ranking's numbers of its files, a page at a time (from the tables, not
 * held in the heap), and the definitions of the few files shown, read back from their text (one per stored
 * definition, in order; undefined for one the file no longer holds).
 */
export interface MapSource {
  tables: Pick<SymbolTables, 'rankPage'>;
  definitions(rel: string): (Definition | undefined)[];
}

export interface RepoMapOptions {
  maxChars: number;
  /** Definitions shown per file. */
  perFile: number;
  /** A name defined in more files than this says nothing about which one is used (`init`, `String`). */
  maxDefiners: number;
  iterations: number;
}

export const defaultRepoMapOptions: RepoMapOptions = { maxChars: 6_000, perFile: 6, maxDefiners: 8, iterations: 20 };

const DAMPING = 0.85;

/** Names shorter than this define nothing the ranking follows (`id`, `x`). */
const MIN_NAME = 3;

/**
 * Packed indexes with at most this many numbers (headers and hashes) are ranked inline: about 1,000
 * files of 40 names, a few ms; a round trip to the pool (and a worker's start) costs more.
 */
const INLINE_MAX_WORDS = 50_000;

/** A ranking taking longer in the pool is given up (the last map is served meanwhile). */
const POOL_LIMIT_MS = 60_000;

/** Words before each file's hashes in the packed array: its definitions, its references, whether it has any to show. */
const HEADER = 3;

/**
 * FNV-1a over the UTF-16 code units, never 0 (0 marks a name too short to rank). Signed: a 32-bit integer
 * is a small integer to V8, so the ranking's maps key on it without boxing a number per name.
 */
function nameHash(name: string): number {
  let hash = 0x811c9dc5 | 0;
  for (let i = 0; i < name.length; i++) {
    hash ^= name.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash || 1;
}

/**
 * What the ranking reads of a file, as it sits in the packed index: how many definitions and referenced
 * names it has and whether any definition is shown in the map (depth 0 or 1), then one hash per
 * definition (in order) and one per referenced name. Made where the file is parsed, so packing the index
 * is a copy.
 */
export function rankNames(defs: readonly Definition[], refs: readonly string[]): Int32Array {
  const names = new Int32Array(HEADER + defs.length + refs.length);
  names[0] = defs.length;
  names[1] = refs.length;
  names[2] = defs.some((def) => def.depth <= 1) ? 1 : 0;
  defs.forEach((def, i) => {
    names[HEADER + i] = def.name.length < MIN_NAME ? 0 : nameHash(def.name);
  });
  refs.forEach((ref, i) => {
    names[HEADER + defs.length + i] = nameHash(ref);
  });
  return names;
}

/** The order of the files worth showing, best first, and per definition of the first `top` of them its users. */
export interface RankOrder {
  order: Uint32Array;
  /** The first `top` files of `order`, each its definitions' user counts in its definitions' order, one after another. */
  users: Uint32Array;
  top: number;
}

/**
 * Ranks a packed index (`packIndex`): its files' hashes and, NUL-separated, their paths (ties go by path).
 * Plain numbers in and out, so it runs the same inline and in the pool.
 */
export function rankPacked(data: Int32Array, rels: string, options: RepoMapOptions): RankOrder {
  const starts: number[] = [];
  let defined = 0;
  for (let at = 0; at < data.length; at += HEADER + (data[at] ?? 0) + (data[at + 1] ?? 0)) {
    starts.push(at);
    defined += data[at] ?? 0;
  }
  const n = starts.length;
  if (n === 0) return { order: new Uint32Array(0), users: new Uint32Array(0), top: 0 };
  const names = new NameTable(defined);
  // Per defined name, the files that define it (top-level and members: `create` of a class counts), as
  // one array cut in slices: first counted, then filled.
  const definerCount = new Int32Array(names.capacity);
  const lastDefiner = new Int32Array(names.capacity).fill(-1);
  const eachDef = (visit: (slot: number, id: number) => void) => {
    for (let id = 0; id < n; id++) {
      const at = starts[id] ?? 0;
      for (let k = at + HEADER; k < at + HEADER + (data[at] ?? 0); k++) {
        const hash = data[k] ?? 0;
        if (hash === 0) continue;
        const slot = names.add(hash);
        if (lastDefiner[slot] === id) continue;
        lastDefiner[slot] = id;
        visit(slot, id);
      }
    }
  };
  eachDef((slot) => {
    definerCount[slot] = (definerCount[slot] ?? 0) + 1;
  });
  const definerStart = new Int32Array(names.capacity + 1);
  for (let slot = 0; slot < names.capacity; slot++) {
    definerStart[slot + 1] = (definerStart[slot] ?? 0) + (definerCount[slot] ?? 0);
  }
  const definers = new Int32Array(definerStart[names.capacity] ?? 0);
  const filled = definerStart.slice(0, names.capacity);
  lastDefiner.fill(-1);
  eachDef((slot, id) => {
    definers[filled[slot] ?? 0] = id;
    filled[slot] = (filled[slot] ?? 0) + 1;
  });
  // Edges "file uses a name another file defines", each of weight 1 / the name's definers: counted (with
  // each file's total weight and how many files use each name) in a first pass, stored in the second.
  const users = new Int32Array(names.capacity);
  const outWeight = new Float64Array(n);
  let edges = 0;
  const eachEdge = (visit: (id: number, target: number, weight: number) => void, count: boolean) => {
    for (let id = 0; id < n; id++) {
      const at = starts[id] ?? 0;
      const first = at + HEADER + (data[at] ?? 0);
      for (let k = first; k < first + (data[at + 1] ?? 0); k++) {
        const slot = names.find(data[k] ?? 0);
        if (slot < 0) continue;
        const definersOf = definerCount[slot] ?? 0;
        if (definersOf > options.maxDefiners) continue;
        const begin = definerStart[slot] ?? 0;
        let used = false;
        for (let t = begin; t < begin + definersOf; t++) {
          const target = definers[t] ?? 0;
          if (target === id) continue;
          visit(id, target, 1 / definersOf);
          used = true;
        }
        if (used && count) users[slot] = (users[slot] ?? 0) + 1;
      }
    }
  };
  eachEdge((id, _target, weight) => {
    outWeight[id] = (outWeight[id] ?? 0) + weight;
    edges++;
  }, true);
  const fromIds = new Int32Array(edges);
  const toIds = new Int32Array(edges);
  /** The share of its source's rank an edge carries. */
  const share = new Float64Array(edges);
  let e = 0;
  eachEdge((id, target, weight) => {
    fromIds[e] = id;
    toIds[e] = target;
    share[e] = weight / (outWeight[id] || 1);
    e++;
  }, false);
  let rank = new Float64Array(n).fill(1 / n);
  let next = new Float64Array(n);
  for (let iteration = 0; iteration < options.iterations; iteration++) {
    let dangling = 0;
    for (let i = 0; i < n; i++) if (outWeight[i] === 0) dangling += rank[i] ?? 0;
    next.fill((1 - DAMPING) / n + (DAMPING * dangling) / n);
    for (let edge = 0; edge < edges; edge++) {
      const target = toIds[edge] ?? 0;
      next[target] = (next[target] ?? 0) + DAMPING * (rank[fromIds[edge] ?? 0] ?? 0) * (share[edge] ?? 0);
    }
    [rank, next] = [next, rank];
  }
  const paths = rels.split('\0');
  const collator = new Intl.Collator();
  const shown: number[] = [];
  for (let id = 0; id < n; id++) if (data[(starts[id] ?? 0) + 2] === 1) shown.push(id);
  shown.sort((a, b) => (rank[b] ?? 0) - (rank[a] ?? 0) || collator.compare(paths[a] ?? '', paths[b] ?? ''));
  const order = Uint32Array.from(shown);
  // The map cannot show more files than this: a block is at least `p:`, a definition line and a newline.
  const top = Math.min(order.length, Math.ceil(options.maxChars / 6) + 1);
  const counts: number[] = [];
  for (let i = 0; i < top; i++) {
    const at = starts[order[i] ?? 0] ?? 0;
    for (let k = at + HEADER; k < at + HEADER + (data[at] ?? 0); k++) {
      const slot = names.find(data[k] ?? 0);
      counts.push(slot < 0 ? 0 : (users[slot] ?? 0));
    }
  }
  return { order, users: Uint32Array.from(counts), top };
}

/** Open addressing over the defined names' hashes (never 0, so 0 marks a free slot). */
class NameTable {
  readonly capacity: number;
  readonly #keys: Int32Array;
  readonly #mask: number;

  constructor(entries: number) {
    let capacity = 16;
    while (capacity < entries * 2) capacity *= 2;
    this.capacity = capacity;
    this.#keys = new Int32Array(capacity);
    this.#mask = capacity - 1;
  }

  /** The slot of `hash`, taken if it was free. */
  add(hash: number): number {
    let slot = Math.imul(hash, 0x9e3779b1) & this.#mask;
    for (;;) {
      const key = this.#keys[slot];
      if (key === hash) return slot;
      if (key === 0) {
        this.#keys[slot] = hash;
        return slot;
      }
      slot = (slot + 1) & this.#mask;
    }
  }

  /** The slot of `hash`, or -1 when no file defines it. */
  find(hash: number): number {
    let slot = Math.imul(hash, 0x9e3779b1) & this.#mask;
    for (;;) {
      const key = this.#keys[slot];
      if (key === hash) return slot;
      if (key === 0) return -1;
      slot = (slot + 1) & this.#mask;
    }
  }
}

/** Files read from the tables per turn of the event loop (a page of rows). */
const PACK_FILES_PER_TURN = 2_000;

/**
 * The index as the ranking reads it: one array of numbers, the paths joined. The tables are read a page per
 * turn; the pages are joined into one array at the end.
 */
async function packIndex(tables: MapSource['tables']) {
  const rels: string[] = [];
  const parts: Int32Array[] = [];
  let words = 0;
  for (let after = ''; ; ) {
    const page = tables.rankPage(after, PACK_FILES_PER_TURN);
    if (page.length === 0) break;
    for (const [rel, names] of page) {
      rels.push(rel);
      parts.push(names);
      words += names.length;
    }
    after = page.at(-1)?.[0] ?? after;
    await new Promise((resolve) => setImmediate(resolve));
  }
  const data = new Int32Array(words);
  let at = 0;
  for (const part of parts) {
    data.set(part, at);
    at += part.length;
  }
  return { data, rels: rels.join('\0'), paths: rels };
}

/**
 * The map of the index as it is now: ranked inline when the index is small, else in `pool` (the event
 * loop only packs the index and renders the top of the order). Rejects when the pool fails.
 */
export async function repoMap(
  index: MapSource,
  options: RepoMapOptions,
  pool: CpuPool | undefined,
): Promise<{ text: string; files: number }> {
  const packed = await packIndex(index.tables);
  const ranked =
    pool && packed.data.length > INLINE_MAX_WORDS
      ? await pool.run<RankOrder>(
          {
            module: taskModule('rankTask', import.meta.url),
            name: 'rankFiles',
            args: [packed.data, packed.rels, options],
            transfer: [packed.data.buffer],
          },
          POOL_LIMIT_MS,
        )
      : rankPacked(packed.data, packed.rels, options);
  return renderRepoMap(packed.paths, index, ranked, options);
}

/** `path:` then its top definitions, best files first, while they fit in `maxChars`. */
function renderRepoMap(
  paths: readonly string[],
  index: MapSource,
  ranked: RankOrder,
  options: RepoMapOptions,
): { text: string; files: number } {
  const blocks: string[] = [];
  let size = 0;
  let counted = 0;
  for (let i = 0; i < ranked.top; i++) {
    const id = ranked.order[i] ?? 0;
    const defs = index.definitions(paths[id] ?? '');
    const first = counted;
    counted += defs.length;
    const byUse = defs
      .map((def, k) => ({ def, users: ranked.users[first + k] ?? 0 }))
      .filter((entry): entry is { def: Definition; users: number } => entry.def !== undefined && entry.def.depth <= 1)
      .sort((a, b) => b.users - a.users || a.def.depth - b.def.depth || a.def.line - b.def.line);
    const shown = byUse.slice(0, options.perFile).sort((a, b) => a.def.line - b.def.line);
    const lines = [`${paths[id]}:`, ...shown.map(({ def }) => `${'  '.repeat(def.depth + 1)}${def.signature}`)];
    if (byUse.length > shown.length) lines.push(`  … ${byUse.length - shown.length} more`);
    const block = lines.join('\n');
    if (size + block.length + 1 > options.maxChars) {
      if (blocks.length === 0) blocks.push(block.slice(0, options.maxChars));
      break;
    }
    blocks.push(block);
    size += block.length + 1;
  }
  const rest = ranked.order.length - blocks.length;
  if (rest > 0) blocks.push(`… ${rest} more files with definitions`);
  return { text: blocks.join('\n'), files: Math.min(blocks.length, ranked.order.length) };
}
