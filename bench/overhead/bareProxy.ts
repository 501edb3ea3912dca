// The floor of any Node proxy on this machine: node:http in, node:http out,
// nothing else (no framework, no client library, no pipeline). The benchmark
// measures it in the same run, so the targets can be read against what a second
// HTTP hop in Node costs here.
//
// `bareProxy.ts UPSTREAM` (Ollama): the chat goes to /api/chat; NDJSON lines
// become SSE frames, or a non-streamed answer becomes one `chat.completion`.
// `bareProxy.ts UPSTREAM openai`: the body and the answer pass through as they are.

import http from 'node:http';
import type { AddressInfo } from 'node:net';

const upstreamBase = process.argv[2] as string;
const kind = process.argv[3] === 'openai' ? 'openai' : 'ollama';
const agent = new http.Agent({ keepAlive: true });

function passThrough(body: Buffer, res: http.ServerResponse): void {
  const call = http.request(new URL('/v1/chat/completions', upstreamBase), {
    method: 'POST',
    agent,
    headers: { 'content-type': 'application/json', 'content-length': body.length },
  });
  call.on('response', (answer) => {
    res.writeHead(answer.statusCode ?? 502, { 'content-type': answer.headers['content-type'] ?? 'application/json' });
    answer.pipe(res);
  });
  call.on('error', () => res.destroy());
  call.end(body);
}

function fromOllama(body: Buffer, res: http.ServerResponse): void {
  const { model, messages, stream } = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
  const streamed = stream === true;
  const payload = JSON.stringify({ model, messages, stream: streamed });
  const call = http.request(new URL('/api/chat', upstreamBase), {
    method: 'POST',
    agent,
    headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
  });
  call.on('response', (answer) => {
    answer.setEncoding('utf8');
    if (!streamed) {
      let text = '';
      answer.on('data', (part: string) => {
        text += part;
      });
      answer.on('end', () => {
        const parsed = JSON.parse(text) as { message?: { content?: string } };
        const json = JSON.stringify({
          object: 'chat.completion',
          model,
          choices: [
            { index: 0, message: { role: 'assistant', content: parsed.message?.content }, finish_reason: 'stop' },
          ],
        });
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) });
        res.end(json);
      });
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    let pending = '';
    answer.on('data', (text: string) => {
      pending += text;
      let frames = '';
      for (let end = pending.indexOf('\n'); end >= 0; end = pending.indexOf('\n')) {
        const line = pending.slice(0, end);
        pending = pending.slice(end + 1);
        if (line === '') continue;
        const parsed = JSON.parse(line) as { done?: boolean; message?: { content?: string } };
        if (!parsed.done)
          frames += `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: parsed.message?.content } }] })}\n\n`;
      }
      if (frames) res.write(frames);
    });
    answer.on('end', () => res.end('data: [DONE]\n\n'));
  });
  call.on('error', () => res.destroy());
  call.end(payload);
}

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => (kind === 'openai' ? passThrough : fromOllama)(Buffer.concat(chunks), res));
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
