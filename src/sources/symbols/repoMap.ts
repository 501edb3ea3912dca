// The repository map (after Aider's): files ranked by how much the rest of
// the repository refers to what they define (PageRank over the graph "file A
// uses a name file B defines"), each with its most used definitions'
// signatures, cut to a character budget. It answers "how is this laid out"
// and "where does X happen" without reading any file whole.

import type { Definition } from './extract.ts';
import type { IndexedFile } from './symbolIndex.ts';

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

export interface RankedFile {
  rel: string;
  rank: number;
  /** Definitions with how many other files use their name, most used first. */
  defs: { def: Definition; users: number }[];
}

export function rankFiles(files: ReadonlyMap<string, IndexedFile>, options = defaultRepoMapOptions): RankedFile[] {
  const rels = [...files.keys()];
  const entries = [...files.values()];
  const n = rels.length;
  if (n === 0) return [];
  // name → ids of the files that define it (top-level and members: `create` of a class counts).
  const definers = new Map<string, number[]>();
  entries.forEach((file, id) => {
    for (const def of file.defs) {
      if (def.name.length < 3) continue;
      const list = definers.get(def.name);
      if (!list) definers.set(def.name, [id]);
      else if (list.at(-1) !== id) list.push(id);
    }
  });
  // Edges as flat arrays: from, to, weight; and how many files use each name.
  const from: number[] = [];
  const to: number[] = [];
  const weight: number[] = [];
  const users = new Map<string, number>();
  const outWeight = new Float64Array(n);
  entries.forEach((file, id) => {
    for (const name of file.refs) {
      const targets = definers.get(name);
      if (!targets || targets.length > options.maxDefiners) continue;
      let used = false;
      for (const target of targets) {
        if (target === id) continue;
        from.push(id);
        to.push(target);
        weight.push(1 / targets.length);
        outWeight[id] = (outWeight[id] ?? 0) + 1 / targets.length;
        used = true;
      }
      if (used) users.set(name, (users.get(name) ?? 0) + 1);
    }
  });
  let rank = new Float64Array(n).fill(1 / n);
  for (let iteration = 0; iteration < options.iterations; iteration++) {
    const next = new Float64Array(n);
    let dangling = 0;
    for (let i = 0; i < n; i++) if ((outWeight[i] ?? 0) === 0) dangling += rank[i] ?? 0;
    const base = (1 - DAMPING) / n + (DAMPING * dangling) / n;
    next.fill(base);
    for (let e = 0; e < from.length; e++) {
      const source = from[e] ?? 0;
      next[to[e] ?? 0] =
        (next[to[e] ?? 0] ?? 0) + (DAMPING * (rank[source] ?? 0) * (weight[e] ?? 0)) / (outWeight[source] || 1);
    }
    rank = next;
  }
  const ranked: RankedFile[] = entries.map((file, id) => ({
    rel: rels[id] ?? '',
    rank: rank[id] ?? 0,
    defs: file.defs
      .filter((def) => def.depth <= 1)
      .map((def) => ({ def, users: users.get(def.name) ?? 0 }))
      .sort((a, b) => b.users - a.users || a.def.depth - b.def.depth || a.def.line - b.def.line),
  }));
  return ranked.filter((file) => file.defs.length > 0).sort((a, b) => b.rank - a.rank || a.rel.localeCompare(b.rel));
}

/** `path:` then its top definitions, best files first, while they fit in `maxChars`. */
export function renderRepoMap(
  ranked: readonly RankedFile[],
  options = defaultRepoMapOptions,
): { text: string; files: number } {
  const blocks: string[] = [];
  let size = 0;
  for (const file of ranked) {
    const shown = file.defs.slice(0, options.perFile).sort((a, b) => a.def.line - b.def.line);
    const lines = [`${file.rel}:`, ...shown.map(({ def }) => `${'  '.repeat(def.depth + 1)}${def.signature}`)];
    if (file.defs.length > shown.length) lines.push(`  … ${file.defs.length - shown.length} more`);
    const block = lines.join('\n');
    if (size + block.length + 1 > options.maxChars) {
      if (blocks.length === 0) blocks.push(block.slice(0, options.maxChars));
      break;
    }
    blocks.push(block);
    size += block.length + 1;
  }
  const rest = ranked.length - blocks.length;
  if (rest > 0) blocks.push(`… ${rest} more files with definitions`);
  return { text: blocks.join('\n'), files: Math.min(blocks.length, ranked.length) };
}
