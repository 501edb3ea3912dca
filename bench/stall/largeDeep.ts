// A deep request on a large repository whose symbol index is built: the
// longest main-thread CPU between two turns (mainThreadCpu.ts) during the
// request and in the seconds after it, while the repository map is ranked
// again (the question names a file changed before each round, so the index
// changes and the map is stale). With BENCH_BEFORE_SRC=<a copy of another
// revision's src/> that revision runs in the same process, rounds interleaved.
// See README.md next to this file.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { analyseQuestion } from '../../src/shared/question.ts';
import type { CollectInput } from '../../src/shared/types.ts';
import * as current from '../../src/sources/index.ts';
import { DEEP, median } from '../context/coldPlans.ts';
import { meterCpuGaps } from './mainThreadCpu.ts';

type Sources = Pick<typeof current, 'createSourceSet' | 'defaultSourceDeps'>;

const FILES = Number(process.env.BENCH_FILES ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
/** How long after each request the meter keeps reading (the map is ranked after a large repository's request). */
const AFTER_MS = Number(process.env.BENCH_AFTER_MS ?? 5_000);
const DEFS = 10;
const CALLS = 4;

/** `FILES` TypeScript files of ten functions each, every function calling four of other files: a graph to rank. */
function repository(): string {
  const dir = path.join(os.tmpdir(), `ctxproxy-bench-stall-map-${FILES}-v1`);
  const marker = path.join(dir, '.git', 'ctxproxy-bench-ready');
  if (fs.existsSync(marker)) return dir;
  fs.rmSync(dir, { recursive: true, force: true });
  for (let i = 0; i < FILES; i++) {
    const lines: string[] = [];
    for (let d = 0; d < DEFS; d++) {
      const calls = Array.from({ length: CALLS }, (_, c) => {
        // Skewed: low-numbered files are called far more often, as a core module is.
        const j = Math.floor(((i * 7919 + d * 131 + c * 977) % FILES) ** 2 / FILES);
        return `fn${j}_${(d + c) % DEFS}(x)`;
      });
      lines.push(`export function fn${i}_${d}(x: number): number {`, `  return ${calls.join(' + ')};`, '}', '');
    }
    const rel = path.join(dir, `pkg${i % 50}`, `mod${i}.ts`);
    fs.mkdirSync(path.dirname(rel), { recursive: true });
    fs.writeFileSync(rel, lines.join('\n'));
  }
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, maxBuffer: 1 << 28 });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('-c', 'user.name=bench', '-c', 'user.email=bench@example.test', 'commit', '-q', '-m', 'init');
  fs.writeFileSync(marker, new Date().toISOString());
  return dir;
}

const workspace = repository();
const named = 'pkg7/mod7.ts';
const text = `Summarise this repository; why does ${named} fail?`;
const input: CollectInput = {
  workspace,
  messages: [{ role: 'user', content: text }],
  lastUserText: text,
  question: analyseQuestion([{ role: 'user', content: text }]),
  mode: 'deep',
  wanted: DEEP,
  now: new Date(),
};

const { DEFAULT_NEVER_READ_FILE } = await import('../../src/redact/createRedactor.ts');
const { loadNeverRead } = await import('../../src/redact/loadRules.ts');

interface Variant {
  label: string;
  set: ReturnType<Sources['createSourceSet']>;
  request: number[];
  after: number[];
  map: number[];
}

async function variant(label: string, sources: Sources, neverRead = loadNeverRead(DEFAULT_NEVER_READ_FILE)) {
  const set = sources.createSourceSet(sources.defaultSourceDeps({ watchWorkTree: false, isNeverRead: neverRead }));
  const started = performance.now();
  await set.warm(workspace);
  console.log(`${label}: symbol index built in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return { label, set, request: [], after: [], map: [] } as Variant;
}

// The index's background build holds nothing alive (a server's listening socket does): this does, until the end.
const alive = setInterval(() => undefined, 1_000);
const variants = [await variant('after', current)];
if (process.env.BENCH_BEFORE_SRC) {
  const src = process.env.BENCH_BEFORE_SRC;
  const before = (await import(path.resolve(src, 'sources/index.ts'))) as Sources;
  const rules = (await import(path.resolve(src, 'redact/loadRules.ts'))) as { loadNeverRead: typeof loadNeverRead };
  variants.unshift(await variant('before', before, rules.loadNeverRead(DEFAULT_NEVER_READ_FILE)));
}

const signal = new AbortController().signal;
for (let round = 0; round < ROUNDS; round++) {
  for (const v of variants) {
    fs.appendFileSync(path.join(workspace, named), `// round ${round} ${v.label}\n`);
    (globalThis as { gc?: () => void }).gc?.();
    const meter = meterCpuGaps();
    const results = await Promise.all(v.set.sources.map((source) => source.collect(input, signal)));
    const during = meter.stop() ?? 0;
    const hasMap = results.some((result) => result.items.some((item) => item.key === 'symbols.map'));
    const later = meterCpuGaps();
    await new Promise((resolve) => setTimeout(resolve, AFTER_MS));
    const after = later.stop() ?? 0;
    v.request.push(during);
    v.after.push(after);
    v.map.push(hasMap ? 1 : 0);
    console.log(
      `round ${round} ${v.label.padEnd(6)} longest main-thread CPU: request ${during.toFixed(0)} ms, next ${AFTER_MS / 1000} s ${after.toFixed(0)} ms (map in the answer: ${hasMap})`,
    );
  }
}
execFileSync('git', ['checkout', '-q', '--', named], { cwd: workspace });
for (const v of variants) {
  v.set.close();
  console.log(
    `${v.label.padEnd(6)} median of ${ROUNDS}: request ${median(v.request).toFixed(0)} ms, after ${median(v.after).toFixed(0)} ms; max ${Math.max(...v.request, ...v.after).toFixed(0)} ms`,
  );
}
clearInterval(alive);
process.exit(0);
