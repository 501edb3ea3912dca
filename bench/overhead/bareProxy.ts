// The floor of any Node proxy on this machine: node:http in, node:http out,
// NDJSON lines turned into SSE frames, nothing else (no framework, no client
// library, no pipeline). The benchmark measures it in the same run, so the
// targets can be read against what a second HTTP hop in Node costs here.

import http from 'node:http';
import type { AddressInfo } from 'node:net';

const upstream = new URL('/api/chat', process.argv[2] as string);
const agent = new http.Agent({ keepAlive: true });

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const { model, messages } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    const payload = JSON.stringify({ model, messages, stream: true });
    const call = http.request(upstream, {
      method: 'POST',
      agent,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
    });
    call.on('response', (answer) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      let pending = '';
      answer.setEncoding('utf8');
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
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
