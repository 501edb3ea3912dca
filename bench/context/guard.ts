// What the file guard (src/sources/workspace/guard.ts) costs where it reads the most:
// the stats source's 300 sampled files of the bench repository. Baseline, in
// the same run and interleaved: the same reads without the guard (the
// never-read check by name, then a bounded read), as the stats source did.
//
//   node --import tsx bench/context/guard.ts

import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { DEFAULT_NEVER_READ_FILE } from '../../src/redact/createRedactor.ts';
import { loadNeverRead } from '../../src/redact/loadRules.ts';
import { FileGuard, workspaceZone } from '../../src/sources/workspace/guard.ts';
import { readTextIfFile } from '../../src/sources/workspace/syncRead.ts';
import { benchRepository } from './generateRepo.ts';

const RUNS = Number(process.env.BENCH_GUARD_RUNS ?? 41);
const SAMPLE = 300;

const root = await benchRepository();
const listed = execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
const code = listed.split('\n').filter((file) => /\.(ts|py|go)$/.test(file));
const sample = Array.from({ length: SAMPLE }, (_, i) => code[Math.floor((i * code.length) / SAMPLE)] as string);
const isNeverRead = loadNeverRead(DEFAULT_NEVER_READ_FILE);
const zone = workspaceZone(root, []);
const options = { maxBytes: 64 * 1024, skipLarger: true };

const baseline = () => {
  for (const file of sample) if (!isNeverRead(file)) readTextIfFile(path.join(root, file), options);
};
const guarded = () => {
  // One guard per collection run, as the sources make them.
  const guard = new FileGuard(isNeverRead);
  for (const file of sample) guard.read(path.join(root, file), zone, [file], options);
};

const time = (fn: () => void) => {
  const start = performance.now();
  fn();
  return performance.now() - start;
};
const base: number[] = [];
const ours: number[] = [];
for (let i = 0; i < RUNS; i++) {
  if (i % 2 === 0) {
    base.push(time(baseline));
    ours.push(time(guarded));
  } else {
    ours.push(time(guarded));
    base.push(time(baseline));
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
console.log(`${SAMPLE} sampled files, ${RUNS} interleaved runs`);
console.log(`  unguarded median ${median(base).toFixed(1)} ms`);
console.log(`  guarded   median ${median(ours).toFixed(1)} ms`);
console.log(`  guarded / unguarded = ${(median(ours) / median(base)).toFixed(2)}x`);
