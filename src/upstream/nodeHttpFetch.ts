// A `fetch` for the upstream calls, on node:http with one keep-alive agent.
//
// Why not the global fetch: on the proxy's hot path it was the largest single
// cost we could remove (bench/overhead has the figures): undici's fetch clones
// Request/Response, tees the body and runs web-stream plumbing per chunk. The
// `ollama` client and the
// OpenAI-compatible adapter take a `fetch` option, so they keep their own code
// and only the transport changes. Only what those two callers use is supported:
// http(s) URLs, a string or byte body, plain headers, a signal; no redirects,
// no cookies, no compression (a loopback upstream sends none).
//
// Behaves like fetch where callers look: a socket error rejects with
// `TypeError('fetch failed', { cause })`, an abort with the signal's reason
// (before the answer) or errors the body stream (during it), and an abort
// destroys the socket, so the upstream sees the client leave.

import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';

const httpAgent = new http.Agent({ keepAlive: true });
const httpsAgent = new https.Agent({ keepAlive: true });

export const nodeHttpFetch: typeof fetch = (input, init) =>
  new Promise<Response>((resolve, reject) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const signal = init?.signal ?? undefined;
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const body = bodyBytes(init?.body);
    const headers = headerRecord(init?.headers);
    if (body !== undefined) headers['content-length'] = String(body.byteLength);
    const secure = url.protocol === 'https:';
    const request = (secure ? https : http).request(url, {
      method: init?.method ?? 'GET',
      headers,
      agent: secure ? httpsAgent : httpAgent,
    });

    let answered = false;
    let bodyController: ReadableStreamDefaultController<Uint8Array> | undefined;
    const onAbort = () => {
      const reason: unknown = signal?.reason;
      request.destroy();
      if (!answered) reject(reason);
      else bodyController?.error(reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const detach = () => signal?.removeEventListener('abort', onAbort);

    request.once('error', (error) => {
      detach();
      if (signal?.aborted) return;
      const failure = new TypeError('fetch failed', { cause: error });
      if (!answered) reject(failure);
      else bodyController?.error(new TypeError('terminated', { cause: error }));
    });

    request.once('response', (incoming) => {
      answered = true;
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          bodyController = controller;
          incoming.on('data', (chunk: Buffer) => {
            controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
            // Backpressure: stop reading the socket while the reader is behind.
            if ((controller.desiredSize ?? 1) <= 0) incoming.pause();
          });
          incoming.once('end', () => {
            detach();
            controller.close();
          });
          // The connection broke mid-answer (or our abort destroyed it: then the reason is already set).
          incoming.once('error', (error) => {
            detach();
            controller.error(signal?.aborted ? signal.reason : new TypeError('terminated', { cause: error }));
          });
        },
        pull() {
          incoming.resume();
        },
        cancel() {
          detach();
          request.destroy();
        },
      });
      resolve(new NodeHttpResponse(incoming, noBodyStatus(incoming.statusCode) ? null : stream) as unknown as Response);
    });

    request.end(body);
  });

/**
 * The part of a fetch Response its callers read: status, headers, the body as a stream, and
 * `text`/`json`/`arrayBuffer`. Not undici's Response: building one (and its Headers) for every
 * upstream call was a measurable share of a request (bench/overhead/README.md, "From outside");
 * the headers are made into a Headers only when read, which the error paths do.
 */
class NodeHttpResponse {
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  readonly body: ReadableStream<Uint8Array> | null;
  #incoming: IncomingMessage;
  #headers: Headers | undefined;
  #used = false;

  constructor(incoming: IncomingMessage, body: ReadableStream<Uint8Array> | null) {
    this.#incoming = incoming;
    this.status = incoming.statusCode ?? 502;
    this.statusText = incoming.statusMessage ?? '';
    this.ok = this.status >= 200 && this.status < 300;
    this.body = body;
  }

  get headers(): Headers {
    this.#headers ??= responseHeaders(this.#incoming);
    return this.#headers;
  }

  get bodyUsed(): boolean {
    return this.#used;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    if (this.#used) throw new TypeError('Body is unusable: Body has already been read');
    this.#used = true;
    if (!this.body) return new ArrayBuffer(0);
    const parts: Uint8Array[] = [];
    const reader = this.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
    }
    const bytes = Buffer.concat(parts);
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  async text(): Promise<string> {
    return new TextDecoder().decode(await this.arrayBuffer());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }
}

function bodyBytes(body: RequestInit['body']): Uint8Array | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  throw new TypeError('nodeHttpFetch sends string or byte bodies only');
}

function headerRecord(init: RequestInit['headers']): Record<string, string> {
  const record: Record<string, string> = {};
  if (init === undefined) return record;
  if (init instanceof Headers || Array.isArray(init)) {
    for (const [name, value] of new Headers(init)) record[name] = value;
    return record;
  }
  for (const [name, value] of Object.entries(init as Record<string, string>)) record[name.toLowerCase()] = value;
  return record;
}

function responseHeaders(incoming: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const item of value) headers.append(name, item);
  }
  return headers;
}

/** A Response with one of these statuses must not have a body. */
function noBodyStatus(status: number | undefined): boolean {
  return status === 204 || status === 205 || status === 304;
}
