// Graceful shutdown of the HTTP side: stop accepting, let requests in flight
// finish for the grace period, then end the rest (their streams get an error
// frame, their upstream calls are aborted, their snapshots say `aborted`), and
// return only when every request's handler is done, so that the caller can close
// the audit store knowing every snapshot was handed to it.

import type { Server } from 'node:http';
import type { Logger } from '../shared/ports.ts';
import { type InFlight, ShuttingDownError } from './inFlight.ts';

/** After the abort, how long the cut-off requests get to write their last frame and snapshot. */
export const ABORTED_SETTLE_MS = 5000;

export interface DrainOptions {
  /** Node's server; the connection-closing calls are optional (Deno's node:http may lack them). */
  server: Pick<Server, 'close'> & Partial<Pick<Server, 'closeIdleConnections' | 'closeAllConnections'>>;
  inFlight: InFlight;
  graceMs: number;
  logger: Logger;
  /** Set by a second signal: skip what is left of the grace period. */
  hurry?: AbortSignal | undefined;
}

export async function drainAndStop(options: DrainOptions): Promise<void> {
  const { server, inFlight, logger } = options;
  inFlight.stop();
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  // Keep-alive connections with no request would hold close() open; those mid-request stay.
  server.closeIdleConnections?.();
  const waiting = inFlight.size;
  if (waiting > 0) logger.info('server.draining', { inFlight: waiting, graceMs: options.graceMs });
  const done = await Promise.race([inFlight.idle(options.graceMs), hurried(options.hurry)]);
  if (!done) {
    logger.warn('server.grace_expired', { inFlight: inFlight.size });
    endAll(inFlight);
    if (!(await inFlight.idle(ABORTED_SETTLE_MS))) {
      logger.error('server.requests_stuck', { inFlight: inFlight.size });
    }
  }
  server.closeAllConnections?.();
  await closed;
}

/** Ends every request still in flight with an error that says why. */
export function endAll(inFlight: InFlight): void {
  inFlight.abortAll(
    new ShuttingDownError('ctxproxy is shutting down; the answer was cut off. Send the request again once it is back.'),
  );
}

function hurried(signal: AbortSignal | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    if (!signal) return;
    if (signal.aborted) resolve(false);
    else signal.addEventListener('abort', () => resolve(false), { once: true });
  });
}
