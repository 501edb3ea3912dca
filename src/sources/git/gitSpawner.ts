// git processes are spawned by one worker thread, not by the event loop. On
// Linux libuv's spawn returns only once the child has exec'd (it waits on a
// close-on-exec pipe), so the thread that spawns sleeps while the scheduler
// runs the child: 9–45 ms per spawn on a loaded machine, plus the fork's copy
// of the page tables (~7 ms per GB of RSS). In the worker that wait is the
// worker's; the event loop only posts a message (bench/stall/README.md).
//
// The worker is plain JavaScript evaluated from this string, so it needs no
// TypeScript loader and starts in tens of milliseconds. It is started by the
// first git command and kept (unref'd while nothing runs). stdout is sent back
// chunk by chunk with its bytes transferred, under a window: past WINDOW_BYTES
// not yet taken by the main thread the worker pauses git's stdout, so a git
// printing hundreds of MB never piles up in the message queue. stderr is
// capped in the worker.

import { Worker } from 'node:worker_threads';

const WINDOW_BYTES = 1024 * 1024;

const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { spawn } = require('node:child_process');
const jobs = new Map();
const post = (id, type, chunk) => {
  const bytes = new Uint8Array(chunk.length);
  bytes.set(chunk);
  parentPort.postMessage({ id, type, bytes }, [bytes.buffer]);
};
parentPort.on('message', (m) => {
  if (m.type === 'start') {
    let child;
    try {
      child = spawn('git', m.args, { cwd: m.cwd, env: m.env, windowsHide: true, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      parentPort.postMessage({ id: m.id, type: 'error', code: e && e.code, message: String(e && e.message) });
      return;
    }
    const job = { child, unacked: 0, errBytes: 0 };
    jobs.set(m.id, job);
    child.stdout.on('data', (chunk) => {
      job.unacked += chunk.length;
      post(m.id, 'out', chunk);
      if (job.unacked > ${WINDOW_BYTES}) child.stdout.pause();
    });
    child.stderr.on('data', (chunk) => {
      if (job.errBytes >= m.stderrBytes) return;
      const part = chunk.subarray(0, m.stderrBytes - job.errBytes);
      job.errBytes += part.length;
      post(m.id, 'err', part);
    });
    child.on('error', (e) => {
      jobs.delete(m.id);
      parentPort.postMessage({ id: m.id, type: 'error', code: e && e.code, message: String(e && e.message) });
    });
    child.on('close', (code) => {
      jobs.delete(m.id);
      parentPort.postMessage({ id: m.id, type: 'close', code });
    });
    return;
  }
  const job = jobs.get(m.id);
  if (!job) return;
  if (m.type === 'ack') {
    job.unacked -= m.bytes;
    if (job.unacked <= ${WINDOW_BYTES}) job.child.stdout.resume();
  } else if (m.type === 'stop') {
    job.child.stdout.destroy();
    job.child.kill();
  } else if (m.type === 'kill') job.child.kill();
});
`;

/** What the runner hears of one git process, in the order the worker saw it. */
export interface GitProcessEvents {
  stdout(chunk: Buffer): void;
  stderr(chunk: Buffer): void;
  /** Not started (no git, a missing folder): an error with the system's `code`. */
  error(error: Error): void;
  close(code: number | null): void;
}

/** The handle of one git process in the worker. */
export interface GitProcess {
  /** Stop reading stdout and kill git: nothing more is wanted. */
  stop(): void;
  kill(): void;
}

interface WorkerMessage {
  id: number;
  type: 'out' | 'err' | 'error' | 'close';
  bytes?: Uint8Array;
  code?: unknown;
  message?: string;
}

let worker: Worker | undefined;
let nextId = 0;
const running = new Map<number, GitProcessEvents>();

function startedWorker(): Worker {
  if (worker) return worker;
  const started = new Worker(WORKER_SOURCE, { eval: true, name: 'ctxproxy git spawner' });
  started.on('message', (m: WorkerMessage) => {
    const events = running.get(m.id);
    if (!events) return;
    if (m.type === 'out' && m.bytes) {
      const chunk = Buffer.from(m.bytes.buffer, m.bytes.byteOffset, m.bytes.byteLength);
      events.stdout(chunk);
      started.postMessage({ id: m.id, type: 'ack', bytes: chunk.length });
    } else if (m.type === 'err' && m.bytes) {
      events.stderr(Buffer.from(m.bytes.buffer, m.bytes.byteOffset, m.bytes.byteLength));
    } else if (m.type === 'error' || m.type === 'close') {
      finish(m.id);
      if (m.type === 'close') events.close(typeof m.code === 'number' ? m.code : null);
      else events.error(Object.assign(new Error(m.message ?? 'git could not start'), { code: m.code }));
    }
  });
  // The worker itself failed (out of memory, a bug): every command in it fails; the next starts a new one.
  const lost = (error: Error) => {
    if (worker !== started) return;
    worker = undefined;
    const failed = [...running.values()];
    running.clear();
    for (const events of failed) events.error(error);
  };
  started.on('error', lost);
  started.on('exit', (code) => lost(new Error(`git spawner ended (exit ${code})`)));
  started.unref();
  worker = started;
  return started;
}

function finish(id: number) {
  running.delete(id);
  if (running.size === 0) worker?.unref();
}

/** Starts `git <args>` in the worker; `events` hear its output and its end. */
export function spawnGitOffThread(
  cwd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  stderrBytes: number,
  events: GitProcessEvents,
): GitProcess {
  const spawner = startedWorker();
  const id = nextId++;
  running.set(id, events);
  // A command in flight keeps the process alive, as its child process would.
  spawner.ref();
  spawner.postMessage({ type: 'start', id, cwd, args, env, stderrBytes });
  return {
    stop: () => spawner.postMessage({ type: 'stop', id }),
    kill: () => spawner.postMessage({ type: 'kill', id }),
  };
}
