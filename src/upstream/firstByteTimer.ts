// The first-byte timer every upstream call runs under: a model that is still
// loading may stay silent for a while, but not forever. When it fires it aborts
// the call through `signal`, and `context()` says so to classifyUpstreamFailure
// (a 504 that names the wait, not a dropped connection).

import { clearTimeout, setTimeout } from 'node:timers';
import type { UpstreamFailureContext } from './upstreamErrors.ts';

export interface FirstByteTimer {
  /** Aborted when the timer fires or `abort()` is called; pass it on with the caller's signal. */
  readonly signal: AbortSignal;
  /** The first byte came, or the call is over: the timer stops. */
  stop(): void;
  /** Ends the call from our side (a stall, the consumer left). */
  abort(): void;
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
    context: () => ({
      kind: call.kind,
      baseUrl: call.baseUrl,
      model: call.model,
      signal: call.signal,
      timedOutAfterMs: timedOut ? call.timeoutMs : undefined,
    }),
  };
}
