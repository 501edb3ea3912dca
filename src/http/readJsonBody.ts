// Reads a JSON request body under a size limit. We count bytes ourselves
// instead of trusting Content-Length alone (chunked bodies have none), and we
// keep reading to the end before answering 413: a server that answers while
// the client is still sending gets its connection reset, and the client sees
// ECONNRESET instead of the error (reported against @hono/node-server, #327).

import { setImmediate } from 'node:timers/promises';
import { BadRequestError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../shared/errors.ts';
import { checkJsonShape } from './jsonShape.ts';

const YIELD_ABOVE_CHARS = 1024 * 1024;

/**
 * `nodeBody` is Node's own request stream when the server runs on
 * @hono/node-server: reading it directly skips building a web ReadableStream
 * for every request. Elsewhere (Deno) the web body is read.
 */
export async function readJsonBody(
  request: Request,
  limitBytes: number,
  nodeBody?: AsyncIterable<Uint8Array>,
): Promise<unknown> {
  // No type is no JSON: a page on any site may send a body without one (no-cors fetch, sendBeacon).
  const type = request.headers.get('content-type') ?? '';
  if (!/^application\/(?:[\w.+-]*\+)?json\s*(?:;|$)/i.test(type)) {
    throw new UnsupportedMediaTypeError(
      'Send the request body as JSON with the header "Content-Type: application/json".',
    );
  }
  const text = await readLimited(request, limitBytes, nodeBody);
  if (text.trim() === '') throw new BadRequestError('The request body is empty; send a JSON object.', 'invalid_json');
  // Each step below is synchronous and grows with the body: other requests get a turn between them.
  const large = text.length > YIELD_ABOVE_CHARS;
  if (large) await setImmediate();
  checkJsonShape(text);
  if (large) await setImmediate();
  try {
    const json = JSON.parse(text);
    if (large) await setImmediate();
    return json;
  } catch (error) {
    // A RangeError (nesting past the engine's stack) is the body's fault too.
    throw new BadRequestError(`The request body is not valid JSON: ${(error as Error).message}`, 'invalid_json');
  }
}

async function readLimited(
  request: Request,
  limitBytes: number,
  nodeBody: AsyncIterable<Uint8Array> | undefined,
): Promise<string> {
  const body = nodeBody ?? request.body;
  if (!body) return '';
  // Decoded chunk by chunk as it arrives: one decode of a large body at the end would block the event loop.
  const decoder = new TextDecoder();
  const parts: string[] = [];
  let total = 0;
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  let tooLarge = declared > limitBytes;
  for await (const value of body) {
    total += value.byteLength;
    if (total > limitBytes) tooLarge = true;
    // Drain a little past the limit so the client reads our 413; past that, stop reading.
    if (total > limitBytes * 4) break;
    if (!tooLarge) parts.push(decoder.decode(value, { stream: true }));
  }
  if (tooLarge) throw new PayloadTooLargeError(limitBytes);
  parts.push(decoder.decode());
  return parts.join('');
}
