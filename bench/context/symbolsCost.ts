// What the symbols source adds to a cold deep request: the deep plan with and
// without the symbols entries and the git floor of run.ts, interleaved in a
// shuffled order per round so load drift hits all of them. With
// BENCH_BEFORE_SRC=<a copy of another revision's src/> the deep plan of that
// revision runs in the same rounds (a before/after in one process). See README.md.

import { execFile } from 'node:child_process';
import path from 'node:path';
import { DEFAULT_NEVER_READ_FILE } from '../../src/redact/createRedactor.ts';
import { loadNeverRead } from '../../src/redact/loadRules.ts';
import * as current from '../../src/sources/index.ts';
import { DEEP, DEEP_COMMANDS as FLOOR, inputFor, median } from './coldPlans.ts';
import { benchRepository, dirtyWorkTree } from './generateRepo.ts';

type Sources = Pick<typeof current, 'createSourceSet' | 'defaultSourceDeps'>;

const RUNS = Number(process.env.BENCH_COLD_RUNS ?? 21);
const isNeverRead = loadNeverRead(DEFAULT_NEVER_READ_FILE);

const cpuMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

const workspace = await benchRepository();
dirtyWorkTree(workspace);
const input = (wanted: string[]) => inputFor(workspace, wanted);

/** A fresh source set (empty memos, no watcher), every source in parallel: wall and process CPU time. */
const cold = (sources: Sources, wanted: string[]) => async () => {
  const set = sources.createSourceSet(sources.defaultSourceDeps({ watchWorkTree: false, isNeverRead }));
  const signal = new AbortController().signal;
  const cpu = cpuMs();
  const start = performance.now();
  await Promise.all(set.sources.map((source) => source.collect(input(wanted), signal)));
  const ms = performance.now() - start;
  set.close();
  return { ms, cpu: cpuMs() - cpu };
};
const floor = async () => {
  const cpu = cpuMs();
  const start = performance.now();
  await Promise.all(
    FLOOR.map(
      (args) =>
        new Promise<void>((resolve, reject) =>
          execFile('git', args, { cwd: workspace, maxBuffer: 64 * 1024 * 1024 }, (e) => (e ? reject(e) : resolve())),
        ),
    ),
  );
  return { ms: performance.now() - start, cpu: cpuMs() - cpu };
};

const variants: Array<{ label: string; run: () => Promise<{ ms: number; cpu: number }> }> = [
  { label: 'deep', run: cold(current, DEEP) },
  {
    label: 'deep without symbols',
    run: cold(
      current,
      DEEP.filter((key) => !key.startsWith('symbols.')),
    ),
  },
];
if (process.env.BENCH_BEFORE_SRC) {
  const before = (await import(path.resolve(process.env.BENCH_BEFORE_SRC, 'sources/index.ts'))) as Sources;
  variants.push({ label: 'deep, before', run: cold(before, DEEP) });
}
variants.push({ label: 'floor', run: floor });

const results = variants.map(() => ({ ms: [] as number[], cpu: [] as number[] }));
for (const variant of variants) await variant.run(); // warms the JIT and the file cache: not counted
for (let round = 0; round < RUNS; round++) {
  const order = variants.map((_, i) => i).sort(() => Math.random() - 0.5);
  for (const i of order) {
    const { ms, cpu } = await variants[i]!.run();
    results[i]!.ms.push(ms);
    results[i]!.cpu.push(cpu);
  }
}
const floorMs = results.at(-1)!.ms;
for (const [i, variant] of variants.entries()) {
  const { ms, cpu } = results[i]!;
  const ratio = median(ms) / median(floorMs);
  const perRun = median(ms.map((m, r) => m / (floorMs[r] ?? m)));
  console.log(
    `${variant.label.padEnd(22)} median ${median(ms).toFixed(0).padStart(5)} ms, ${ratio.toFixed(2)}x the floor (per-run ratio median ${perRun.toFixed(2)}), process CPU ${median(cpu).toFixed(0)} ms`,
  );
}
