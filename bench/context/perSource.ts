// Where a cold deep request's CPU goes, source by source: each source alone on a
// fresh source set (so it pays the shared listing or status it needs), then all
// of them together, in shuffled rounds; the process's CPU time (user + system,
// this process only: git's own CPU is not in it), median per source. With
// BENCH_BEFORE_SRC=<a copy of another revision's src/> that revision is measured
// instead (with its own never-read list). See README.md.

import path from 'node:path';
import { DEFAULT_NEVER_READ_FILE } from '../../src/redact/createRedactor.ts';
import * as loadRules from '../../src/redact/loadRules.ts';
import * as current from '../../src/sources/index.ts';
import { DEEP, inputFor, median, shuffledRounds, timed, type Variant } from './coldPlans.ts';
import { benchRepository, dirtyWorkTree } from './generateRepo.ts';

type Sources = Pick<typeof current, 'createSourceSet' | 'defaultSourceDeps'>;

const RUNS = Number(process.env.BENCH_COLD_RUNS ?? 21);
const src = process.env.BENCH_BEFORE_SRC;
const sources = (src ? await import(path.resolve(src, 'sources/index.ts')) : current) as Sources;
const rules = (src ? await import(path.resolve(src, 'redact/loadRules.ts')) : loadRules) as typeof loadRules;
const isNeverRead = rules.loadNeverRead(DEFAULT_NEVER_READ_FILE);

const workspace = await benchRepository();
dirtyWorkTree(workspace);

const NAMES = ['tree', 'git', 'stats', 'instructions', 'files', 'manifests', 'env', 'stacktrace', 'symbols'];
const cold = (only: string | undefined) => async () => {
  const set = sources.createSourceSet(sources.defaultSourceDeps({ watchWorkTree: false, isNeverRead }));
  const chosen = set.sources.filter((source) => only === undefined || source.name === only);
  const signal = new AbortController().signal;
  const timing = await timed(() =>
    Promise.all(chosen.map((source) => source.collect(inputFor(workspace, DEEP), signal))),
  );
  set.close();
  return timing;
};
const variants: Variant[] = [
  ...NAMES.map((name) => ({ label: name, run: cold(name) })),
  { label: 'all (deep)', run: cold(undefined) },
];
const results = await shuffledRounds(variants, RUNS);
console.log(`process CPU per cold collection, ${src ? `before (${src})` : 'this revision'}, ${RUNS} rounds:`);
for (const [i, variant] of variants.entries()) {
  const cpu = (results[i] ?? []).map((t) => t.cpu);
  const ms = (results[i] ?? []).map((t) => t.ms);
  console.log(
    `  ${variant.label.padEnd(13)} CPU ${median(cpu).toFixed(1).padStart(6)} ms   (wall ${median(ms).toFixed(0)} ms)`,
  );
}
