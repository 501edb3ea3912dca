// One server, sequential chats, nothing else in the rounds: the CPU a request costs the real bin
// (from /proc) and, with --cpu-prof in BENCH_NODE_FLAGS, a profile of it. See README.md ("From outside").
//
// Run: npm run build && node --import tsx bench/overhead/profile.ts
//   BENCH_NODE_FLAGS="--max-semi-space-size=2 --v8-pool-size=1 --cpu-prof --cpu-prof-dir=/tmp/prof --cpu-prof-interval=250"
//   BENCH_REQUESTS (1500), BENCH_KIND (ollama | openai), BENCH_STREAM (1: streamed chats),
//   BENCH_MODE (default off; auto: context on, each chat collecting from the workspace),
//   BENCH_MIX (1: rss.ts's mix instead of chats alone: chat, streamed chat, responses, messages, models, audit API)
//   BENCH_BEFORE=DIR: a second server, DIR's bin/ctxproxy.js (another checkout, built), on a clone of its
//   own, called in the same rounds (each round calls both, in a random order); the CPU of each, and the ratio.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { cpuMs, startCtxproxy, startFakeUpstream, startScript } from '../support/processes.ts';
import { timedPost } from '../support/timedPost.ts';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 1500);
const openai = process.env.BENCH_KIND === 'openai';
const stream = process.env.BENCH_STREAM === '1';
const model = openai ? 'local-model' : 'qwen2.5-coder:7b';
const root = fileURLToPath(new URL('../../', import.meta.url));

function cloneWorkspace(): string {
  const folder = mkdtempSync(path.join(tmpdir(), 'ctxproxy-profile-ws-'));
  if (spawnSync('git', ['clone', '--quiet', '--no-hardlinks', root, folder], { stdio: 'inherit' }).status !== 0) {
    throw new Error('git clone failed');
  }
  return folder;
}

const beforeBin = process.env.BENCH_BEFORE ? path.join(process.env.BENCH_BEFORE, 'bin/ctxproxy.js') : undefined;
const upstream = openai ? await startScript('bench/support/fakeOpenAIProcess.ts', [model]) : await startFakeUpstream();
const kindArgs = [
  ...(openai ? ['--upstream-kind', 'openai'] : []),
  ...(process.env.BENCH_MODE ? ['--mode', process.env.BENCH_MODE] : []),
];
const folders: string[] = [];
const servers: { name: string; proxy: Awaited<ReturnType<typeof startCtxproxy>> }[] = [];
const agent = new http.Agent({ keepAlive: true });

async function chat(url: string, i: number): Promise<void> {
  if (process.env.BENCH_MIX === '1') return mixed(url, i);
  const body = JSON.stringify({ model, stream, messages: [{ role: 'user', content: `question number ${i}` }] });
  await timedPost(agent, `${url}/v1/chat/completions`, body);
}

function get(url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (response) => {
        response.resume();
        response.on('end', () =>
          response.statusCode === 200 ? resolve() : reject(new Error(`${url} answered ${response.statusCode}`)),
        );
      })
      .on('error', reject);
  });
}

/** Request `i` of rss.ts's mix. */
async function mixed(url: string, i: number): Promise<void> {
  const content = `question number ${i}`;
  const messages = [{ role: 'user', content }];
  const post = (route: string, body: unknown) => timedPost(agent, `${url}${route}`, JSON.stringify(body));
  switch (i % 6) {
    case 0:
      await post('/v1/chat/completions', { model, messages });
      return;
    case 1:
      await post('/v1/chat/completions', { model, stream: true, messages });
      return;
    case 2:
      await post('/v1/responses', { model, input: content });
      return;
    case 3:
      await post('/v1/messages', { model, max_tokens: 256, messages });
      return;
    case 4:
      return get(`${url}/v1/models`);
    default:
      return get(`${url}/api/audit/snapshots?limit=20`);
  }
}

/** One request to every server, in a random order. */
async function round(i: number): Promise<void> {
  const order = servers.length > 1 && Math.random() < 0.5 ? [...servers].reverse() : servers;
  for (const server of order) await chat(server.proxy.url, i);
}

try {
  for (const [name, bin] of [
    ['ctxproxy', undefined],
    ...(beforeBin ? [['ctxproxy before', beforeBin]] : []),
  ] as const) {
    const workspace = cloneWorkspace();
    folders.push(workspace);
    servers.push({ name, proxy: await startCtxproxy(upstream.url, kindArgs, { stderr: 'read', workspace, bin }) });
  }
  for (let i = 0; i < 300; i++) await round(i);
  // The first index of each workspace runs in the background: measured after it (at most a minute).
  for (let waited = 0; waited < 60; waited++) {
    const was = servers.map((server) => cpuMs(server.proxy.process.pid));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    if (servers.every((server, k) => cpuMs(server.proxy.process.pid) - (was[k] ?? 0) < 30)) break;
  }
  const cpuBefore = servers.map((server) => cpuMs(server.proxy.process.pid));
  const started = performance.now();
  for (let i = 0; i < REQUESTS; i++) await round(1000 + i);
  const wall = performance.now() - started;
  const perRequest = servers.map((server, k) => (cpuMs(server.proxy.process.pid) - (cpuBefore[k] ?? 0)) / REQUESTS);
  process.stdout.write(
    `${REQUESTS} sequential ${stream ? 'streamed' : 'non-streamed'} chats per server, ${openai ? 'openai' : 'ollama'} kind, ` +
      `wall ${(wall / REQUESTS).toFixed(3)} ms per round\n`,
  );
  for (const [k, server] of servers.entries()) {
    process.stdout.write(`  ${server.name.padEnd(16)} CPU ${(perRequest[k] ?? 0).toFixed(3)} ms per request\n`);
  }
  if (servers.length > 1) {
    process.stdout.write(`  ratio ctxproxy / before: ${((perRequest[0] ?? 0) / (perRequest[1] ?? 1)).toFixed(3)}\n`);
  }
} finally {
  agent.destroy();
  for (const server of servers) await server.proxy.stop();
  await upstream.stop();
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
}
