// The floor of the stack ctxproxy is built on: the same Hono server on
// @hono/node-server, the same `ollama` client over the same transport
// (nodeHttpFetch), the SSE written to Node's response the same way, and
// nothing else (no pipeline, no redaction, no budget, no audit). The benchmark
// measures it in the same run, so ctxproxy's own share can be told from the stack's.

import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { Ollama } from 'ollama';
import { nodeResponseOf, RESPONSE_ALREADY_SENT } from '../../src/http/nodeServerInternals.ts';
import { nodeHttpFetch } from '../../src/upstream/nodeHttpFetch.ts';

const upstream = process.argv[2] as string;
const app = new Hono();
app.post('/v1/chat/completions', async (c) => {
  const body = (await c.req.json()) as { model: string; messages: { role: string; content: string }[] };
  const ollama = new Ollama({ host: upstream, fetch: nodeHttpFetch });
  const stream = await ollama.chat({ model: body.model, messages: body.messages, stream: true });
  const response = nodeResponseOf(c);
  if (!response) throw new Error('runs on @hono/node-server only');
  response.writeHead(200, { 'Content-Type': 'text/event-stream' });
  for await (const line of stream) {
    if (line.done) break;
    const delta = { content: line.message.content };
    response.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta }] })}\n\n`);
  }
  response.end('data: [DONE]\n\n');
  return RESPONSE_ALREADY_SENT;
});
const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
server.once('listening', () => {
  process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
