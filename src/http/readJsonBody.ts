// Reads a JSON request body under a size limit. We count bytes ourselves
// instead of trusting Content-Length alone (chunked bodies have none), and we
// keep reading to the end before answering 413: a server that answers while
// the client is still sending gets its connection reset, and the client sees
// ECONNRESET instead of the error (reported against @hono/node-server, #327).

import { type CpuPool, sharedCpuPool, taskModule } from '../shared/cpuPool.ts';
import { BadRequestError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../shared/errors.ts';
import { checkJsonShape } from './jsonShape.ts';

/**
 * Larger bodies are decoded, shape-checked and parsed in the CPU pool (bodyTask.ts): for 10 MB that is
 * 100-200 ms of work no other request should wait behind. Below, inline: a 1 MB body takes a few ms.
 */
export const POOL_ABOVE_BYTES = 1024 * 1024;
/** Generous: decoding and parsing 10 MB takes well under a second; this only bounds a worker gone wrong. */
const POOL_LIMIT_MS = 10_000;

/** A parse's outcome as plain data (it crosses from the pool's worker): the value, or the 400 to answer. */
export type ParsedBody =
  | { ok: true; value: unknown }
  | { ok: false; message: string; code: string | null; param: string | null };

/** Checks the shape, then parses: every way a text is not an acceptable JSON body is a 400. */
export function parseJsonText(text: string): ParsedBody {
  try {
    if (text.trim() === '') throw new BadRequestError('The request body is empty; send a JSON object.', 'invalid_json');
    checkJsonShape(text);
    try {
      return { ok: true, value: JSON.parse(text) };
    } catch (error) {
      // A RangeError (nesting past the engine's stack) is the body's fault too.
      throw new BadRequestError(`The request body is not valid JSON: ${(error as Error).message}`, 'invalid_json');
    }
  } catch (error) {
    if (error instanceof BadRequestError)
      return { ok: false, message: error.message, code: error.code, param: error.param };
    throw error;
  }
}

/**
 * `nodeBody` is Node's own request stream when the server runs on
 * @hono/node-server: reading it directly skips building a web ReadableStream
 * for every request. Elsewhere (Deno) the web body is read.
 */
export async function readJsonBody(
  request: Request,
  limitBytes: number,
  nodeBody?: AsyncIterable<Uint8Array>,
  pool: CpuPool | undefined = sharedCpuPool(),
): Promise<unknown> {
  // No type is no JSON: a page on any site may send a body without one (no-cors fetch, sendBeacon).
  const type = request.headers.get('content-type') ?? '';
  if (!/^application\/(?:[\w.+-]*\+)?json\s*(?:;|$)/i.test(type)) {
    throw new UnsupportedMediaTypeError(
      'Send the request body as JSON with the header "Content-Type: application/json".',
    );
  }
  const bytes = await readLimited(request, limitBytes, nodeBody);
  // A pool that fails (its worker did not start, crashed or hung) does not fail the request: the body
  // is parsed here instead, holding the loop once rather than refusing a client that did nothing wrong.
  const parsed =
    pool && bytes.total > POOL_ABOVE_BYTES
      ? await pool
          .run<ParsedBody>(parseTask(bytes.joined ?? joined(bytes)), POOL_LIMIT_MS)
          .catch(() => parseJsonText(decoded(bytes.chunks)))
      : parseJsonText(decoded(bytes.chunks));
  if (!parsed.ok) throw new BadRequestError(parsed.message, parsed.code, parsed.param);
  return parsed.value;
}

const bodyTask = taskModule('bodyTask', import.meta.url);

/** The joined bytes move to the worker (a copy of 10 MB is 2-9 ms of this thread); the chunks stay for the fallback. */
function parseTask(all: Uint8Array) {
  return { module: bodyTask, name: 'parseJsonBytes', args: [all], transfer: [all.buffer as ArrayBuffer] };
}

function decoded(chunks: readonly Uint8Array[]): string {
  const decoder = new TextDecoder();
  return chunks.map((chunk) => decoder.decode(chunk, { stream: true })).join('') + decoder.decode();
}

/** One array of the body's bytes, ours to transfer (the chunks may be views of Node's shared pool). */
function joined(bytes: BodyBytes): Uint8Array {
  const all = new Uint8Array(bytes.total);
  let at = 0;
  for (const chunk of bytes.chunks) {
    all.set(chunk, at);
    at += chunk.byteLength;
  }
  return all;
}

interface BodyBytes {
  chunks: Uint8Array[];
  total: number;
  /** The body in one array, filled as it arrived: a body declared large enough for the pool. */
  joined?: Uint8Array | undefined;
}

async function readLimited(
  request: Request,
  limitBytes: number,
  nodeBody: AsyncIterable<Uint8Array> | undefined,
): Promise<BodyBytes> {
  const body = nodeBody ?? request.body;
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (!body) return { chunks, total };
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  let tooLarge = declared > limitBytes;
  // Copied chunk by chunk as it comes (64 KB at a time) rather than joined at the end: 10 MB copied at
  // once, into fresh pages, held the event loop for 10 ms.
  let joinedSoFar = declared > POOL_ABOVE_BYTES && !tooLarge ? new Uint8Array(declared) : undefined;
  for await (const value of body) {
    if (joinedSoFar && total + value.byteLength <= joinedSoFar.byteLength) joinedSoFar.set(value, total);
    else joinedSoFar = undefined;
    total += value.byteLength;
    if (total > limitBytes) tooLarge = true;
    // Drain a little past the limit so the client reads our 413; past that, stop reading.
    if (total > limitBytes * 4) break;
    if (!tooLarge) chunks.push(value);
  }
  if (tooLarge) throw new PayloadTooLargeError(limitBytes);
  return { chunks, total, joined: joinedSoFar?.byteLength === total ? joinedSoFar : undefined };
}
