// What one git spawn costs the thread that spawns it, against the process's
// size: fork copies the page tables, so the cost grows with RSS. Spawned from
// the main thread and from a worker thread (whose own CPU pays it instead).
// Run: node --max-old-space-size=4000 --import tsx bench/stall/spawnCost.ts

import { spawn } from 'node:child_process';
import { Worker } from 'node:worker_threads';
import { threadCpuMs } from './mainThreadCpu.ts';

const SIZES_MB = (process.env.BENCH_HEAP_MB ?? '0,100,300,600,1200').split(',').map(Number);
const held: object[][] = [];
/** Grows the heap by about `mb` MB of small objects (what a busy server's heap holds). */
const grow = (mb: number) => {
  for (let i = 0; i < mb; i++) held.push(Array.from({ length: 16_384 }, (_, k) => ({ k })));
};

/** The spawn call's CPU and wall time: libuv returns once the child has exec'd, so the wall time holds its wait for the scheduler. */
const spawnHere = () =>
  new Promise<[number, number]>((resolve) => {
    const start = threadCpuMs();
    const wall = performance.now();
    const child = spawn('git', ['--version'], { stdio: 'ignore' });
    const cost: [number, number] = [threadCpuMs() - start, performance.now() - wall];
    child.on('exit', () => resolve(cost));
  });

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

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
let grown = 0;
for (const mb of SIZES_MB) {
  grow(mb - grown);
  grown = mb;
  const main: number[] = [];
  const blocked: number[] = [];
  const off: number[] = [];
  for (let i = 0; i < 5; i++) {
    const [cpu, wall] = await spawnHere();
    main.push(cpu);
    blocked.push(wall);
    off.push(await spawnInWorker());
  }
  const rss = Math.round(process.memoryUsage().rss / 2 ** 20);
  console.log(
    `rss ${String(rss).padStart(5)} MB: spawn on the main thread ${median(main).toFixed(1)} ms of its CPU (the loop held ${median(blocked).toFixed(1)} ms, max ${Math.max(...blocked).toFixed(1)}), from a worker thread ${median(off).toFixed(1)} ms of the worker's (median of 5)`,
  );
}
await worker.terminate();
