// Throughput of the redactor on ~1 MB of mixed text, against secretlint's
// recommended preset alone in the same run, and the cost of a cache hit.
// Run: node --import tsx bench/redact/run.ts

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { lintSource } from '@secretlint/core';
import { creator as recommendedPreset } from '@secretlint/secretlint-rule-preset-recommend';
import type { SecretLintCoreConfig } from '@secretlint/types';
import type { Redactor } from '../../src/shared/types.ts';
import { loadClean, loadPlanted } from '../../test/redact/corpus.ts';
import { seededRng } from '../../test/redact/secretGen.ts';

const TARGET_BYTES = 1024 * 1024;
const RUNS = 5;

interface Item {
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

/** One item per file, about 1 MB: 3/4 ordinary sources and clean files, 1/4 files with planted secrets. */
function buildItems(): { items: Item[]; bytes: number; planted: number } {
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
  return { items, bytes, planted };
}

const secretlintConfig: SecretLintCoreConfig = {
  rules: [{ id: '@secretlint/secretlint-rule-preset-recommend', rule: recommendedPreset }],
};

async function secretlintAlone(items: Item[]): Promise<number> {
  let findings = 0;
  for (const item of items) {
    const result = await lintSource({
      source: { content: item.text, filePath: item.path, contentType: 'text' },
      options: { config: secretlintConfig, maskSecrets: true },
    });
    findings += result.messages.length;
  }
  return findings;
}

let createRedactor: typeof import('../../src/redact/createRedactor.ts').createRedactor;

async function ours(items: Item[], redactor: Redactor): Promise<number> {
  let findings = 0;
  for (const item of items) findings += (await redactor.redact(item.text, { path: item.path })).findings.length;
  return findings;
}

function stats(samples: number[]): { median: number; min: number; max: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)]!, min: sorted[0]!, max: sorted.at(-1)! };
}

/**
 * CPU time (user + system) of this single-threaded work: on a machine shared
 * with other jobs it varies far less than wall time, which is printed too.
 */
async function time(fn: () => Promise<number>): Promise<{ ms: number; wallMs: number; findings: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const findings = await fn();
  const used = process.cpuUsage(cpu);
  return { ms: (used.user + used.system) / 1000, wallMs: performance.now() - started, findings };
}

const { items, bytes, planted } = buildItems();
console.log(
  `input: ${items.length} items, ${(bytes / 1024).toFixed(0)} KiB, ${planted} planted secrets; ${RUNS} runs each, alternating`,
);

// Phase 1, secretlint as shipped: its profiler records every rule run (our
// module silences it on import, so this phase runs before that import).
await secretlintAlone(items.slice(0, 50));
const shippedMs: number[] = [];
for (let run = 0; run < 2; run++) shippedMs.push((await time(() => secretlintAlone(items))).ms);
({ createRedactor } = await import('../../src/redact/createRedactor.ts'));

// Phase 2, alternating. Warm-up both (JIT, module loading) before measuring.
await ours(items.slice(0, 50), await createRedactor());
await secretlintAlone(items.slice(0, 50));

const oursMs: number[] = [];
const baseMs: number[] = [];
const oursWall: number[] = [];
const baseWall: number[] = [];
let oursFindings = 0;
let baseFindings = 0;
for (let run = 0; run < RUNS; run++) {
  const a = await time(() => secretlintAlone(items));
  // A fresh redactor per run (an empty cache, so every item is scanned), built before the clock starts.
  const redactor = await createRedactor();
  const b = await time(() => ours(items, redactor));
  baseMs.push(a.ms);
  oursMs.push(b.ms);
  baseWall.push(a.wallMs);
  oursWall.push(b.wallMs);
  baseFindings = a.findings;
  oursFindings = b.findings;
}
const o = stats(oursMs);
const s = stats(baseMs);
const ow = stats(oursWall);
const sw = stats(baseWall);
const shipped = stats(shippedMs);
const mbps = (ms: number) => (bytes / 1024 / 1024 / (ms / 1000)).toFixed(2);
const line = (name: string, cpu: ReturnType<typeof stats>, findings: number, wall?: ReturnType<typeof stats>) =>
  `${name} CPU median ${cpu.median.toFixed(1)} ms (min ${cpu.min.toFixed(1)}, max ${cpu.max.toFixed(1)}), ${mbps(cpu.median)} MiB/s` +
  `${wall ? `; wall median ${wall.median.toFixed(1)} ms` : ''}; ${findings} findings`;
console.log(line('secretlint preset, as shipped (profiler on):', shipped, baseFindings));
console.log(line('secretlint preset, profiler silenced:       ', s, baseFindings, sw));
console.log(line('ctxproxy redactor (ours + secretlint guard):', o, oursFindings, ow));
console.log(
  `ratio (CPU medians): ours is ${(s.median / o.median).toFixed(2)}x the speed of secretlint with its profiler silenced, ` +
    `${(shipped.median / o.median).toFixed(2)}x the speed of secretlint as shipped (target >= 2); ` +
    `ours finds ${oursFindings} vs ${baseFindings} (target: strictly more)`,
);

// Cache hit: the same item again, as on every turn of a conversation whose
// context did not change. CPU time per call (hash + lookup + copy of the findings).
const cached = await createRedactor();
for (const size of [4 * 1024, 32 * 1024]) {
  const text = items
    .map((i) => i.text)
    .join('\n')
    .slice(0, size);
  await cached.redact(text, { path: 'x.ts' });
  const perCall: number[] = [];
  for (let round = 0; round < 5; round++) {
    const cpu = process.cpuUsage();
    for (let i = 0; i < 500; i++) await cached.redact(text, { path: 'x.ts' });
    const used = process.cpuUsage(cpu);
    perCall.push((used.user + used.system) / 500);
  }
  const c = stats(perCall);
  console.log(
    `cache hit, ${size / 1024} KiB item: CPU median ${c.median.toFixed(1)} µs per call (min ${c.min.toFixed(1)}, max ${c.max.toFixed(1)}); target < 100 µs`,
  );
}
