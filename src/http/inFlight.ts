// The requests in flight, kept in one place so that shutdown can stop new ones,
// wait for these to finish, end those still running after the grace period, and
// close the audit store only once every snapshot is saved. A request counts
// until its answer is written: for a streamed chat that is after the last frame
// (nodeSse.ts, mounted inside this count) and the pipeline saved the snapshot.

import type { MiddlewareHandler } from 'hono';
import { fixedError } from '../shared/errors.ts';

/** The answer of a request that shutdown turned away or cut off. */
export class ShuttingDownError extends fixedError(503, 'server_error', 'server_shutting_down') {}

/** What signalOf needs of Node's response: whether it finished before its connection closed. */
export interface ClientSide {
  once(event: 'close', listener: () => void): unknown;
  readonly writableFinished: boolean;
  readonly destroyed: boolean;
}

/** The reason @hono/node-server gives the request's signal when the client leaves. */
const CLIENT_GONE = 'Client connection prematurely closed.';

export interface InFlight {
  /** Counts each request until its answer is written (a stream's last frame included). */
  readonly middleware: MiddlewareHandler;
  /** Once stopping, answers 503. Apart from the count, so that it can run inside the response head (app.ts). */
  readonly refuseWhileStopping: MiddlewareHandler;
  /**
   * What the pipeline watches for this request: the client leaving, or shutdown ending it. With
   * Node's response at hand (`outgoing`), the client leaving is seen on it directly.
   */
  signalOf(request: Request, outgoing?: ClientSide): AbortSignal;
  readonly size: number;
  readonly stopping: boolean;
  /** Turn new requests away from now on. */
  stop(): void;
  /** Resolves true once nothing is in flight, or false after `ms`. */
  idle(ms: number): Promise<boolean>;
  /** Ends every request still running: the pipeline aborts its upstream, a stream gets an error frame. */
  abortAll(reason: Error): void;
}

export function createInFlight(): InFlight {
  const running = new Map<Request, AbortController>();
  const waiters = new Set<() => void>();
  let stopping = false;

  const finished = (request: Request) => {
    running.delete(request);
    if (running.size > 0) return;
    for (const wake of waiters) wake();
    waiters.clear();
  };

  const refuseWhileStopping: MiddlewareHandler = async (c, next) => {
    if (stopping) {
      c.header('Connection', 'close');
      throw new ShuttingDownError('ctxproxy is shutting down; send the request again once it is back.');
    }
    await next();
  };

  const middleware: MiddlewareHandler = async (c, next) => {
    const request = c.req.raw;
    running.set(request, new AbortController());
    try {
      await next();
    } finally {
      finished(request);
    }
  };

  return {
    middleware,
    refuseWhileStopping,
    signalOf(request, outgoing) {
      const own = running.get(request);
      if (!own) return request.signal;
      if (outgoing) {
        // As @hono/node-server decides it for the request's own signal (a response closed before it
        // finished), without building that signal: one more AbortController and an EventTarget
        // listener per request, on the way to the model.
        const onClose = () => {
          if (!outgoing.writableFinished) own.abort(CLIENT_GONE);
        };
        // Closed already (the client left while its body was read): its 'close' has been and gone.
        if (outgoing.destroyed) onClose();
        else outgoing.once('close', onClose);
        return own.signal;
      }
      // The client leaving aborts the request's own controller: one signal for both, without the
      // AbortSignal.any (a new signal, weak references, a finalizer) every chat paid for.
      const client = request.signal;
      if (client.aborted) own.abort(client.reason);
      else client.addEventListener('abort', () => own.abort(client.reason), { once: true });
      return own.signal;
    },
    get size() {
      return running.size;
    },
    get stopping() {
      return stopping;
    },
    stop() {
      stopping = true;
    },
    idle(ms) {
      if (running.size === 0) return Promise.resolve(true);
      return new Promise<boolean>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          resolve(true);
        };
        const timer = setTimeout(() => {
          waiters.delete(wake);
          resolve(false);
        }, ms);
        waiters.add(wake);
      });
    },
    abortAll(reason) {
      for (const controller of running.values()) controller.abort(reason);
    },
  };
}
