// A streamed answer's last frames are on the wire before ctxproxy finishes its
// audit of the request (the final save and the log line): that work is the
// proxy's, and the client should not wait for it (issue 15, time to first
// chunk). The request's in-flight record is on disk before the prompt went
// upstream, so nothing is lost by writing the final version a moment later.
//
// How it is seen without timing: the client's socket is left unread by Node
// (paused), and when the server logs `request.done` the test reads whatever the
// kernel already holds for that socket, with a non-blocking read of its fd.

import assert from 'node:assert/strict';
import { readSync } from 'node:fs';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Logger } from '../../src/shared/ports.ts';
import { type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { type RunningProxy, startProxy } from '../support/proxy.ts';

/** What the kernel holds for a socket Node is not reading, without waiting for more. */
function readWaiting(fd: number): string {
  const buffer = Buffer.alloc(64 * 1024);
  let text = '';
  for (;;) {
    try {
      const read = readSync(fd, buffer, 0, buffer.length, null);
      if (read === 0) return text;
      text += buffer.toString('utf8', 0, read);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EAGAIN') return text;
      throw error;
    }
  }
}

describe('the end of a streamed answer', () => {
  let fake: FakeOllama;
  let proxy: RunningProxy;
  let clientFd = -1;
  const onTheWireAtDone: string[] = [];

  before(async () => {
    fake = await startFakeOllama();
    const logger: Logger = {
      info: (event) => {
        if (event === 'request.done' && clientFd >= 0) onTheWireAtDone.push(readWaiting(clientFd));
      },
      warn: () => {},
      error: () => {},
    };
    proxy = await startProxy({ upstreamUrl: fake.url, logger });
  });
  after(async () => {
    await proxy.close();
    await fake.close();
  });

  it('reaches the client before the audit saves the final snapshot and logs the request', async () => {
    const { port } = new URL(proxy.url);
    const socket = net.connect(Number(port), '127.0.0.1');
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    // Node stops reading it: what the server writes stays in the kernel for readWaiting.
    socket.pause();
    clientFd = (socket as unknown as { _handle: { fd: number } })._handle.fd;
    assert.ok(clientFd >= 0, 'the socket has a file descriptor');
    const body = JSON.stringify({
      model: 'qwen2.5-coder:7b',
      stream: true,
      messages: [{ role: 'user', content: 'where does the answer end?' }],
    });
    socket.write(
      `POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    const deadline = Date.now() + 10_000;
    while (onTheWireAtDone.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    socket.destroy();
    assert.equal(onTheWireAtDone.length, 1, 'the request was logged once');
    const wire = onTheWireAtDone[0] ?? '';
    assert.match(wire, /^HTTP\/1\.1 200/, 'the head was out');
    assert.match(wire, /"content":"Hello from "/, 'the answer was out');
    assert.match(wire, /data: \[DONE\]\n\n/, 'and its last frame');
  });
});
