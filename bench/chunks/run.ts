// CPU per streamed chunk and memory after mixed requests: the real `ctxproxy serve`
// beside a bare node:http pass-through (bench/overhead/bareProxy.ts), in the same run.
// Run: npm run bench -- chunks [--requests 20] [--blocks 4] [--mixed 1000]
// Linux only: CPU time and RSS are read from /proc/PID.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { cpuMs, startCtxproxy, startScript } from '../support/processes.ts';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '20' },
    blocks: { type: 'string', default: '4' },
    mixed: { type: 'string', default: '1000' },
  },
});
const REQUESTS = Number(values.requests);
const BLOCKS = Number(values.blocks);
const MIXED = Number(values.mixed);
const MODEL = 'qwen2.5-coder:7b';
const LONG = 300;
const SHORT = 30;
const agent = new http.Agent({ keepAlive: true });

function rssMb(pid: number): number {
  const line = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(line?.[1]) / 1024;
}

/** One chat through a proxy, read to its end; resolves with the number of SSE data frames. */
function chat(url: string, question: string, stream: boolean, mode?: string): Promise<number> {
  const body = JSON.stringify({ model: MODEL, stream, messages: [{ role: 'user', content: question }] });
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          ...(mode ? { 'x-ctx-mode': mode } : {}),
        },
      },
      (response) => {
        let frames = 0;
        response.setEncoding('utf8');
        response.on('data', (text: string) => {
          frames += text.split('data: ').length - 1;
        });
        response.on('end', () =>
          response.statusCode === 200 ? resolve(frames) : reject(new Error(`HTTP ${response.statusCode}`)),
        );
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

let asked = 0;
async function cpuOf(pid: number, url: string): Promise<number> {
  const before = cpuMs(pid);
  for (let i = 0; i < REQUESTS; i++) await chat(url, `question ${++asked}: what does line ${asked} do?`, true);
  return cpuMs(pid) - before;
}

const fakeLong = await startScript('bench/soak/fakeTokens.ts', [String(LONG), '1000']);
const fakeShort = await startScript('bench/soak/fakeTokens.ts', [String(SHORT), '1000']);
const root = path.join(import.meta.dirname, '../..');
// The repository is the workspace of the mixed requests; its audit log goes elsewhere.
const scratch = mkdtempSync(path.join(tmpdir(), 'ctxproxy-bench-chunks-'));
const proxies = [
  {
    name: 'bare node:http',
    long: await startScript('bench/overhead/bareProxy.ts', [fakeLong.url]),
    short: await startScript('bench/overhead/bareProxy.ts', [fakeShort.url]),
  },
  {
    name: 'ctxproxy',
    long: await startCtxproxy(fakeLong.url, ['--workspace', root, '--db', path.join(scratch, 'audit.db')]),
    short: await startCtxproxy(fakeShort.url),
  },
];
const urls = (child: { url: string }, name: string) =>
  name === 'ctxproxy' ? `${child.url}/v1/chat/completions` : child.url;
try {
  console.log(
    `ctxproxy chunk bench — node ${process.version}, ${BLOCKS} blocks × ${REQUESTS} streamed requests per side, ${LONG} and ${SHORT} chunks per reply`,
  );
  // Warm-up, then interleaved blocks: each block runs every proxy on both reply lengths.
  for (const p of proxies) {
    await chat(urls(p.long, p.name), 'warm', true);
    await chat(urls(p.short, p.name), 'warm', true);
  }
  const totals = proxies.map(() => ({ long: 0, short: 0 }));
  for (let block = 0; block < BLOCKS; block++) {
    for (let k = 0; k < proxies.length; k++) {
      const index = (block + k) % proxies.length;
      const p = proxies[index]!;
      totals[index]!.long += await cpuOf(p.long.process.pid as number, urls(p.long, p.name));
      totals[index]!.short += await cpuOf(p.short.process.pid as number, urls(p.short, p.name));
    }
  }
  const n = BLOCKS * REQUESTS;
  const perChunk = totals.map((t) => ({
    all: (t.long / (n * LONG)) * 1000,
    marginal: ((t.long - t.short) / (n * (LONG - SHORT))) * 1000,
    request: t.long / n,
  }));
  proxies.forEach((p, i) => {
    const c = perChunk[i]!;
    console.log(
      `${p.name.padEnd(16)} CPU per ${LONG}-chunk reply ${c.request.toFixed(1)} ms   per chunk ${c.all.toFixed(1)} µs   marginal per chunk (${LONG} vs ${SHORT}) ${c.marginal.toFixed(1)} µs`,
    );
  });
  console.log(
    `ratio ctxproxy / bare: per chunk ${(perChunk[1]!.all / perChunk[0]!.all).toFixed(1)}×, marginal ${(perChunk[1]!.marginal / perChunk[0]!.marginal).toFixed(1)}× (target ≤ 2×)`,
  );

  // Memory: mixed requests on the long-reply server, whose workspace is this repository.
  const server = proxies[1]!.long;
  const pid = server.process.pid as number;
  const url = urls(server, 'ctxproxy');
  console.log(`ctxproxy RSS before the mixed requests: ${rssMb(pid).toFixed(0)} MB`);
  const modes = ['off', 'git-aware', 'deep'];
  for (let i = 0; i < MIXED; i++) {
    await chat(url, `mixed ${i}: where is the parser configured?`, i % 2 === 0, modes[i % 3]);
    if ((i + 1) % 250 === 0) console.log(`  after ${i + 1} mixed requests: ${rssMb(pid).toFixed(0)} MB RSS`);
  }
} finally {
  for (const p of proxies) {
    await p.long.stop();
    await p.short.stop();
  }
  await fakeLong.stop();
  await fakeShort.stop();
  agent.destroy();
  rmSync(scratch, { recursive: true, force: true });
}
