// One server, sequential chats, nothing else in the rounds: the CPU a request costs the real bin
// (from /proc) and, with --cpu-prof in BENCH_NODE_FLAGS, a profile of it. See README.md ("From outside").
//
// Run: npm run build && node --import tsx bench/overhead/profile.ts
//   BENCH_NODE_FLAGS="--max-semi-space-size=2 --v8-pool-size=1 --cpu-prof --cpu-prof-dir=/tmp/prof --cpu-prof-interval=250"
//   BENCH_REQUESTS (1500), BENCH_KIND (ollama | openai), BENCH_STREAM (1: streamed chats)

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { startCtxproxy, startFakeUpstream, startScript } from '../support/processes.ts';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 1500);
const openai = process.env.BENCH_KIND === 'openai';
const stream = process.env.BENCH_STREAM === '1';
const model = openai ? 'local-model' : 'qwen2.5-coder:7b';
const root = fileURLToPath(new URL('../../', import.meta.url));

const folder = mkdtempSync(path.join(tmpdir(), 'ctxproxy-profile-ws-'));
if (spawnSync('git', ['clone', '--quiet', '--no-hardlinks', root, folder], { stdio: 'inherit' }).status !== 0) {
  throw new Error('git clone failed');
}
const upstream = openai ? await startScript('bench/support/fakeOpenAIProcess.ts', [model]) : await startFakeUpstream();
const proxy = await startCtxproxy(upstream.url, openai ? ['--upstream-kind', 'openai'] : [], {
  stderr: 'read',
  workspace: folder,
});
const agent = new http.Agent({ keepAlive: true });

function cpuMs(): number {
  const fields = readFileSync(`/proc/${proxy.process.pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

function chat(i: number): Promise<void> {
  const body = JSON.stringify({ model, stream, messages: [{ role: 'user', content: `question number ${i}` }] });
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${proxy.url}/v1/chat/completions`,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        response.resume();
        response.on('end', () =>
          response.statusCode === 200 ? resolve() : reject(new Error(`answered ${response.statusCode}`)),
        );
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

try {
  for (let i = 0; i < 300; i++) await chat(i);
  // The first index of the workspace runs in the background: measured after it (at most a minute).
  for (let waited = 0; waited < 60; waited++) {
    const was = cpuMs();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    if (cpuMs() - was < 30) break;
  }
  const cpuBefore = cpuMs();
  const started = performance.now();
  for (let i = 0; i < REQUESTS; i++) await chat(1000 + i);
  const wall = performance.now() - started;
  const cpu = cpuMs() - cpuBefore;
  process.stdout.write(
    `${REQUESTS} sequential ${stream ? 'streamed' : 'non-streamed'} chats, ${openai ? 'openai' : 'ollama'} kind: ` +
      `CPU ${(cpu / REQUESTS).toFixed(3)} ms per request, wall ${(wall / REQUESTS).toFixed(3)} ms\n`,
  );
} finally {
  agent.destroy();
  await proxy.stop();
  await upstream.stop();
  rmSync(folder, { recursive: true, force: true });
}
