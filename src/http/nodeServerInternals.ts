// What ctxproxy uses of @hono/node-server beyond its documented API, in one
// place, so an upgrade has one file to check.
//
// Why at all: request bodies and SSE replies are the hot path. Reading Node's
// request stream directly skips a web ReadableStream per request (readJsonBody.ts),
// and writing SSE into Node's response skips a web stream and a reader loop per
// reply (nodeSse.ts). @hono/node-server passes both Node objects to the app as
// `env.incoming` / `env.outgoing`, and takes the RESPONSE_ALREADY_SENT marker
// as the app's answer once the app has answered through `outgoing` itself. Each accessor
// returns undefined when the app runs elsewhere (Deno, `app.request` in tests),
// and the callers then take Hono's ordinary path.

import type { ServerResponse } from 'node:http';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { Context } from 'hono';

export { RESPONSE_ALREADY_SENT };

/** Node's own request stream (`env.incoming`). */
export function nodeRequestOf(c: Context): AsyncIterable<Uint8Array> | undefined {
  const incoming = (c.env as { incoming?: unknown } | undefined)?.incoming;
  return incoming && typeof incoming === 'object' && Symbol.asyncIterator in incoming
    ? (incoming as AsyncIterable<Uint8Array>)
    : undefined;
}

/** Node's response object (`env.outgoing`). */
export function nodeResponseOf(c: Context): ServerResponse | undefined {
  const outgoing = (c.env as { outgoing?: unknown } | undefined)?.outgoing;
  return outgoing && typeof outgoing === 'object' && 'writeHead' in outgoing && 'write' in outgoing
    ? (outgoing as ServerResponse)
    : undefined;
}

/**
 * After the head and body went out through `outgoing`: makes the marker itself
 * the app's answer. Hono's `c.res` setter copies a new response into the one
 * it holds, and @hono/node-server writes a head for such a copy (a second one,
 * an error once the first is out); unset first, the marker is kept as it is.
 */
export function answeredThroughNode(c: Context): void {
  c.res = undefined as unknown as Response;
  c.res = RESPONSE_ALREADY_SENT;
}
