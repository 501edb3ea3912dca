// The floor of the stack ctxproxy is built on: the same Hono server and the
// same `ollama` client, passing the stream through with nothing else (no
// pipeline, no redaction, no budget, no audit). The benchmark measures it in
// the same run, so ctxproxy's own share can be told from the stack's.

import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { Ollama } from 'ollama';

const upstream = process.argv[2] as string;
const encoder = new TextEncoder();
const app = new Hono();
app.post('/v1/chat/completions', async (c) => {
  const body = (await c.req.json()) as { model: string; messages: { role: string; content: string }[] };
  const ollama = new Ollama({ host: upstream });
  const stream = await ollama.chat({ model: body.model, messages: body.messages, stream: true });
  const iterator = stream[Symbol.asyncIterator]();
  return c.body(
    new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = await iterator.next();
        if (next.done) {
          controller.enqueue(encoder.encode('data: [DONE]\n\n'));
          controller.close();
          return;
        }
        const delta = { content: next.value.message.content };
        controller.enqueue(encoder.encode(`data: ${JSON.stringify({ choices: [{ index: 0, delta }] })}\n\n`));
      },
    }),
    200,
    { 'Content-Type': 'text/event-stream' },
  );
});
const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
server.once('listening', () => {
  process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
