// Streams SSE chunks straight into Node's response when @hono/node-server runs
// the app (always, in ctxproxy). Why not Hono's `c.body(ReadableStream)`: that
// path adds a web stream and a reader loop per response, a cost bench/overhead
// measures on every streamed chat. The handler then returns RESPONSE_ALREADY_SENT.

import type { ServerResponse } from 'node:http';

/**
 * Writes the status line, `headers` and every chunk, waiting on backpressure.
 * When the client goes away the chunks are abandoned (`return()`), which ends
 * the upstream call behind them. Never throws: the headers are out by then.
 */
export async function writeSse(
  response: ServerResponse,
  headers: Record<string, string>,
  chunks: AsyncGenerator<string, void, undefined>,
): Promise<void> {
  let gone = false;
  const onClose = () => {
    gone = true;
  };
  response.once('close', onClose);
  try {
    response.writeHead(200, headers);
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
