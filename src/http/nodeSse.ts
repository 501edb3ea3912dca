// Streams SSE replies straight into Node's response when @hono/node-server runs
// the app (always, in ctxproxy). Why not Hono's `c.body(ReadableStream)`: that
// path adds a web stream and a reader loop per response, a cost bench/overhead
// measures on every streamed chat.
//
// The head is still Hono's: the route answers `c.body(null, 200, headers)` and
// leaves its chunks in `sseChunks` (routeKit.ts's replySse); every middleware
// inside this one sets its headers on that response as on any other (the
// security headers, CORS, the request id); this middleware then writes that
// response's status and headers, once, and the chunks after them. So a header
// is named in one place and no stream goes without it.

import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { MiddlewareHandler } from 'hono';
import { answeredThroughNode, nodeResponseOf } from './nodeServerInternals.ts';

export type SseReplyVariables = {
  /** A route's SSE body, left for nodeSseReplies to write under the head the middleware built. */
  sseChunks: AsyncGenerator<string, void, undefined>;
};

/** Mounted inside the middleware that must outlast a stream (in-flight count, request log), outside the rest. */
export function nodeSseReplies(): MiddlewareHandler<{ Variables: SseReplyVariables }> {
  return async (c, next) => {
    await next();
    const chunks = c.get('sseChunks');
    if (chunks === undefined) return;
    const outgoing = nodeResponseOf(c);
    // An error after the route answered replaced its response: that error is the answer, the stream is dropped.
    if (outgoing === undefined || c.error !== undefined) {
      await chunks.return();
      return;
    }
    await writeSse(outgoing, c.res.status, nodeHeaders(c.res.headers), chunks);
    answeredThroughNode(c);
  };
}

/** A fetch Headers as Node's writeHead takes them (each Set-Cookie on its own). */
function nodeHeaders(headers: Headers): OutgoingHttpHeaders {
  const head: OutgoingHttpHeaders = {};
  headers.forEach((value, name) => {
    head[name] = value;
  });
  const cookies = headers.getSetCookie();
  if (cookies.length > 0) head['set-cookie'] = cookies;
  return head;
}

/**
 * Writes the status line, `headers` and every chunk, waiting on backpressure.
 * When the client goes away the chunks are abandoned (`return()`), which ends
 * the upstream call behind them. Never throws: the headers are out by then.
 */
async function writeSse(
  response: ServerResponse,
  status: number,
  headers: OutgoingHttpHeaders,
  chunks: AsyncGenerator<string, void, undefined>,
): Promise<void> {
  let gone = false;
  const onClose = () => {
    gone = true;
  };
  response.once('close', onClose);
  try {
    response.writeHead(status, headers);
    for await (const text of chunks) {
      if (gone || response.destroyed) break;
      holdUntilTurnEnds(response);
      if (!response.write(text)) await drainedOrClosed(response);
    }
  } catch {
    // Only the chunks can throw here (sseChunks turns upstream failures into an error frame);
    // nothing more can be told to the client.
  } finally {
    response.off('close', onClose);
    if (!response.writableEnded) response.end();
  }
}

/**
 * Chunks that arrive in one turn of the event loop (the last tokens, the finish
 * and usage frames, the end of the body) leave in one write: each write to a
 * loopback socket also wakes the client. In bench/overhead this halved the
 * writes per streamed chat (4 to 2) and gained a few percent; a token that
 * arrives alone still leaves at once, at the end of its turn.
 */
function holdUntilTurnEnds(response: ServerResponse): void {
  if (response.writableCorked > 0) return;
  response.cork();
  setImmediate(() => response.uncork());
}

function drainedOrClosed(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.on('drain', done);
    response.on('close', done);
  });
}
