// Can one hostile request stall everyone else? While each hostile shape is in
// flight, a concurrent client polls /healthz and sends small chats; their p99
// latency is compared with a baseline measured in the same run with nothing
// hostile in flight. See README.md next to this file. Run: npm run bench -- stall

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { startProxy } from '../../test/support/proxy.ts';
import { startCtxproxy, startFakeUpstream } from '../support/processes.ts';
import { quantile } from '../support/stats.ts';
import { meterCpuGaps } from './mainThreadCpu.ts';
import { contextShapes, fullSizes, MODEL, messageShapes, type Shape, workspaceFiles } from './shapes.ts';
import { WARM_REQUESTS, warmUp } from './warmUp.ts';

const BASELINE_MS = Number(process.env.BENCH_BASELINE_MS ?? 3000);
/** A hostile request still running after this is reported as not ending (and abandoned). */
const GIVE_UP_MS = Number(process.env.BENCH_GIVE_UP_MS ?? 60_000);
const ONLY = process.env.BENCH_SHAPES;
/** Only the in-process block (no separate server, no polling client): the figure the 20 ms target reads. */
const IN_PROCESS_ONLY = process.env.BENCH_IN_PROCESS_ONLY === '1';

interface Answer {
  status: number;
  ms: number;
}

function request(url: string, body?: string | Buffer, headers: Record<string, string> = {}, timeoutMs = GIVE_UP_MS) {
  return new Promise<Answer>((resolve) => {
    const started = performance.now();
    const done = (status: number) => resolve({ status, ms: performance.now() - started });
    const req = http.request(
      url,
      {
        method: body === undefined ? 'GET' : 'POST',
        headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
        timeout: timeoutMs,
      },
      (response) => {
        response.resume();
        response.on('end', () => done(response.statusCode ?? 0));
        response.on('error', () => done(-1));
      },
    );
    req.on('timeout', () => {
      req.destroy();
      done(-2);
    });
    req.on('error', () => done(-1));
    req.end(body);
  });
}

/** Polls /healthz and sends a small chat, one after the other, until `until` settles. */
async function pollWhile(url: string, until: Promise<unknown>) {
  let running = true;
  void until.finally(() => {
    running = false;
  });
  const health: number[] = [];
  const chat: number[] = [];
  const failures: string[] = [];
  let i = 0;
  const small = (n: number) =>
    JSON.stringify({ model: MODEL, stream: false, messages: [{ role: 'user', content: `small question ${n}` }] });
  while (running) {
    const h = await request(`${url}/healthz`, undefined, {}, GIVE_UP_MS);
    if (h.status === 200) health.push(h.ms);
    else failures.push(`healthz ${h.status}`);
    const c = await request(`${url}/v1/chat/completions`, small(i++), { 'x-ctx-mode': 'off' }, GIVE_UP_MS);
    if (c.status === 200) chat.push(c.ms);
    else failures.push(`chat ${c.status}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return { health, chat, failures };
}

const p99 = (values: number[]) =>
  quantile(
    [...values].sort((a, b) => a - b),
    0.99,
  );
const fmt = (value: number) => (Number.isFinite(value) ? `${value.toFixed(0)} ms` : '-');

function buildWorkspace(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'ctxproxy-stall-'));
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: dir,
      env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
      maxBuffer: 1 << 30,
    });
  const files = workspaceFiles({ fileBytes: 199 * 1024, diffBytes: 2 * 1024 * 1024, lines: 1_000_000 });
  const write = (set: Record<string, string>) => {
    for (const [rel, text] of Object.entries(set)) {
      mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      writeFileSync(path.join(dir, rel), text);
    }
  };
  git('init', '-q', '-b', 'main');
  write(files.committed);
  git('add', '-A');
  git('-c', 'user.name=bench', '-c', 'user.email=bench@example.test', 'commit', '-q', '-m', 'init');
  write(files.changed);
  return dir;
}

const workspace = buildWorkspace();
const fake = await startFakeUpstream();
const shapes: Shape[] = [...messageShapes(fullSizes), ...contextShapes()].filter(
  (shape) => !ONLY || shape.name.includes(ONLY),
);
const cell = (value: number, baseline: number) =>
  `${fmt(value)} (+${fmt(value - baseline)}, ${(value / baseline).toFixed(1)}x)`;

/** The real command in its own process, polled by a concurrent client while each hostile request runs. */
async function fromOutside(): Promise<void> {
  const proxy = await startCtxproxy(fake.url, ['--workspace', workspace, '--mode', 'auto']);
  try {
    // The server compiles its redaction rules in the background after start (about a second here); the
    // baseline below is not measured while it does.
    await new Promise((resolve) => setTimeout(resolve, Number(process.env.BENCH_SETTLE_MS ?? 3000)));
    // Warm-up: load the redactor, the tokenizer and the git memo.
    for (let i = 0; i < 20; i++)
      await request(
        `${proxy.url}/v1/chat/completions`,
        JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: `warm ${i}` }] }),
      );

    const idle = new Promise((resolve) => setTimeout(resolve, BASELINE_MS));
    const base = await pollWhile(proxy.url, idle);
    const baseHealth = p99(base.health);
    const baseChat = p99(base.chat);
    const lines = [
      `bench/stall: ${proxy.url}, baseline over ${BASELINE_MS} ms: /healthz p99 ${fmt(baseHealth)} (n=${base.health.length}), small chat p99 ${fmt(baseChat)} (n=${base.chat.length})`,
      '',
      'shape                                         ends in   status   healthz p99 (added, x baseline)   chat p99 (added, x baseline)   n',
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    for (const shape of shapes) {
      const body = shape.body();
      const hostile = request(`${proxy.url}/v1/chat/completions`, body, shape.headers ?? {});
      const polled = await pollWhile(proxy.url, hostile);
      const answer = await hostile;
      const h = p99(polled.health);
      const c = p99(polled.chat);
      const ends = answer.status === -2 ? `>${GIVE_UP_MS / 1000} s` : `${(answer.ms / 1000).toFixed(2)} s`;
      process.stdout.write(
        `${shape.name.padEnd(45)} ${ends.padStart(8)}   ${String(answer.status).padStart(6)}   ${cell(h, baseHealth).padEnd(32)}  ${cell(c, baseChat).padEnd(30)} ${polled.health.length}${polled.failures.length ? `  failures: ${polled.failures.slice(0, 3).join(', ')}` : ''}\n`,
      );
    }
    process.stdout.write(
      '\ntargets: added p99 <= 100 ms for /healthz and the small chat; each hostile request ends within 5 s\n',
    );
  } finally {
    await proxy.stop();
  }
}

/**
 * The same shapes against the same app in this process, where the event loop's longest block can be
 * read directly: what any other request would have waited at most, whatever the machine's load did to
 * the latencies above.
 */
async function inProcessBlocks(): Promise<void> {
  process.stdout.write(
    '\nin-process app, longest event-loop block while the hostile request ran (monitorEventLoopDelay):\n',
  );
  // Warmed like the server (its regexes compiled after start), and measured only once that is done.
  const inProcess = await startProxy({
    upstreamUrl: fake.url,
    workspace,
    settings: { mode: 'auto' },
    warm: true,
  });
  await (inProcess.deps.redactor as { warmedUp?: Promise<void> }).warmedUp;
  await warmUp(inProcess.url);
  process.stdout.write(`(after ${WARM_REQUESTS} small warm-up requests, BENCH_WARM)\n`);
  let worst = 0;
  let worstCpu = 0;
  try {
    for (const shape of shapes) {
      // Encoded before the measurement: turning a 10 MB string into bytes is the client's work, not the proxy's.
      const body = Buffer.from(shape.body());
      // The client's garbage (the previous shapes' bodies, hundreds of MB) is collected before, not during,
      // the measurement: a major collection of it would be counted as the proxy's block (`--expose-gc`).
      (globalThis as { gc?: () => void }).gc?.();
      const histogram = monitorEventLoopDelay({ resolution: 5 });
      histogram.enable();
      const cpuGaps = meterCpuGaps();
      const answer = await request(`${inProcess.url}/v1/chat/completions`, body, shape.headers ?? {});
      const cpu = cpuGaps.stop();
      histogram.disable();
      worst = Math.max(worst, histogram.max / 1e6);
      worstCpu = Math.max(worstCpu, cpu ?? 0);
      process.stdout.write(
        `${shape.name.padEnd(45)} ${`${(answer.ms / 1000).toFixed(2)} s`.padStart(8)}   ${String(answer.status).padStart(6)}   longest block ${fmt(histogram.max / 1e6)}, p99 ${fmt(histogram.percentile(99) / 1e6)}${cpu === undefined ? '' : `, longest main-thread CPU ${fmt(cpu)}`}\n`,
      );
    }
  } finally {
    await inProcess.close();
  }
  process.stdout.write(`\nlongest block of any shape: ${fmt(worst)} (target: at most 20 ms)\n`);
  if (worstCpu > 0) process.stdout.write(`longest main-thread CPU between two turns, any shape: ${fmt(worstCpu)}\n`);
}

try {
  if (!IN_PROCESS_ONLY) await fromOutside();
  await inProcessBlocks();
} finally {
  await fake.stop();
  rmSync(workspace, { recursive: true, force: true });
}
