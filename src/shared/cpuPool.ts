// One CPU pool for the per-request work that grows with a request's size (a
// secret scan of a 9 MB message, parsing a 10 MB body, counting a long text's
// tokens): above a size threshold the caller sends it here, so the event loop
// that serves every other request is never held by one request; below it the
// work runs inline (a round trip costs more than the work).
//
// A task is a named export of a module (`{ module, name, args }`), so each
// stage folder keeps its own task next to its code and the pool knows none of
// them. Workers start when the first task comes (none for a server that only
// sees small requests), at most `size` of them (1 on a 2-core laptop: the
// model needs the others), and exit after `idleMs` without work, giving their
// memory back. Each worker runs one task at a time; a task not answered within
// its time limit ends its worker and fails (the caller fails closed: the
// redactor drops the item, never forwards it unscanned); the tasks queued
// behind it move to a fresh worker.

import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { forEachLargeText, HeldTexts, type KeptText, type SentText, textAt, withoutTexts } from './poolTexts.ts';

export interface CpuTask {
  /** The task module's URL (`new URL('./scanTask.ts', import.meta.url)`); `.ts` under tsx and Deno, `.js` compiled. */
  module: URL;
  /** The export to call; it returns the answer (or a promise of it), plain data for structured clone. */
  name: string;
  args: unknown[];
  /**
   * Buffers among `args` that move to the worker instead of being copied (they are detached here): a
   * large text sent as its bytes costs nothing on the event loop, where a string would be copied.
   */
  transfer?: ArrayBuffer[];
}

export interface CpuRequest {
  id: number;
  module: string;
  name: string;
  args: unknown[];
  /** The large texts of `args` (blank there), by id once the worker holds them (poolTexts.ts). */
  texts?: SentText[];
  /** Texts the worker may drop, after it has read this request's. */
  forget?: number[];
}

/** What a worker is sent: a task, or only texts to drop. */
export type CpuMessage = CpuRequest | { id: 0; forget: number[] };

export type CpuReply =
  | { id: number; ok: true; value: unknown; kept?: KeptText[] }
  | { id: number; ok: false; error: string };

/** A task the pool could not answer: its worker did not start, crashed, or did not answer in time. */
export class CpuTaskFailed extends Error {
  override readonly name = 'CpuTaskFailed';
  constructor(
    message: string,
    /** True when the task ran out of its time limit (the caller may say "too large" rather than "failed"). */
    readonly timedOut = false,
    /** The name of the error the task threw in the worker (its message stays there: it could quote the text). */
    readonly taskError?: string,
  ) {
    super(message);
  }
}

export interface CpuPoolOptions {
  workerUrl: URL;
  /** Most workers at once. Default: 1, or 2 on machines with more than 2 cores. */
  size?: number;
  /** How long a worker with nothing to do lingers before it exits. */
  idleMs: number;
  /** Added to the first task's limit on a fresh worker: its start and its task module's first load. */
  startMarginMs?: number;
}

/** The worker's module, beside this one: `.ts` when the sources run (tsx, Deno), `.js` in the compiled package. */
export const defaultCpuWorkerUrl = new URL(
  `./cpuWorker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`,
  import.meta.url,
);

/** A task module beside `base` (the caller's `import.meta.url`), with the extension the running code has. */
export function taskModule(name: string, base: string): URL {
  return new URL(`./${name}${base.endsWith('.ts') ? '.ts' : '.js'}`, base);
}

const DEFAULT_START_MARGIN_MS = 10_000;
/** Characters of large texts a worker holds, at most: a few hostile requests' messages and their redacted copies. */
const HELD_TEXT_CHARS = 48 * 1024 * 1024;
/**
 * A worker with nothing to do drops its texts after this: one request's tasks come one after another
 * with the event loop's own work in between, and once they are done the texts are garbage.
 */
const TEXTS_KEPT_IDLE_MS = 1000;

/**
 * Starts a worker on a module. Node loads a TypeScript module in a worker only
 * through a loader registered inside that worker (a worker does not inherit the
 * main thread's tsx hooks), so the sources under Node (the tests, `npm run dev`)
 * start it through tsx's API; Deno and the compiled package load it as it is.
 */
export function spawnWorker(url: URL): Worker {
  if (!url.pathname.endsWith('.ts') || 'Deno' in globalThis) return new Worker(url);
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register({ tsconfig: false }); return import(${JSON.stringify(url.href)}); })`;
  return new Worker(boot, { eval: true });
}

/** Why a worker stopped, without its message (which could quote what it was working on). */
function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === 'string' ? code : error.name;
  }
  return 'unknown error';
}

interface Pending {
  request: CpuRequest;
  /** Buffers that moved with the request: once sent, the task cannot go to another worker (see #end). */
  transfer: ArrayBuffer[] | undefined;
  sent: boolean;
  timeoutMs: number;
  resolve(value: unknown): void;
  reject(error: Error): void;
}

interface Slot {
  worker: Worker;
  /** The large texts this worker holds, so a text goes to it once (poolTexts.ts). */
  texts: HeldTexts;
  forgetTexts?: ReturnType<typeof setTimeout>;
  /** In the order sent: the worker runs them in that order, so the first is the one it is on. */
  pending: Map<number, Pending>;
  answered: boolean;
  deadline?: ReturnType<typeof setTimeout>;
  idle?: ReturnType<typeof setTimeout>;
}

export class CpuPool {
  readonly #slots = new Set<Slot>();
  readonly #size: number;
  #nextId = 0;
  #nextTextId = 0;
  #closed = false;
  /** Workers started so far (tests check that they start lazily and exit when idle). */
  started = 0;

  constructor(private readonly options: CpuPoolOptions) {
    this.#size = Math.max(1, options.size ?? (availableParallelism() > 2 ? 2 : 1));
  }

  /** Workers running now. */
  get running(): number {
    return this.#slots.size;
  }

  /**
   * Runs `task` in a worker; resolves with its answer, rejects with CpuTaskFailed when the task threw, its
   * worker went, or it was not answered within `timeoutMs` of the worker starting on it.
   */
  run<T>(task: CpuTask, timeoutMs: number): Promise<T> {
    if (this.#closed) return Promise.reject(new CpuTaskFailed('cpu pool closed'));
    const request: CpuRequest = { id: ++this.#nextId, module: task.module.href, name: task.name, args: task.args };
    return new Promise<T>((resolve, reject) => {
      this.#dispatch({
        request,
        transfer: task.transfer,
        sent: false,
        timeoutMs,
        resolve: resolve as (value: unknown) => void,
        reject,
      });
    });
  }

  close(): void {
    this.#closed = true;
    for (const slot of [...this.#slots]) this.#end(slot, 'cpu pool closed', false);
  }

  #dispatch(entry: Pending): void {
    let slot: Slot | undefined;
    for (const candidate of this.#slots) if (!slot || candidate.pending.size < slot.pending.size) slot = candidate;
    if (!slot || (slot.pending.size > 0 && this.#slots.size < this.#size)) {
      try {
        slot = this.#start();
      } catch (error) {
        entry.reject(new CpuTaskFailed(`cpu worker did not start (${describe(error)})`));
        return;
      }
    }
    clearTimeout(slot.idle);
    clearTimeout(slot.forgetTexts);
    slot.pending.set(entry.request.id, entry);
    // Referenced while a task waits: a one-shot command stays up for its answer.
    slot.worker.ref();
    slot.worker.postMessage(this.#withHeldTexts(slot, entry.request), entry.transfer ?? []);
    entry.sent = true;
    if (slot.pending.size === 1) this.#armDeadline(slot);
  }

  /** The request as this worker is sent it: each large text by its id when the worker holds it already. */
  #withHeldTexts(slot: Slot, request: CpuRequest): CpuRequest {
    const texts: SentText[] = [];
    forEachLargeText(request.args, (text, path) => {
      const held = slot.texts.idOf(text);
      if (held !== undefined) {
        texts.push({ path, id: held });
        return;
      }
      const id = ++this.#nextTextId;
      slot.texts.add(text, id);
      texts.push({ path, id, text });
    });
    const forget = slot.texts.takeForgotten();
    if (texts.length === 0 && forget.length === 0) return request;
    const paths = texts.map((sent) => sent.path);
    return { ...request, args: withoutTexts(request.args, paths) as unknown[], texts, forget };
  }

  #start(): Slot {
    const worker = spawnWorker(this.options.workerUrl);
    const slot: Slot = { worker, texts: new HeldTexts(HELD_TEXT_CHARS), pending: new Map(), answered: false };
    this.started++;
    worker.on('message', (reply: CpuReply) => {
      const entry = slot.pending.get(reply.id);
      slot.pending.delete(reply.id);
      slot.answered = true;
      if (reply.ok)
        for (const kept of reply.kept ?? []) {
          const text = textAt(reply.value, kept.path);
          if (text !== undefined) slot.texts.add(text, kept.id);
        }
      if (entry) {
        if (reply.ok) entry.resolve(reply.value);
        else entry.reject(new CpuTaskFailed(`cpu task failed (${reply.error})`, false, reply.error));
      }
      if (!this.#slots.has(slot)) return;
      if (slot.pending.size === 0) this.#idleSoon(slot);
      else this.#armDeadline(slot);
    });
    worker.on('error', (error) => this.#end(slot, `cpu worker crashed (${describe(error)})`, true));
    worker.on('exit', (code) => this.#end(slot, `cpu worker exited (code ${code})`, true));
    this.#slots.add(slot);
    return slot;
  }

  /** The first pending task is the one the worker is on: it must answer within its limit. */
  #armDeadline(slot: Slot): void {
    clearTimeout(slot.deadline);
    const head = slot.pending.values().next().value;
    if (!head) return;
    const margin = slot.answered ? 0 : (this.options.startMarginMs ?? DEFAULT_START_MARGIN_MS);
    slot.deadline = setTimeout(
      () => this.#end(slot, 'cpu task did not answer in time', true, true),
      head.timeoutMs + margin,
    );
    slot.deadline.unref?.();
  }

  #idleSoon(slot: Slot): void {
    clearTimeout(slot.deadline);
    slot.worker.unref();
    slot.forgetTexts = setTimeout(() => {
      const forget = slot.texts.clear();
      if (forget.length > 0) slot.worker.postMessage({ id: 0, forget } satisfies CpuMessage);
    }, TEXTS_KEPT_IDLE_MS);
    slot.forgetTexts.unref?.();
    slot.idle = setTimeout(() => this.#end(slot, 'idle', false), this.options.idleMs);
    slot.idle.unref?.();
  }

  /**
   * Ends a worker. `working`: it went while on its first pending task, which fails (timed out when
   * `timedOut`); the tasks behind it did nothing wrong and go to another worker (unless the pool closed),
   * except those whose buffers moved to the ended worker: they are gone with it, so those fail too.
   */
  #end(slot: Slot, reason: string, working: boolean, timedOut = false): void {
    if (!this.#slots.delete(slot)) return;
    clearTimeout(slot.deadline);
    clearTimeout(slot.idle);
    clearTimeout(slot.forgetTexts);
    void slot.worker.terminate();
    const entries = [...slot.pending.values()];
    slot.pending.clear();
    entries.forEach((entry, i) => {
      const lost = this.#closed || (working && i === 0) || (entry.sent && (entry.transfer?.length ?? 0) > 0);
      if (lost) entry.reject(new CpuTaskFailed(reason, timedOut && i === 0));
      else this.#dispatch(entry);
    });
  }
}

let shared: CpuPool | undefined;

/**
 * The process's pool: every stage's CPU work shares its workers. A worker lingers two minutes: a new one
 * builds its redactor first (seconds on a loaded machine), and a coding agent's next long request comes
 * after the local model's answer, often more than half a minute later.
 */
export function sharedCpuPool(): CpuPool {
  shared ??= new CpuPool({ workerUrl: defaultCpuWorkerUrl, idleMs: 120_000 });
  return shared;
}
