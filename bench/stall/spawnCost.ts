// What one git spawn costs the thread that spawns it, against the process's
// size: fork copies the page tables, so the cost grows with RSS. Spawned from
// the main thread and from a worker thread (whose own CPU pays it instead),
// then through the sources' runner (`spawnGit`, which spawns in its own worker,
// gitSpawner.ts): what its call holds the loop for and how long a command takes.
// Run: node --max-old-space-size=4000 --import tsx bench/stall/spawnCost.ts

import { spawn } from 'node:child_process';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { spawnGit } from '../../src/sources/git/gitRunner.ts';
import { threadCpuMs } from './mainThreadCpu.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const SIZES_MB = (process.env.BENCH_HEAP_MB ?? '0,100,300,600,1200').split(',').map(Number);
const held: object[][] = [];
/** Grows the heap by about `mb` MB of small objects (what a busy server's heap holds). */
const grow = (mb: number) => {
  for (let i = 0; i < mb; i++) held.push(Array.from({ length: 16_384 }, (_, k) => ({ k })));
};

/** The spawn call's CPU and wall time: libuv returns once the child has exec'd, so the wall time holds its wait for the scheduler. Then the time to its end. */
const spawnHere = () =>
  new Promise<[number, number, number]>((resolve) => {
    const start = threadCpuMs();
    const wall = performance.now();
    const child = spawn('git', ['--version'], { stdio: 'ignore' });
    const cpu = threadCpuMs() - start;
    const held = performance.now() - wall;
    child.on('close', () => resolve([cpu, held, performance.now() - wall]));
  });

/** The same command through the runner: the call's CPU and wall time on this thread, then the time to its answer. */
const runner = spawnGit(process.cwd());
const spawnByRunner = async (): Promise<[number, number, number]> => {
  const start = threadCpuMs();
  const wall = performance.now();
  const answer = runner.raw(['--version']);
  const cpu = threadCpuMs() - start;
  const held = performance.now() - wall;
  await answer;
  return [cpu, held, performance.now() - wall];
};

/** The longest event-loop delay (1 ms timer) while `run` is in flight, in ms: what any other request could have waited. */
const longestDelay = async (run: () => Promise<unknown>) => {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  // The histogram's first tick only starts its clock: let it tick before the command starts.
  await new Promise((resolve) => setTimeout(resolve, 5));
  await run();
  await new Promise((resolve) => setTimeout(resolve, 2));
  delay.disable();
  return delay.max / 1e6;
};

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const gc = (globalThis as { gc?: () => void }).gc;

const worker = new Worker(
  `const { parentPort } = require('node:worker_threads');
   const { spawn } = require('node:child_process');
   const { readFileSync } = require('node:fs');
   const cpu = () => Number(readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ')[0]) / 1e6;
   parentPort.on('message', () => {
     const start = cpu();
     const child = spawn('git', ['--version'], { stdio: 'ignore' });
     const cost = cpu() - start;
     child.on('exit', () => parentPort.postMessage(cost));
   });`,
  { eval: true },
);
const spawnInWorker = () =>
  new Promise<number>((resolve) => {
    worker.once('message', resolve);
    worker.postMessage(0);
  });

// The runner's worker: its start (the first command's time) and what it adds to the process's memory.
{
  for (let i = 0; i < 3; i++) await spawnHere();
  gc?.();
  const before = process.memoryUsage().rss;
  const [, , first] = await spawnByRunner();
  const later: number[] = [];
  for (let i = 0; i < 5; i++) later.push((await spawnByRunner())[2]);
  await new Promise((resolve) => setTimeout(resolve, 200));
  gc?.();
  const added = (process.memoryUsage().rss - before) / 2 ** 20;
  console.log(
    `runner's worker: first command ${first.toFixed(1)} ms (later ones ${median(later).toFixed(1)} ms), RSS +${added.toFixed(1)} MB`,
  );
}

let grown = 0;
for (const mb of SIZES_MB) {
  grow(mb - grown);
  grown = mb;
  const main: number[] = [];
  const blocked: number[] = [];
  const off: number[] = [];
  const directTotal: number[] = [];
  const byRunner: [number, number, number][] = [];
  const delayDirect: number[] = [];
  const delayRunner: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const [cpu, wall, total] = await spawnHere();
    main.push(cpu);
    blocked.push(wall);
    directTotal.push(total);
    off.push(await spawnInWorker());
    byRunner.push(await spawnByRunner());
    delayDirect.push(await longestDelay(spawnHere));
    delayRunner.push(await longestDelay(spawnByRunner));
  }
  const rss = Math.round(process.memoryUsage().rss / 2 ** 20);
  const held = byRunner.map((r) => r[1]);
  console.log(
    `rss ${String(rss).padStart(5)} MB: spawn on the main thread ${median(main).toFixed(1)} ms of its CPU (the loop held ${median(blocked).toFixed(1)} ms, max ${Math.max(...blocked).toFixed(1)}; command ${median(directTotal).toFixed(1)} ms), from a worker thread ${median(off).toFixed(1)} ms of the worker's; the runner holds the loop ${median(held).toFixed(2)} ms (max ${Math.max(...held).toFixed(2)}), ${median(byRunner.map((r) => r[0])).toFixed(2)} ms of its CPU, command ${median(byRunner.map((r) => r[2])).toFixed(1)} ms; longest loop delay during a command: direct ${median(delayDirect).toFixed(1)} ms (max ${Math.max(...delayDirect).toFixed(1)}), runner ${median(delayRunner).toFixed(1)} ms (max ${Math.max(...delayRunner).toFixed(1)}) (median of ${ROUNDS})`,
  );
}
await worker.terminate();
