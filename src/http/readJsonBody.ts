// Reads a JSON request body under a size limit. We count bytes ourselves
// instead of trusting Content-Length alone (chunked bodies have none), and we
// keep reading to the end before answering 413: a server that answers while
// the client is still sending gets its connection reset, and the client sees
// ECONNRESET instead of the error (reported against @hono/node-server, #327).

import { BadRequestError, PayloadTooLargeError } from '../shared/errors.ts';

export async function readJsonBody(request: Request, limitBytes: number): Promise<unknown> {
  const type = request.headers.get('content-type') ?? '';
  if (type && !/^application\/(?:[\w.+-]*\+)?json\b/i.test(type)) {
    throw new BadRequestError(`Content-Type must be application/json (got "${type}").`, 'invalid_content_type');
  }
  const text = await readLimited(request, limitBytes);
  if (text.trim() === '') throw new BadRequestError('The request body is empty; send a JSON object.', 'invalid_json');
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new BadRequestError(`The request body is not valid JSON: ${(error as Error).message}`, 'invalid_json');
  }
}

async function readLimited(request: Request, limitBytes: number): Promise<string> {
  const body = request.body;
  if (!body) return '';
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  let tooLarge = declared > limitBytes;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limitBytes) tooLarge = true;
    // Drain a little past the limit so the client reads our 413; past that, stop reading.
    if (total > limitBytes * 4) break;
    if (!tooLarge) chunks.push(value);
  }
  if (tooLarge) throw new PayloadTooLargeError(limitBytes);
  return Buffer.concat(chunks).toString('utf8');
}
