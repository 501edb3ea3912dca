// A CPU pool worker (cpuPool.ts): runs the named export of a task module on
// the arguments it is sent and answers with the result, one task at a time
// (the pool's deadline is for the task the worker is on). Task modules are the
// stage folders' own (`src/redact/scanTask.ts`, …): the worker knows none of
// them, so the pool stays one mechanism for every kind of CPU work. Large texts
// it was sent or answered with stay here under their ids until the pool says
// to drop them (poolTexts.ts).

import { parentPort } from 'node:worker_threads';
import type { CpuMessage, CpuReply, CpuRequest } from './cpuPool.ts';
import { forEachLargeText, type KeptText, putText } from './poolTexts.ts';

const held = new Map<number, string>();
/** Ids of the texts this worker answers with; negative, so they never meet the pool's. */
let lastKeptId = 0;

/** An error's kind, without its message (which could quote the text being worked on). */
function describe(error: unknown): string {
  return error instanceof Error ? error.name : 'unknown error';
}

async function run(request: CpuRequest): Promise<CpuReply> {
  try {
    for (const sent of request.texts ?? []) {
      const text = sent.text ?? held.get(sent.id);
      if (text === undefined) return { id: request.id, ok: false, error: 'TextNotHeld' };
      if (sent.text !== undefined) held.set(sent.id, sent.text);
      putText(request.args, sent.path, text);
    }
    const module = (await import(request.module)) as Record<string, unknown>;
    const task = module[request.name];
    if (typeof task !== 'function') return { id: request.id, ok: false, error: `no task ${request.name}` };
    const value: unknown = await task(...request.args);
    const kept: KeptText[] = [];
    forEachLargeText(value, (text, path) => {
      const id = --lastKeptId;
      held.set(id, text);
      kept.push({ path, id });
    });
    return { id: request.id, ok: true, value, ...(kept.length > 0 ? { kept } : {}) };
  } catch (error) {
    return { id: request.id, ok: false, error: describe(error) };
  } finally {
    forget(request.forget);
  }
}

function forget(ids: readonly number[] | undefined): void {
  for (const id of ids ?? []) held.delete(id);
}

let queue: Promise<void> = Promise.resolve();
parentPort?.on('message', (message: CpuMessage) => {
  queue = queue.then(async () => {
    if (!('module' in message)) forget(message.forget);
    else parentPort?.postMessage(await run(message));
  });
});
