// The main thread's side of the parse worker (parseWorker.ts). The worker
// starts when there is something to parse and exits once it has been idle for
// `idleMs`, so the tree-sitter runtime, its grammars and the parse memory are
// held only while an index builds, and the build's CPU stays off the event
// loop. One host per process serves every index (`sharedParseHost`): source
// sets made one after another (a server's, the CLI's, a benchmark's) reuse a
// worker that is still up, as they reused grammars loaded in the thread
// before. A worker that crashes or cannot start fails the batches it had; the
// index skips their files for that update (symbolIndex.ts says when a
// language goes off).

import type { Worker } from 'node:worker_threads';
import { spawnWorker } from '../../shared/cpuPool.ts';
import type { ParseJob, ParseOutcome, ParseReply, ParseRequest } from './parseProtocol.ts';

/** The worker's module, beside this one: `.ts` when the sources run (tsx, Deno), `.js` in the compiled package. */
export const defaultWorkerUrl = new URL(
  `./parseWorker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`,
  import.meta.url,
);

export interface ParseHostOptions {
  workerUrl: URL;
  /** How long a worker with nothing to do lingers (the next request's named files reuse it) before it exits. */
  idleMs: number;
  /**
   * Added to a request's parse time limit (its files x the per-file parse timeout) for what the timeout
   * does not bound: the worker's start, grammar loads, extraction. A worker that does not answer by then
   * is ended and its requests fail as if it had crashed. Default DEFAULT_ANSWER_MARGIN_MS.
   */
  answerMarginMs?: number;
}

/** Generous: a start under a loaded machine must not count as a hang. */
const DEFAULT_ANSWER_MARGIN_MS = 10_000;

export const defaultParseHostOptions: ParseHostOptions = { workerUrl: defaultWorkerUrl, idleMs: 5_000 };

/**
 * A request the worker did not answer. `culprit`: it was the one the worker was working on when it went
 * (the oldest pending: the worker takes requests in order); the others only waited behind it, perhaps
 * from another index, and say nothing about their own files.
 */
export class ParseLost extends Error {
  constructor(
    message: string,
    readonly culprit: boolean,
  ) {
    super(message);
    this.name = 'ParseLost';
  }
}

interface Waiter {
  resolve(outcomes: ParseOutcome[]): void;
  reject(error: Error): void;
  /** How long the worker may take on this request once it is the one being worked on. */
  budgetMs: number;
}

/** Why a worker stopped, without its message (which could quote what it was parsing). */
function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === 'string' ? code : error.name;
  }
  return 'unknown error';
}

export class ParseHost {
  #worker: Worker | undefined;
  readonly #pending = new Map<number, Waiter>();
  #nextId = 0;
  #idle: ReturnType<typeof setTimeout> | undefined;
  /** Ends a worker that does not answer the request it is on (#armDeadline). */
  #deadline: ReturnType<typeof setTimeout> | undefined;
  #closed = false;
  /** Pending requests someone waits for: the worker keeps the process alive while there are any. */
  #holding = 0;
  /** Workers started so far (tests and benches check that one exits and the next starts). */
  started = 0;

  constructor(private readonly options: ParseHostOptions = defaultParseHostOptions) {}

  get running(): boolean {
    return this.#worker !== undefined;
  }

  /**
   * Parses `jobs` in the worker; rejects when it crashes or cannot start.
   * `keepAlive`: the process stays up until the answer comes (a request waits
   * for it); a background build's batches do not hold a process that is done.
   */
  parse(jobs: ParseJob[], timeoutMs: number, keepAlive = true): Promise<ParseOutcome[]> {
    if (this.#closed) return Promise.reject(new ParseLost('parse host closed', false));
    clearTimeout(this.#idle);
    let worker: Worker;
    try {
      worker = this.#worker ?? this.#start();
    } catch (error) {
      return Promise.reject(new ParseLost(`parse worker did not start (${describe(error)})`, true));
    }
    const id = ++this.#nextId;
    const budgetMs = jobs.length * timeoutMs + (this.options.answerMarginMs ?? DEFAULT_ANSWER_MARGIN_MS);
    const answered = new Promise<ParseOutcome[]>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject, budgetMs });
      worker.postMessage({ id, jobs, timeoutMs } satisfies ParseRequest);
    });
    if (this.#pending.size === 1) this.#armDeadline(worker);
    if (!keepAlive) return answered;
    this.#holding++;
    this.#holdProcess();
    return answered.finally(() => {
      this.#holding--;
      this.#holdProcess();
    });
  }

  close(): void {
    this.#closed = true;
    this.#stop('parse host closed');
  }

  #start(): Worker {
    const worker = spawnWorker(this.options.workerUrl);
    // Unreferenced until a request waits for an answer (#holdProcess).
    worker.unref();
    this.started++;
    worker.on('message', (reply: ParseReply) => {
      const waiter = this.#pending.get(reply.id);
      this.#pending.delete(reply.id);
      waiter?.resolve(reply.outcomes);
      if (this.#worker !== worker) return;
      if (this.#pending.size === 0) this.#idleSoon(worker);
      else this.#armDeadline(worker);
    });
    worker.on('error', (error) => this.#lost(worker, `parse worker crashed (${describe(error)})`));
    worker.on('exit', (code) => this.#lost(worker, `parse worker exited (code ${code})`));
    this.#worker = worker;
    return worker;
  }

  #holdProcess(): void {
    if (this.#holding > 0) this.#worker?.ref();
    else this.#worker?.unref();
  }

  /**
   * The worker takes requests in order, so the oldest pending one is the one it is on: it must answer
   * within its budget, or the worker is ended and every pending request fails (#lost), so no caller (a
   * one-shot process held alive by its wait, later batches queued behind) waits forever. Unreferenced:
   * while a request waits, the worker's own reference keeps the process up for it.
   */
  #armDeadline(worker: Worker): void {
    clearTimeout(this.#deadline);
    const head = this.#pending.values().next().value;
    if (!head) return;
    this.#deadline = setTimeout(() => {
      this.#lost(worker, 'parse worker did not answer in time');
      void worker.terminate();
    }, head.budgetMs);
    this.#deadline.unref?.();
  }

  /** Nothing to do: end it after `idleMs`. */
  #idleSoon(worker: Worker): void {
    worker.unref();
    clearTimeout(this.#deadline);
    clearTimeout(this.#idle);
    this.#idle = setTimeout(() => this.#stop(), this.options.idleMs);
    this.#idle.unref?.();
  }

  /** The worker went away on its own: whatever it had is lost. */
  #lost(worker: Worker, reason: string): void {
    if (this.#worker !== worker) return;
    this.#worker = undefined;
    clearTimeout(this.#idle);
    clearTimeout(this.#deadline);
    this.#failPending(reason, true);
  }

  #stop(reason?: string): void {
    clearTimeout(this.#idle);
    clearTimeout(this.#deadline);
    const worker = this.#worker;
    this.#worker = undefined;
    if (reason) this.#failPending(reason, false);
    void worker?.terminate();
  }

  /** `crashed`: the worker went while working, so the oldest pending request is the culprit. */
  #failPending(reason: string, crashed: boolean): void {
    const waiters = [...this.#pending.values()];
    this.#pending.clear();
    waiters.forEach((waiter, i) => {
      waiter.reject(new ParseLost(reason, crashed && i === 0));
    });
  }
}

const shared = new Map<string, ParseHost>();

/** The process's host for these options (one per worker module, idle time and margin). */
export function sharedParseHost(options: ParseHostOptions = defaultParseHostOptions): ParseHost {
  const key = `${options.workerUrl.href}|${options.idleMs}|${options.answerMarginMs}`;
  let host = shared.get(key);
  if (!host) {
    host = new ParseHost(options);
    shared.set(key, host);
  }
  return host;
}
