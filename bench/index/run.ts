// Speed of retrieval's persistent index (src/sources/retrieval/index/) on a
// generated 50,000-file repository, against a floor measured in the same run
// (`git grep -w` of the same terms, spawned directly). See README.md.
//
//   node --expose-gc --import tsx bench/index/run.ts
//
// Environment: BENCH_INDEX_FILES (default 50000), BENCH_INDEX_WARM (warm searches, default 200),
// BENCH_INDEX_SYMBOLS=1 (the symbol index is built too, as a server does at start, and warmed after the restart).

import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { openIndexDatabase } from '../../src/pipeline/indexDatabase.ts';
import { DEFAULT_NEVER_READ_FILE } from '../../src/redact/createRedactor.ts';
import { loadNeverRead } from '../../src/redact/loadRules.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import { analyseQuestion } from '../../src/shared/question.ts';
import type { CollectInput, SourceResult } from '../../src/shared/types.ts';
import { createSourceSet, defaultSourceDeps } from '../../src/sources/index.ts';
import { sharedParseHost } from '../../src/sources/symbols/parseHost.ts';
import { benchRepository } from '../context/generateRepo.ts';
import { quantile } from '../support/stats.ts';

const FILES = Number(process.env.BENCH_INDEX_FILES ?? 50_000);
const WARM = Number(process.env.BENCH_INDEX_WARM ?? 200);
const SYMBOLS = process.env.BENCH_INDEX_SYMBOLS === '1';
const isNeverRead = loadNeverRead(DEFAULT_NEVER_READ_FILE);

const gc = () => (globalThis as { gc?: () => void }).gc?.();
const rssMb = () => {
  gc();
  gc();
  return process.memoryUsage().rss / 1024 / 1024;
};
/** The highest RSS seen (every 100 ms, no GC) while it runs: what the system gives the process at the worst moment. */
function rssPeak(): { stop: () => number } {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 100);
  return {
    stop: () => {
      clearInterval(timer);
      return Math.max(peak, process.memoryUsage().rss) / 1024 / 1024;
    },
  };
}
/** RSS once the parse worker has exited (it lingers 5 s after its last batch), at most 15 s later. */
async function rssAtRest(): Promise<number> {
  for (let waited = 0; sharedParseHost().running && waited < 15_000; waited += 100) await sleep(100);
  await sleep(500);
  return rssMb();
}
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const fmt = (x: number) => (x >= 100 ? x.toFixed(0) : x.toFixed(2));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function newSet() {
  const deps = defaultSourceDeps({
    isNeverRead,
    watchWorkTree: true,
    logger: silentLogger,
    openIndex: (root) => openIndexDatabase(root, silentLogger),
  });
  return createSourceSet(deps);
}

function question(workspace: string, text: string): CollectInput {
  const messages = [{ role: 'user' as const, content: text }];
  return {
    workspace,
    messages,
    lastUserText: text,
    question: analyseQuestion(messages),
    mode: 'git-aware',
    wanted: ['retrieval.'],
    now: new Date(),
  };
}

/** The floor of a restart: git's own look at every file (its index's stat cache, in C), spawned directly. */
function gitStatus(dir: string): Promise<number> {
  const start = performance.now();
  return new Promise((resolve) => {
    execFile('git', ['status', '--porcelain', '-z'], { cwd: dir, maxBuffer: 64 * 1024 * 1024 }, () =>
      resolve(performance.now() - start),
    );
  });
}

function gitGrep(dir: string, term: string): Promise<number> {
  const start = performance.now();
  return new Promise((resolve) => {
    execFile(
      'git',
      ['grep', '-n', '-I', '--untracked', '--exclude-standard', '-F', '-w', '--max-count=20', '-e', term],
      { cwd: dir, maxBuffer: 64 * 1024 * 1024 },
      () => resolve(performance.now() - start),
    );
  });
}

/**
 * The machine's floor in the same moments: a sibling process that does nothing but measure its own
 * event-loop delay (at the same resolution) while the build runs. Its max is what scheduling alone costs.
 */
function siblingDelay(): { stop: () => Promise<{ max: number; p99: number }> } {
  const code = `const h = require('node:perf_hooks').monitorEventLoopDelay({ resolution: 5 }); h.enable();
const keep = setInterval(() => {}, 1000);
process.stdin.on('data', () => {}).on('end', () => { h.disable(); clearInterval(keep);
process.stdout.write(JSON.stringify({ max: h.max / 1e6, p99: h.percentile(99) / 1e6 })); });`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (data) => {
    out += data;
  });
  return {
    stop: () =>
      new Promise((resolve) => {
        child.once('close', () => resolve(JSON.parse(out || '{"max":0,"p99":0}')));
        child.stdin.end();
      }),
  };
}

/**
 * BENCH_INDEX_LATE=FILE: the turns of the event loop that came over 100 ms late during the build, written as
 * [end in µs of the monotonic clock, lateness in ms]: the same clock as a --cpu-prof profile's samples, so
 * bench/index/lateTurns.ts can say what ran in each.
 */
function lateTurns(): { stop: () => void } {
  const file = process.env.BENCH_INDEX_LATE;
  if (!file) return { stop: () => undefined };
  const turns: [number, number][] = [];
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    if (now - last > 110) turns.push([Number(process.hrtime.bigint() / 1000n), now - last - 10]);
    last = now;
  }, 10);
  return {
    stop: () => {
      clearInterval(timer);
      fs.writeFileSync(file, JSON.stringify(turns));
    },
  };
}

const indexNote = (result: SourceResult) => result.skipped?.find((entry) => entry.path === '(retrieval index)')?.reason;

async function main(): Promise<void> {
  const dir = await benchRepository({ files: FILES, commits: 200 });
  // BENCH_INDEX_KEEP=1: keep the index a previous run built (skips the first build, a minute or more).
  const keep = process.env.BENCH_INDEX_KEEP === '1' && fs.existsSync(path.join(dir, '.ctxproxy', 'index.db'));
  if (!keep) fs.rmSync(path.join(dir, '.ctxproxy'), { recursive: true, force: true });
  console.log(`repository: ${dir} (${FILES} files)${keep ? ', stored index kept' : ''}`);
  const results: [string, string, string][] = [];

  // 1. The first build, in the background, while requests come every 200 ms. The RSS baseline is taken with
  // the work-tree listing already held (tree, stats and the symbol index hold it in any server).
  let set = newSet();
  const rssBare = rssMb();
  await set.ready(dir);
  const rssBefore = rssMb();
  let retrieval = set.sources.find((source) => source.name === 'retrieval');
  if (!retrieval) throw new Error('no retrieval source');
  // Floor: the event loop's longest delay in this process while it does nothing (the machine's scheduling).
  const idle = monitorEventLoopDelay({ resolution: 5 });
  idle.enable();
  await sleep(3_000);
  idle.disable();
  const idleMax = idle.max / 1e6;
  console.log(`floor: event loop max delay of this process idle for 3 s: ${fmt(idleMax)} ms`);
  const lag = monitorEventLoopDelay({ resolution: 5 });
  const late = lateTurns();
  const sibling = siblingDelay();
  lag.enable();
  const buildPeak = rssPeak();
  const buildStart = performance.now();
  void set.ready(dir);
  let index = set.index(dir);
  if (!index) throw new Error('no index');
  const building = SYMBOLS ? Promise.all([index.warm(), set.warm(dir)]).then(() => undefined) : index.warm();
  let done = false;
  void building.then(() => {
    done = true;
  });
  const duringBuild: number[] = [];
  const prepareWaits: number[] = [];
  let graded = 0;
  for (let k = 0; !done; k++) {
    await sleep(200);
    if (done) break;
    const t0 = performance.now();
    const ready = await index.prepare();
    prepareWaits.push(performance.now() - t0);
    const result = await retrieval.collect(
      question(dir, `Where is helper${k % 50} used?`),
      AbortSignal.timeout(10_000),
    );
    duringBuild.push(performance.now() - t0);
    if (!ready && indexNote(result)) graded++;
  }
  await building;
  const buildMs = performance.now() - buildStart;
  const rssBuildPeak = buildPeak.stop();
  lag.disable();
  const floorNow = await sibling.stop();
  late.stop();
  const lagMax = lag.max / 1e6;
  const lagP99 = lag.percentile(99) / 1e6;
  const counts = index.store.counts();
  const dbBytes = fs
    .readdirSync(path.join(dir, '.ctxproxy'))
    .filter((name) => name.startsWith('index.db'))
    .reduce((sum, name) => sum + fs.statSync(path.join(dir, '.ctxproxy', name)).size, 0);
  const rssBuilt = rssMb();
  const rssBuiltRest = await rssAtRest();
  console.log(
    `${keep ? 'catch-up of the kept index' : 'first build'}: ${fmt(buildMs)} ms for ${counts.indexed} files (${counts.skipped} skipped), index ${fmt(dbBytes / 1024 / 1024)} MB on disk`,
  );
  console.log(
    `  ${duringBuild.length} requests during the build: prepare waited max ${fmt(Math.max(0, ...prepareWaits))} ms; whole retrieval max ${fmt(Math.max(0, ...duringBuild))} ms; ${graded} answered by git grep with the note`,
  );
  console.log(
    `  the index's longest step on the event loop: ${fmt(index.progress().longestStepMs)} ms (CPU ${fmt(index.progress().longestStepCpuMs)} ms)`,
  );
  results.push([
    'no request waits > 300 ms for the build',
    `event loop max delay ${fmt(lagMax)} ms, p99 ${fmt(lagP99)} ms (idle floor before ${fmt(idleMax)} ms; an idle sibling process in the same moments: max ${fmt(floorNow.max)} ms, p99 ${fmt(floorNow.p99)} ms); prepare() max wait ${fmt(Math.max(0, ...prepareWaits))} ms; the index's longest step ${fmt(index.progress().longestStepMs)} ms (CPU ${fmt(index.progress().longestStepCpuMs)} ms)`,
    lagMax <= 300 && Math.max(0, ...prepareWaits) <= 300 ? 'met' : 'missed',
  ]);

  // Floor: git grep of the same kind of terms, in this run.
  const floor: number[] = [];
  for (let k = 0; k < 7; k++) floor.push(await gitGrep(dir, `helper${k}`));
  const floorMs = quantile(sorted(floor), 0.5);
  console.log(`floor: git grep -w of one name, median ${fmt(floorMs)} ms (${floor.length} runs)`);

  const statusFloor: number[] = [];
  for (let k = 0; k < 3; k++) statusFloor.push(await gitStatus(dir));
  const statusMs = quantile(sorted(statusFloor), 0.5);
  console.log(`floor: git status of the work tree, median ${fmt(statusMs)} ms (${statusFloor.length} runs)`);

  // 2. Restart: a new source set opens the stored index (it answers at once, saying it is catching up) and
  // catches up through git (the files git status and the stored unsure list name). A file edited while no
  // server ran, so there is something to catch up.
  set.close();
  fs.appendFileSync(path.join(dir, 'area2', 'module4', `file${20 * 4 + 2 + 1000 * 3}.ts`), '// edited while off\n');
  await sleep(100);
  const restartPeak = rssPeak();
  const restartStart = performance.now();
  set = newSet();
  retrieval = set.sources.find((source) => source.name === 'retrieval');
  if (!retrieval) throw new Error('no retrieval source');
  index = set.index(dir);
  if (!index) throw new Error('no index');
  void set.ready(dir);
  // When the index is current (caught up), watched apart from the requests.
  const opened = index;
  const caughtUpAt = (async () => {
    while (!(await opened.prepare()) || !opened.progress().current) await sleep(10);
    return performance.now() - restartStart;
  })();
  // The first request, as a request asks (prepare waits up to its limit): the stored index answers.
  const first = await retrieval.collect(question(dir, `Who calls helper${7}?`), AbortSignal.timeout(10_000));
  const firstAnswer = performance.now() - restartStart;
  const caughtUp = await caughtUpAt;
  const answered = await retrieval.collect(question(dir, `Who calls helper${8}?`), AbortSignal.timeout(10_000));
  const warmAnswer = performance.now() - restartStart;
  if (SYMBOLS) {
    await set.warm(dir);
    console.log(`restart: the symbol index current after ${fmt(performance.now() - restartStart)} ms`);
  }
  if (indexNote(answered)) throw new Error(`the index did not answer: ${indexNote(answered)}`);
  console.log(
    `restart: first answer after ${fmt(firstAnswer)} ms (${indexNote(first) ?? 'current'}); caught up after ${fmt(caughtUp)} ms, and a warm answer after ${fmt(warmAnswer)} ms; files compared ${index.compared}, read again ${index.reads}`,
  );
  results.push([
    'start to a warm answer after a restart ≤ 2 s',
    `${fmt(warmAnswer)} ms, ${fmt(warmAnswer / statusMs)}× one git status (${fmt(statusMs)} ms), ${fmt(warmAnswer / floorMs)}× one git grep (${fmt(floorMs)} ms); caught up after ${fmt(caughtUp)} ms (${fmt(caughtUp / statusMs)}× git status); first (stale-flagged) answer ${fmt(firstAnswer)} ms`,
    warmAnswer <= 2_000 ? 'met' : 'missed',
  ]);
  const rssRestarted = rssMb();
  const rssRestartPeak = restartPeak.stop();
  const rssRestartedRest = await rssAtRest();

  // 3. A saved file, re-indexed: from the write until a search finds its new word (the watcher's path, no request).
  await set.ready(dir);
  await index.prepare();
  const saves: number[] = [];
  for (let k = 0; k < 5; k++) {
    const word = `savedWord${Date.now().toString(36)}${k}`;
    const file = path.join(dir, 'area3', 'module7', `file${20 * 7 + 3 + 1000 * k}.ts`);
    const t0 = performance.now();
    fs.appendFileSync(file, `export const ${word} = ${k};\n`);
    for (;;) {
      const found = index.search({ patterns: [word], words: true, perFile: 20, maxBytes: 1 << 20 });
      if (found && found.hits.length > 0) break;
      if (performance.now() - t0 > 5_000) break;
      await sleep(1);
    }
    saves.push(performance.now() - t0);
  }
  const saveMax = Math.max(...saves);
  console.log(`saved file re-indexed: ${saves.map(fmt).join(', ')} ms`);
  results.push([
    'a saved file re-indexed ≤ 100 ms',
    `max ${fmt(saveMax)} ms (median ${fmt(quantile(sorted(saves), 0.5))})`,
    saveMax <= 100 ? 'met' : 'missed',
  ]);

  // 4. Warm retrieval: index searches for names never asked before: a rare one (a word of one file, as most
  // identifiers are) and a common one (helperK, a word of 334 to 667 files: a search reads maxSearchFiles of them);
  // and whole retrieval requests (no memo hit).
  const rare: number[] = [];
  const common: number[] = [];
  for (let k = 0; k < WARM; k++) {
    const word = `rareName${k}`;
    if (k < 20)
      fs.appendFileSync(path.join(dir, 'area5', 'module9', `file${20 * 9 + 5 + 1000 * k}.py`), `${word} = ${k}\n`);
  }
  await sleep(200);
  for (let k = 0; k < WARM; k++) {
    let t0 = performance.now();
    await index.prepare();
    index.search({ patterns: [`rareName${k % 20}`], words: true, perFile: 20, maxBytes: 512 * 1024 });
    rare.push(performance.now() - t0);
    t0 = performance.now();
    await index.prepare();
    index.search({ patterns: [`helper${k % 50}`], words: true, perFile: 20, maxBytes: 512 * 1024 });
    common.push(performance.now() - t0);
  }
  const requests: number[] = [];
  for (let k = 0; k < 20; k++) {
    const t0 = performance.now();
    await retrieval.collect(question(dir, `Where is rareName${k} set?`), AbortSignal.timeout(10_000));
    requests.push(performance.now() - t0);
  }
  const rareMedian = quantile(sorted(rare), 0.5);
  const commonMedian = quantile(sorted(common), 0.5);
  const requestMedian = quantile(sorted(requests), 0.5);
  console.log(
    `warm: index search, rare name median ${fmt(rareMedian)} ms (p90 ${fmt(quantile(sorted(rare), 0.9))}), common name (in 334-667 files) median ${fmt(commonMedian)} ms (p90 ${fmt(quantile(sorted(common), 0.9))}) (${WARM} each); whole retrieval request for a rare name median ${fmt(requestMedian)} ms (20)`,
  );
  results.push([
    'warm retrieval ≤ 5 ms per request',
    `rare name ${fmt(rareMedian)} ms (${fmt(rareMedian / floorMs)}× the git grep floor), common name ${fmt(commonMedian)} ms (${fmt(commonMedian / floorMs)}×); whole retrieval source ${fmt(requestMedian)} ms`,
    rareMedian <= 5 && commonMedian <= 5
      ? 'met'
      : rareMedian <= 5
        ? 'met for a rare name, missed for a common one'
        : 'missed',
  ]);

  // 5. Memory: the worst moment (the build's peak, with the parse worker up), the end of the build and of the
  // restart (the worker still up for 5 s), and at rest (the worker gone), each over the same baseline.
  const peak = Math.max(rssBuildPeak, rssRestartPeak) - rssBefore;
  const rest = Math.max(rssBuiltRest, rssRestartedRest) - rssBefore;
  console.log(
    `RSS: before ${fmt(rssBefore)} MB; the build's peak ${fmt(rssBuildPeak)} MB, after it ${fmt(rssBuilt)} MB, at rest ${fmt(rssBuiltRest)} MB; the restart's peak ${fmt(rssRestartPeak)} MB, after it ${fmt(rssRestarted)} MB, at rest ${fmt(rssRestartedRest)} MB (node ${process.execArgv.filter((flag) => flag.startsWith('--max') || flag.startsWith('--v8')).join(' ') || 'without the server flags'})`,
  );
  results.push([
    'RSS growth ≤ 60 MB',
    `peak ${fmt(peak)} MB (the parse worker up), at rest ${fmt(rest)} MB (the worker gone), at the end of the build ${fmt(Math.max(rssBuilt, rssRestarted) - rssBefore)} MB; over a source set holding the listing and the armed watcher (those alone: ${fmt(rssBefore - rssBare)} MB)`,
    peak <= 60 ? 'met' : rest <= 60 ? 'met at rest, not at the peak' : 'missed',
  ]);
  set.close();

  console.log('\n| target | measured | |');
  console.log('| --- | --- | --- |');
  for (const [target, measured, verdict] of results) console.log(`| ${target} | ${measured} | ${verdict} |`);
}

// Held for the whole run: between the build and the restart's first request nothing else may hold the
// process (the build's own pauses and the parse worker are unreferenced, as a server's must be).
const hold = setInterval(() => undefined, 60_000);
await main().finally(() => clearInterval(hold));
