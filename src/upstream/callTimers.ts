// The timers every upstream call runs under. The first-byte timer: a model that
// is still loading may stay silent for a while, but not forever. For a stream,
// then the idle timer between chunks (stallWatch.ts). Either aborts the call
// through `signal`, and `context()` says which to classifyUpstreamFailure (a
// 504 that names the wait, not a dropped connection).

import { clearTimeout, setTimeout } from 'node:timers';
import { createStallWatch, type StallWatch } from './stallWatch.ts';
import type { UpstreamFailureContext } from './upstreamErrors.ts';

export interface FirstByteTimer {
  /** Aborted when the timer fires or `abort()` is called; pass it on with the caller's signal. */
  readonly signal: AbortSignal;
  /** The first byte came, or the call is over: the timer stops. */
  stop(): void;
  /** Ends the call from our side (a stall, the consumer left). */
  abort(): void;
  /**
   * From now on the caller's signal aborts `signal` too (with its reason), so `signal` alone can
   * carry the call; returns the function that stops following.
   */
  follow(): () => void;
  /** What classifyUpstreamFailure needs to know about this call. */
  context(): UpstreamFailureContext;
}

export interface FirstByteCall {
  kind: UpstreamFailureContext['kind'];
  baseUrl: string;
  model: string;
  /** The caller's signal (the client went away). */
  signal: AbortSignal;
  timeoutMs: number;
}

export function startFirstByteTimer(call: FirstByteCall): FirstByteTimer {
  const local = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    local.abort();
  }, call.timeoutMs);
  timer.unref();
  return {
    signal: local.signal,
    stop: () => clearTimeout(timer),
    abort: () => local.abort(),
    follow() {
      // A listener where AbortSignal.any would add a signal (weak references, a finalizer) to every call.
      const caller = call.signal;
      if (caller.aborted) {
        local.abort(caller.reason);
        return () => {};
      }
      const onAbort = () => local.abort(caller.reason);
      caller.addEventListener('abort', onAbort, { once: true });
      return () => caller.removeEventListener('abort', onAbort);
    },
    context: () => ({
      kind: call.kind,
      baseUrl: call.baseUrl,
      model: call.model,
      signal: call.signal,
      timedOutAfterMs: timedOut ? call.timeoutMs : undefined,
    }),
  };
}

export interface StreamTimers extends FirstByteTimer {
  /** The idle timer: tell it when the stream waits and when a chunk came. */
  readonly watch: StallWatch;
}

/** A streamed call: the first-byte timer until the first chunk, then the idle timer. */
export function startStreamTimers(call: FirstByteCall & { idleTimeoutMs: number }): StreamTimers {
  const timer = startFirstByteTimer(call);
  const watch = createStallWatch(call.idleTimeoutMs, timer.abort);
  return {
    ...timer,
    watch,
    context: () => ({ ...timer.context(), stalledAfterMs: watch.stalled ? call.idleTimeoutMs : undefined }),
  };
}

/**
 * The items of `source` under the stream's timers: before the first item the
 * first-byte timer runs; after it, the idle timer, while we wait only (a slow
 * consumer is not the upstream's fault).
 */
export async function* timedItems<T>(source: AsyncIterator<T>, timers: StreamTimers): AsyncGenerator<T, void> {
  let answered = false;
  for (;;) {
    if (answered) timers.watch.waiting();
    const next = await source.next();
    timers.watch.received();
    if (next.done) return;
    if (!answered) {
      answered = true;
      timers.stop();
    }
    yield next.value;
  }
}
