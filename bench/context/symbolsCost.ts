// What the symbols source adds to a cold deep request: the deep plan with and
// without the symbols entries and the git floor of run.ts, interleaved in a
// shuffled order per round so load drift hits all of them. With
// BENCH_BEFORE_SRC=<a copy of another revision's src/> the deep plan of that
// revision runs in the same rounds (a before/after in one process). The git-aware
// plan runs beside them against its own floor (its five commands). See README.md.

import path from 'node:path';
import { DEFAULT_NEVER_READ_FILE } from '../../src/redact/createRedactor.ts';
import { loadNeverRead } from '../../src/redact/loadRules.ts';
import * as current from '../../src/sources/index.ts';
import {
  DEEP,
  DEEP_COMMANDS,
  GIT_AWARE,
  GIT_AWARE_COMMANDS,
  inputFor,
  median,
  runFloor,
  shuffledRounds,
  timed,
  type Variant,
} from './coldPlans.ts';
import { benchRepository, dirtyWorkTree } from './generateRepo.ts';

type Sources = Pick<typeof current, 'createSourceSet' | 'defaultSourceDeps'>;

const RUNS = Number(process.env.BENCH_COLD_RUNS ?? 21);
const isNeverRead = loadNeverRead(DEFAULT_NEVER_READ_FILE);

const workspace = await benchRepository();
dirtyWorkTree(workspace);

/** A fresh source set (empty memos, no watcher), every source in parallel: wall and process CPU time. */
const cold =
  (sources: Sources, wanted: string[], neverRead = isNeverRead) =>
  async () => {
    const set = sources.createSourceSet(sources.defaultSourceDeps({ watchWorkTree: false, isNeverRead: neverRead }));
    const signal = new AbortController().signal;
    const timing = await timed(() =>
      Promise.all(set.sources.map((source) => source.collect(inputFor(workspace, wanted), signal))),
    );
    set.close();
    return timing;
  };

const variants: Array<Variant & { floor: string }> = [
  { label: 'deep', run: cold(current, DEEP), floor: 'floor' },
  {
    label: 'deep without symbols',
    run: cold(
      current,
      DEEP.filter((key) => !key.startsWith('symbols.')),
    ),
    floor: 'floor',
  },
  { label: 'git-aware', run: cold(current, GIT_AWARE), floor: 'git-aware floor' },
];
if (process.env.BENCH_BEFORE_SRC) {
  const src = process.env.BENCH_BEFORE_SRC;
  const before = (await import(path.resolve(src, 'sources/index.ts'))) as Sources;
  // That revision's never-read list too: the sources ask it for every file they open.
  const rules = (await import(path.resolve(src, 'redact/loadRules.ts'))) as { loadNeverRead: typeof loadNeverRead };
  const neverRead = rules.loadNeverRead(DEFAULT_NEVER_READ_FILE);
  variants.push({ label: 'deep, before', run: cold(before, DEEP, neverRead), floor: 'floor' });
  variants.push({ label: 'git-aware, before', run: cold(before, GIT_AWARE, neverRead), floor: 'git-aware floor' });
}
variants.push({ label: 'floor', run: () => runFloor(workspace, DEEP_COMMANDS), floor: 'floor' });
variants.push({
  label: 'git-aware floor',
  run: () => runFloor(workspace, GIT_AWARE_COMMANDS),
  floor: 'git-aware floor',
});

const results = await shuffledRounds(variants, RUNS);
for (const [i, variant] of variants.entries()) {
  const floorMs = (results[variants.findIndex((v) => v.label === variant.floor)] ?? []).map((t) => t.ms);
  const ms = (results[i] ?? []).map((t) => t.ms);
  const cpu = (results[i] ?? []).map((t) => t.cpu);
  const ratio = median(ms) / median(floorMs);
  const perRun = median(ms.map((m, r) => m / (floorMs[r] ?? m)));
  console.log(
    `${variant.label.padEnd(22)} median ${median(ms).toFixed(0).padStart(5)} ms, ${ratio.toFixed(2)}x the floor (per-run ratio median ${perRun.toFixed(2)}), process CPU ${median(cpu).toFixed(0)} ms`,
  );
}
