// The upstream transport against real sockets: it must fail and abort the way
// fetch does, since the error classifier and the abort tests rely on that.

import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { nodeHttpFetch } from '../../src/upstream/nodeHttpFetch.ts';

let server: Server;
let base: string;
const sockets = new Set<Socket>();
let hanging: ServerResponse | undefined;
let lastClosed: Promise<void> = Promise.resolve();
/** Resolved when the server has read a request to /never in full. */
let neverArrived: () => void = () => {};

before(async () => {
  server = createServer((request, response) => {
    lastClosed = new Promise((resolve) => request.socket.once('close', () => resolve()));
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.url === '/echo') {
        response.writeHead(201, { 'content-type': 'application/json', 'x-seen': request.headers['x-test'] ?? '' });
        response.end(JSON.stringify({ method: request.method, body: Buffer.concat(chunks).toString('utf8') }));
      } else if (request.url === '/big') {
        response.writeHead(200);
        response.end(Buffer.alloc(4 * 1024 * 1024, 'a'));
      } else if (request.url === '/half') {
        response.writeHead(200);
        response.write('first line\n');
        hanging = response;
      } else if (request.url === '/never') {
        // No answer at all.
        neverArrived();
      }
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('nodeHttpFetch', () => {
  test('sends method, headers and body; answers status, headers and body', async () => {
    const response = await nodeHttpFetch(`${base}/echo`, {
      method: 'POST',
      headers: { 'X-Test': 'yes', 'content-type': 'application/json' },
      body: '{"a":"é"}',
    });
    assert.equal(response.status, 201);
    assert.equal(response.ok, true);
    assert.equal(response.headers.get('x-seen'), 'yes');
    assert.deepEqual(await response.json(), { method: 'POST', body: '{"a":"é"}' });
  });

  test('a large body arrives whole', async () => {
    const response = await nodeHttpFetch(`${base}/big`);
    const bytes = new Uint8Array(await response.arrayBuffer());
    assert.equal(bytes.byteLength, 4 * 1024 * 1024);
    assert.ok(bytes.every((byte) => byte === 0x61));
  });

  test('a refused connection is `TypeError: fetch failed` with the socket error as cause', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await assert.rejects(nodeHttpFetch(`http://127.0.0.1:${port}/`), (error: unknown) => {
      assert.ok(error instanceof TypeError);
      assert.equal(error.message, 'fetch failed');
      assert.equal((error.cause as NodeJS.ErrnoException).code, 'ECONNREFUSED');
      return true;
    });
  });

  test('an abort before the answer rejects with the reason and closes the socket', async () => {
    const controller = new AbortController();
    const arrived = new Promise<void>((resolve) => {
      neverArrived = resolve;
    });
    const pending = nodeHttpFetch(`${base}/never`, { method: 'POST', body: 'x', signal: controller.signal });
    await arrived;
    const closed = lastClosed;
    controller.abort(new Error('client left'));
    await assert.rejects(pending, /client left/);
    await closed;
  });

  test('an abort during the body errors the reader with the reason and closes the socket', async () => {
    const controller = new AbortController();
    const response = await nodeHttpFetch(`${base}/half`, { signal: controller.signal });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    assert.equal(new TextDecoder().decode(first.value), 'first line\n');
    const closed = lastClosed;
    controller.abort(new Error('stop now'));
    await assert.rejects(reader.read(), /stop now/);
    await closed;
    hanging?.destroy();
  });

  test('an already aborted signal sends nothing', async () => {
    const before = sockets.size;
    await assert.rejects(nodeHttpFetch(`${base}/echo`, { signal: AbortSignal.abort(new Error('early')) }), /early/);
    assert.equal(sockets.size, before);
  });
});
