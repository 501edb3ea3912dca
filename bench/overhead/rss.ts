// The server's resident memory (RSS, as the OS counts it: heap, code, SQLite's page caches,
// the index, buffers) after 1,000 mixed requests on a git workspace, read from /proc.
// See README.md next to this file ("Resident memory").
//
// Run: npm run build && node --import tsx bench/overhead/rss.ts
// BENCH_RSS_REQUESTS (default 1000); BENCH_RSS_MODE (default auto: context on, the server's default);
// BENCH_BEFORE=DIR runs DIR's bin/ctxproxy.js (another checkout, built) instead of this one's.
// BENCH_BIG=1: the chats and the Responses calls carry conversations of four turns that open with ~60 KB
// of pasted source (a different slice each), the follow-ups resending the history or naming the previous
// response: what fills the caches that hold request text, which the short questions never do.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuMs, startCtxproxy, startFakeUpstream } from '../support/processes.ts';

const REQUESTS = Number(process.env.BENCH_RSS_REQUESTS ?? 1000);
const MODE = process.env.BENCH_RSS_MODE ?? 'auto';
const BIG = process.env.BENCH_BIG === '1';
// 60 KB of source is ~15,000 tokens: with its follow-ups it fits the model's 32K window (100 KB did not: a 400).
const PASTE_CHARS = 60 * 1024;
const TURNS = 4;
const MODEL = 'qwen2.5-coder:7b';
const root = fileURLToPath(new URL('../../', import.meta.url));
const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

function send(method: string, url: string, body?: unknown): Promise<number> {
  return sendRead(method, url, body).then(({ status }) => status);
}

/** The status and the answer's text. */
function sendRead(method: string, url: string, body?: unknown): Promise<{ status: number; text: string }> {
  const text = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method,
        agent,
        headers:
          text === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(text);
  });
}

/**
 * VmRSS and VmHWM (the peak) of a process, in MB, and its threads (the main one, V8's and libuv's, and
 * one per worker: git's spawner, the symbol parser, the index's checkpointer, the CPU pool's).
 */
function memoryOf(pid: number): { rss: number; peak: number; threads: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024, threads: kb('Threads') };
}

const questions = [
  'where is the request body read and how big may it be?',
  'explain how the audit store writes its snapshots',
  'what does the redactor do with a private key in a file?',
  'how is the token budget of a request computed?',
  'why does the upstream call have two timers?',
];

const folder = mkdtempSync(path.join(tmpdir(), 'ctxproxy-rss-ws-'));
if (spawnSync('git', ['clone', '--quiet', '--no-hardlinks', root, folder], { stdio: 'inherit' }).status !== 0) {
  throw new Error('git clone failed');
}
const fake = await startFakeUpstream();
const bin = process.env.BENCH_BEFORE ? path.join(process.env.BENCH_BEFORE, 'bin/ctxproxy.js') : undefined;
const proxy = await startCtxproxy(fake.url, ['--mode', MODE], { stderr: 'read', workspace: folder, bin });
const pid = proxy.process.pid as number;
const base = proxy.url;
const question = (i: number) => `${questions[i % questions.length]} (${i})`;

/** This repository's source, for pastes: a different 60 KB slice per conversation. */
const corpus = BIG
  ? readdirSync(path.join(root, 'src'), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts'))
      .sort()
      .map((file) => readFileSync(path.join(root, 'src', file), 'utf8'))
      .join('\n')
  : '';
let pastes = 0;
function paste(): string {
  const start = (pastes++ * PASTE_CHARS) % Math.max(1, corpus.length - PASTE_CHARS);
  return corpus.slice(start, start + PASTE_CHARS);
}

/** Chat Completions: a conversation resent whole each turn, with the model's answers. */
let chat: { role: string; content: string }[] = [];
async function bigChat(i: number): Promise<number> {
  if (chat.length >= TURNS * 2) chat = [];
  const content = chat.length === 0 ? `${paste()}\n\n${question(i)}` : question(i);
  chat.push({ role: 'user', content });
  const { status, text } = await sendRead('POST', `${base}/v1/chat/completions`, { model: MODEL, messages: chat });
  const answer = status === 200 ? (JSON.parse(text).choices?.[0]?.message?.content ?? '') : '';
  chat.push({ role: 'assistant', content: answer });
  return status;
}

/** Responses: a chain by `previous_response_id`, the server holding the history. */
let previous: { id: string; turns: number } | undefined;
async function bigResponses(i: number): Promise<number> {
  if (previous && previous.turns >= TURNS) previous = undefined;
  const body = previous
    ? { model: MODEL, input: question(i), previous_response_id: previous.id }
    : { model: MODEL, input: `${paste()}\n\n${question(i)}` };
  const { status, text } = await sendRead('POST', `${base}/v1/responses`, body);
  const id = status === 200 ? (JSON.parse(text).id as string | undefined) : undefined;
  previous = id ? { id, turns: (previous?.turns ?? 0) + 1 } : undefined;
  return status;
}

const kinds: ((i: number) => Promise<number>)[] = [
  (i) =>
    BIG
      ? bigChat(i)
      : send('POST', `${base}/v1/chat/completions`, {
          model: MODEL,
          messages: [{ role: 'user', content: question(i) }],
        }),
  (i) =>
    send('POST', `${base}/v1/chat/completions`, {
      model: MODEL,
      stream: true,
      messages: [{ role: 'user', content: question(i) }],
    }),
  (i) => (BIG ? bigResponses(i) : send('POST', `${base}/v1/responses`, { model: MODEL, input: question(i) })),
  (i) =>
    send('POST', `${base}/v1/messages`, {
      model: MODEL,
      max_tokens: 256,
      messages: [{ role: 'user', content: question(i) }],
    }),
  () => send('GET', `${base}/v1/models`),
  () => send('GET', `${base}/api/audit/snapshots?limit=20`),
];

try {
  const loadBefore = loadavg();
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const started = memoryOf(pid);
  const cpuBefore = cpuMs(pid);
  const failed: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const status = await (kinds[i % kinds.length] as (i: number) => Promise<number>)(i);
    if (status !== 200) failed.push(status);
  }
  const after = memoryOf(pid);
  const cpuPerRequest = (cpuMs(pid) - cpuBefore) / REQUESTS;
  await new Promise((resolve) => setTimeout(resolve, 5000));
  const settled = memoryOf(pid);
  const lines = [
    `server RSS${bin ? ` (${bin})` : ''}, ${REQUESTS} mixed requests (chat, streamed chat, responses, messages, models, audit API), mode ${MODE}${BIG ? ', chats and responses in 4-turn conversations opening with 60 KB pasted' : ''}, workspace a git clone of this repository`,
    `load average before ${loadBefore.map((l) => l.toFixed(2)).join(' ')}, after ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
    `  3 s after start         RSS ${started.rss.toFixed(0)} MB   threads ${started.threads}`,
    `  after ${REQUESTS} requests     RSS ${after.rss.toFixed(0)} MB   peak ${after.peak.toFixed(0)} MB   threads ${after.threads}`,
    `  5 s later               RSS ${settled.rss.toFixed(0)} MB   peak ${settled.peak.toFixed(0)} MB   threads ${settled.threads}`,
    `  server CPU             ${cpuPerRequest.toFixed(2)} ms per request (user + system, from /proc, ticks of 10 ms)`,
    `  answers other than 200: ${failed.length}${failed.length > 0 ? ` (${[...new Set(failed)].join(', ')})` : ''}`,
    'target (issue 28): <= 150 MB after 1,000 mixed requests on a git workspace',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  agent.destroy();
  await proxy.stop();
  await fake.stop();
  rmSync(folder, { recursive: true, force: true });
}
