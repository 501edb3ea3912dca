// A CPU pool worker (cpuPool.ts): runs the named export of a task module on
// the arguments it is sent and answers with the result, one task at a time
// (the pool's deadline is for the task the worker is on). Task modules are the
// stage folders' own (`src/redact/scanTask.ts`, …): the worker knows none of
// them, so the pool stays one mechanism for every kind of CPU work.

import { parentPort } from 'node:worker_threads';
import type { CpuReply, CpuRequest } from './cpuPool.ts';

/** An error's kind, without its message (which could quote the text being worked on). */
function describe(error: unknown): string {
  return error instanceof Error ? error.name : 'unknown error';
}

async function run(request: CpuRequest): Promise<CpuReply> {
  try {
    const module = (await import(request.module)) as Record<string, unknown>;
    const task = module[request.name];
    if (typeof task !== 'function') return { id: request.id, ok: false, error: `no task ${request.name}` };
    return { id: request.id, ok: true, value: await task(...request.args) };
  } catch (error) {
    return { id: request.id, ok: false, error: describe(error) };
  }
}

let queue: Promise<void> = Promise.resolve();
parentPort?.on('message', (request: CpuRequest) => {
  queue = queue.then(async () => parentPort?.postMessage(await run(request)));
});
