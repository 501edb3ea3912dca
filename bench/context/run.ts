// Context collection benchmark: cold collection against running the same git
// commands directly in parallel (the floor, measured in the same run), and warm
// collection with nothing changed. See README.md.

import { execFile } from 'node:child_process';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { simpleGit } from 'simple-git';
import { createRedactor, DEFAULT_NEVER_READ_FILE } from '../../src/redact/createRedactor.ts';
import { loadNeverRead } from '../../src/redact/loadRules.ts';
import type { CollectInput, ContextItem, ContextSource } from '../../src/shared/types.ts';
import {
  createSourceSet,
  defaultSourceDeps,
  gitOverridesAllowed,
  type SourceOptions,
} from '../../src/sources/index.ts';
import { sharedParseHost } from '../../src/sources/symbols/parseHost.ts';
import { defaultRepoMapOptions, repoMap } from '../../src/sources/symbols/repoMap.ts';
import { SymbolIndex } from '../../src/sources/symbols/symbolIndex.ts';
import {
  DEEP,
  DEEP_COMMANDS,
  GIT_AWARE,
  GIT_AWARE_COMMANDS,
  inputFor,
  median,
  runFloor,
  shuffledRounds,
  type Timing,
  timed,
  type Variant,
} from './coldPlans.ts';
import { benchRepository, dirtyWorkTree } from './generateRepo.ts';

const isNeverRead = loadNeverRead(DEFAULT_NEVER_READ_FILE);

const COLD_RUNS = Number(process.env.BENCH_COLD_RUNS ?? 21);
const WARM_RUNS = Number(process.env.BENCH_WARM_RUNS ?? 500);

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0;
};
const spread = (xs: number[]) => `p10 ${quantile(xs, 0.1).toFixed(1)} – p90 ${quantile(xs, 0.9).toFixed(1)}`;

async function collectAll(sources: ContextSource[], input: CollectInput): Promise<ContextItem[]> {
  const signal = new AbortController().signal;
  const results = await Promise.all(sources.map((s) => s.collect(input, signal)));
  return results.flatMap((r) => r.items);
}

/**
 * Redaction's share of a cold deep request: collection as above, then every collected item's text
 * and title redacted as the pipeline's redact stage does it, by a fresh redactor (empty result
 * cache; built and warmed before the clock starts, as the server warms its rules after start).
 */
async function redactionShare(workspace: string) {
  const collectMs: number[] = [];
  const redactMs: number[] = [];
  let chars = 0;
  let findings = 0;
  for (let i = 0; i <= COLD_RUNS; i++) {
    const set = createSourceSet(defaultSourceDeps({ watchWorkTree: false, isNeverRead }));
    let items: ContextItem[] = [];
    const collected = await timeIt(async () => {
      items = await collectAll(set.sources, inputFor(workspace, DEEP));
    });
    set.close();
    const redactor = await createRedactor({ warm: true });
    await redactor.warmedUp;
    chars = items.reduce((n, item) => n + item.text.length, 0);
    const redacted = await timeIt(async () => {
      const results = await Promise.all(
        items.flatMap((item) => [
          redactor.redact(item.text, { path: item.path }),
          redactor.redact(item.title, { path: item.path }),
        ]),
      );
      findings = results.reduce((n, r) => n + r.findings.length, 0);
    });
    // The first round warms the JIT and the file cache: not counted.
    if (i === 0) continue;
    collectMs.push(collected);
    redactMs.push(redacted);
  }
  const shares = redactMs.map((ms, i) => ms / (ms + collectMs[i]!));
  console.log(
    `deep: redaction's share of a cold request (collection + redaction of what it collected) = ${(100 * median(shares)).toFixed(1)} % (${spread(shares.map((r) => 100 * r))}; target <= 10 %)`,
  );
  console.log(
    `  redaction median ${median(redactMs).toFixed(1)} ms (${spread(redactMs)}) for ${chars.toLocaleString('en')} characters, ${findings} findings; collection median ${median(collectMs).toFixed(1)} ms`,
  );
}

const timeIt = async (fn: () => Promise<unknown>) => (await timed(fn)).ms;

/** A fresh source set (empty memos, no watcher), every source in parallel: exactly what a first request pays. */
const coldRun =
  (workspace: string, wanted: string[], options: SourceOptions = {}) =>
  async (): Promise<Timing> => {
    const set = createSourceSet(defaultSourceDeps({ watchWorkTree: false, isNeverRead }), options);
    const timing = await timed(() => collectAll(set.sources, inputFor(workspace, wanted)));
    set.close();
    return timing;
  };

/**
 * Every cold row and both floors in the same shuffled rounds (coldPlans.ts): a row's
 * ratio pairs each of its runs with its floor's run of the same round.
 */
async function compareCold(workspace: string) {
  const floors = { gitAware: 'git-aware floor', deep: 'deep floor' };
  const rows: Array<Variant & { floor?: string; commands?: number }> = [
    { label: 'git-aware', run: coldRun(workspace, GIT_AWARE), floor: floors.gitAware },
    { label: 'deep', run: coldRun(workspace, DEEP), floor: floors.deep },
    // What the symbols source adds to a cold request.
    {
      label: 'deep without symbols',
      run: coldRun(
        workspace,
        DEEP.filter((key) => !key.startsWith('symbols.')),
      ),
      floor: floors.deep,
    },
    // A server that has just started: the symbol index is building in the background while the first question runs.
    {
      label: 'deep, index building since start',
      run: coldRun(workspace, DEEP, { warmWorkspace: workspace }),
      floor: floors.deep,
    },
    { label: floors.gitAware, run: () => runFloor(workspace, GIT_AWARE_COMMANDS), commands: GIT_AWARE_COMMANDS.length },
    { label: floors.deep, run: () => runFloor(workspace, DEEP_COMMANDS), commands: DEEP_COMMANDS.length },
  ];
  const results = await shuffledRounds(rows, COLD_RUNS);
  const msOf = (label: string) => (results[rows.findIndex((row) => row.label === label)] ?? []).map((t) => t.ms);
  for (const [i, row] of rows.entries()) {
    if (row.floor === undefined) continue;
    const ours = (results[i] ?? []).map((t) => t.ms);
    const floorRow = rows.find((r) => r.label === row.floor);
    const floor = msOf(row.floor);
    const ratios = ours.map((ms, r) => ms / (floor[r] ?? ms));
    console.log(`${row.label}: cold collection / git floor = ${(median(ours) / median(floor)).toFixed(2)}x`);
    const cpu = (results[i] ?? []).map((t) => t.cpu);
    console.log(
      `  ours   median ${median(ours).toFixed(1)} ms (${spread(ours)}), process CPU median ${median(cpu).toFixed(0)} ms`,
    );
    console.log(
      `  floor  median ${median(floor).toFixed(1)} ms (${spread(floor)})  [${floorRow?.commands} git commands in parallel]`,
    );
    console.log(`  per-run ratio median ${median(ratios).toFixed(2)} (${spread(ratios)})`);
  }
}

/** The symbol index built from nothing (what the server does at start), its memory, and the map's ranking. */
async function symbolIndexCold(workspace: string) {
  v8.setFlagsFromString('--expose_gc');
  const gc = runInNewContext('gc') as () => void;
  const listing = await new Promise<string[]>((resolve, reject) =>
    execFile(
      'git',
      ['ls-files', '-co', '--exclude-standard'],
      { cwd: workspace, maxBuffer: 64 * 1024 * 1024 },
      (e, out) => (e ? reject(e) : resolve(out.trim().split('\n'))),
    ),
  );
  gc();
  const before = process.memoryUsage();
  const index = new SymbolIndex(workspace, isNeverRead, []);
  const start = performance.now();
  await index.ensure('cold', async () => listing);
  const buildMs = performance.now() - start;
  const atEnd = process.memoryUsage().rss;
  // The parse worker exits once idle (5 s after its last batch); what stays is the index and what the reads left.
  const host = sharedParseHost();
  while (host.running) await new Promise((resolve) => setTimeout(resolve, 100));
  gc();
  const after = process.memoryUsage();
  const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
  const state = index.state();
  console.log(
    `symbol index, cold build: ${(buildMs / 1000).toFixed(1)} s for ${state.indexed} files (${state.listed} parseable listed; ${(buildMs / Math.max(1, state.indexed)).toFixed(2)} ms per file; read here in slices of at most 8 ms, parsed in the worker)`,
  );
  console.log(
    `  memory retained once the worker exited: heap ${mb(after.heapUsed - before.heapUsed)} MB, wasm and buffers ${mb(after.external + after.arrayBuffers - before.external - before.arrayBuffers)} MB, rss +${mb(after.rss - before.rss)} MB (+${mb(atEnd - before.rss)} MB at the build's end, worker included)`,
  );
  const rankStart = performance.now();
  // Inline (no pool): the ranking's own cost, which a server pays in its CPU pool.
  const map = await repoMap(
    { tables: index.tables, definitions: (rel) => index.definitionsOf(rel).map(() => undefined) },
    defaultRepoMapOptions,
    undefined,
  );
  console.log(`  repository map ranking: ${(performance.now() - rankStart).toFixed(0)} ms (${map.files} files shown)`);
  const again = performance.now();
  await index.ensure('nothing changed', async () => listing);
  console.log(`  rebuild with nothing changed (a stat per file): ${(performance.now() - again).toFixed(0)} ms`);
  index.close();
}

async function warm(workspace: string) {
  let processes = 0;
  const deps = defaultSourceDeps({
    isNeverRead,
    git: (baseDir) =>
      simpleGit({
        baseDir,
        unsafe: gitOverridesAllowed,
        completion: { onClose: true, onExit: false },
        errors: (error) => {
          processes++;
          return error;
        },
      }),
  });
  const set = createSourceSet(deps);
  const input = inputFor(workspace, DEEP);
  await collectAll(set.sources, input);
  await set.ready(workspace);
  // The server builds the symbol index at start; the warm figure is for a server past that.
  await set.warm(workspace);
  await collectAll(set.sources, input);
  // The repository map of a large repository is ranked after the request that found it stale.
  await new Promise((resolve) => setImmediate(resolve));
  await collectAll(set.sources, input);
  const before = processes;
  const times: number[] = [];
  for (let i = 0; i < WARM_RUNS; i++) times.push(await timeIt(() => collectAll(set.sources, input)));
  set.close();
  console.log(
    `warm (deep, nothing changed): median ${median(times).toFixed(3)} ms (${spread(times.map((t) => t))}, ${WARM_RUNS} runs)`,
  );
  console.log(`  git processes spawned during warm runs: ${processes - before}`);
}

// The index builds on timers that do not keep a process alive (a stopped server exits at once): this one must wait.
const keepAlive = setInterval(() => undefined, 1_000);
const t0 = performance.now();
const workspace = await benchRepository();
console.log(
  `repository: ${workspace} (20,000 files, 2,000 commits; ready in ${((performance.now() - t0) / 1000).toFixed(1)} s)`,
);
dirtyWorkTree(workspace);
// First, while the process is fresh, so the memory figures are the index's own.
await symbolIndexCold(workspace);
await compareCold(workspace);
await redactionShare(workspace);
await warm(workspace);
clearInterval(keepAlive);
