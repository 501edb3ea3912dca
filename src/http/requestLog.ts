// One `http.request` log event per API call, when its answer is done: the route,
// the status the client got and the time it took (the audit's `request.done`
// adds the mode and the tokens; the terminal log joins the two by request id).
// Never the query string: a client may put anything in it.

import type { MiddlewareHandler } from 'hono';
import type { Logger } from '../shared/ports.ts';
import { nodeResponseOf } from './nodeServerInternals.ts';
import type { RouteEnv } from './routeKit.ts';

export function requestLog(logger: Logger, now: () => number = Date.now): MiddlewareHandler<RouteEnv> {
  return async (c, next) => {
    const started = now();
    try {
      await next();
    } finally {
      // A reply streamed through Node's response (SSE) has sent its head already; Hono's `c.res`
      // must not be read then (see routeKit.ts's replySse).
      const outgoing = nodeResponseOf(c);
      const status = outgoing?.headersSent ? outgoing.statusCode : c.res.status;
      logger.info('http.request', {
        requestId: c.get('requestId'),
        method: c.req.method,
        route: c.req.path,
        status,
        ms: now() - started,
      });
    }
  };
}
