// The bench's inputs, about 1 MB each: the repository mix and the dense corpus
// (bench/redact/README.md, Inputs). Shared by run.ts and rules.ts.

import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { loadClean, loadPlanted } from '../../test/redact/corpus.ts';
import { seededRng } from '../../test/redact/secretGen.ts';

const TARGET_BYTES = 1024 * 1024;

export interface Item {
  path: string;
  text: string;
}

/** Ordinary repository text, most of what a context proxy scans: this repository's own sources. */
function ordinaryText(): Item[] {
  const root = join(import.meta.dirname, '../..');
  const files = [
    'src/shared/types.ts',
    'src/shared/errors.ts',
    'src/shared/ports.ts',
    'package.json',
    'tsconfig.json',
    'biome.json',
  ];
  return files.flatMap((file) => {
    try {
      return [{ path: file, text: readFileSync(join(root, file), 'utf8') }];
    } catch {
      return [];
    }
  });
}

export interface Input {
  name: string;
  items: Item[];
  bytes: number;
  planted: number;
}

/**
 * The dense corpus, about 1 MB, one item per file: for each file with planted secrets, three clean
 * items (this repository's own sources, whose subject is secrets, and the false-positive traps).
 * Nearly every line holds a secret-like word: a stress case for a keyword pre-filter.
 */
export function denseCorpus(): Input {
  const items: Item[] = [];
  let bytes = 0;
  let planted = 0;
  const ordinary = [...ordinaryText(), ...loadClean().map((c) => ({ path: c.name, text: c.text }))];
  for (let seed = 1; bytes < TARGET_BYTES; seed++) {
    for (const file of loadPlanted(seededRng(seed))) {
      items.push({ path: file.path, text: file.text });
      bytes += file.text.length;
      planted += file.planted.length;
      // Three clean items for each secret-bearing one; a seed comment keeps them distinct (no cache help).
      for (let k = 0; k < 3; k++) {
        const o = ordinary[(items.length + k) % ordinary.length]!;
        const text = `${o.text}\n// ${seed}-${k}-${items.length}\n`;
        items.push({ path: o.path, text });
        bytes += text.length;
      }
    }
  }
  return { name: 'dense corpus', items, bytes, planted };
}

/** Text files a working copy is made of (by extension), below the collector's per-file limits. */
const TEXT_EXTENSIONS = new Set(['.js', '.mjs', '.cjs', '.ts', '.mts', '.json', '.md', '.yml', '.yaml', '.txt', '.sh']);

function textFilesUnder(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) textFilesUnder(path, out);
    else if (entry.isFile() && TEXT_EXTENSIONS.has(extname(entry.name))) out.push(path);
  }
  return out;
}

/**
 * A repository mix, about 1 MB: every corpus template with planted secrets and every clean trap once
 * (about 8 % of the bytes), then third-party code, docs and config as a working copy holds them: the
 * installed packages' text files, taken in turn from each package (so that no one package's
 * vocabulary dominates), at most 64 KiB each. Deterministic for a given lockfile.
 */
export function repositoryMix(): Input {
  const items: Item[] = [];
  let planted = 0;
  for (const file of loadPlanted(seededRng(1))) {
    items.push({ path: file.path, text: file.text });
    planted += file.planted.length;
  }
  for (const clean of loadClean()) items.push({ path: clean.name, text: clean.text });
  let bytes = items.reduce((sum, item) => sum + item.text.length, 0);
  const modules = join(import.meta.dirname, '../../node_modules');
  const byPackage = new Map<string, string[]>();
  for (const file of textFilesUnder(modules)) {
    // The package is the first path segment under node_modules (two for a scoped one, @scope/name).
    const segments = file.slice(modules.length + 1).split('/');
    const name = segments[0]!.startsWith('@') ? segments.slice(0, 2).join('/') : segments[0]!;
    const files = byPackage.get(name);
    if (files) files.push(file);
    else byPackage.set(name, [file]);
  }
  // Each package's files in a fixed spread-out order (7919 is prime: k × 7919 mod n visits all n),
  // each file once: a repeated item would be a cache hit for us and not for secretlint.
  const queues = [...byPackage.keys()].sort().map((name) => {
    const files = byPackage.get(name)!;
    return files.map((_file, k) => files[(k * 7919) % files.length]!);
  });
  for (let turn = 0; bytes < TARGET_BYTES && queues.some((queue) => queue.length > 0); turn++) {
    const file = queues[turn % queues.length]!.shift();
    if (file === undefined) continue;
    const text = readFileSync(file, 'utf8');
    if (text.length > 64 * 1024 || text.includes('\0')) continue;
    items.push({ path: file.slice(modules.length + 1), text });
    bytes += text.length;
  }
  return { name: 'repository mix', items, bytes, planted };
}
