// Soak: many long streams at a model's pace, for minutes. See README.md next to
// this file. Run: npm run bench -- soak [--minutes N]

import { readFileSync } from 'node:fs';
import http from 'node:http';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { openAuditStore } from '../../src/audit/store.ts';
import { startCtxproxy, startScript } from '../support/processes.ts';
import { ms, summarize } from '../support/stats.ts';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: process.env.BENCH_SOAK_MINUTES ?? '10' },
    burst: { type: 'string', default: '200' },
    'in-flight': { type: 'string', default: '50' },
    tokens: { type: 'string', default: '300' },
    'tokens-per-second': { type: 'string', default: '30' },
  },
});
const MINUTES = Number(values.minutes);
const BURST = Number(values.burst);
const IN_FLIGHT = Number(values['in-flight']);
const TOKENS = Number(values.tokens);
const PACE = Number(values['tokens-per-second']);
/** Direct streams run beside the proxied ones, so both see the same machine. */
const DIRECT_BURST = Math.max(1, Math.round(BURST / 10));
const DIRECT_IN_FLIGHT = Math.max(1, Math.round(IN_FLIGHT / 5));
const MODEL = 'qwen2.5-coder:7b';
const LAST_TOKEN = `"w${TOKENS - 1}"`;

const agent = new http.Agent({ keepAlive: true, maxSockets: BURST + DIRECT_BURST + 20 });

interface Result {
  ok: boolean;
  error?: string;
  firstTokenMs: number;
  totalMs: number;
}

/** One streamed chat; `ok` only when every token and the final frame arrived. */
function stream(url: string, body: string, isProxy: boolean): Promise<Result> {
  return new Promise((resolve) => {
    const started = performance.now();
    let firstTokenMs = Number.NaN;
    let text = '';
    const fail = (error: string) => resolve({ ok: false, error, firstTokenMs, totalMs: performance.now() - started });
    const request = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        if (response.statusCode !== 200) {
          response.resume();
          fail(`status ${response.statusCode}`);
          return;
        }
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
          if (Number.isNaN(firstTokenMs) && text.includes('"w0 ')) firstTokenMs = performance.now() - started;
        });
        response.on('end', () => {
          const totalMs = performance.now() - started;
          const finished = isProxy ? text.includes('data: [DONE]') : text.includes('"done":true');
          if (isProxy && text.includes('data: {"error"')) fail('error frame');
          else if (!finished) fail('no final frame');
          else if (!text.includes(LAST_TOKEN)) fail('tokens missing');
          else resolve({ ok: true, firstTokenMs, totalMs });
        });
        response.on('error', (error) => fail(error.message));
      },
    );
    request.on('error', (error) => fail(error.message));
    request.end(body);
  });
}

let sent = 0;
const proxyBody = (model = MODEL) =>
  JSON.stringify({
    model,
    stream: true,
    messages: [{ role: 'user', content: `Soak request ${++sent}: count for me.` }],
  });
const directBody = () =>
  JSON.stringify({ model: MODEL, stream: true, messages: [{ role: 'user', content: 'Soak: count for me.' }] });

/** Keeps `count` streams in flight until `until` (performance.now()), collecting results. */
async function keepInFlight(count: number, until: number, call: () => Promise<Result>, into: Result[]) {
  await Promise.all(
    Array.from({ length: count }, async () => {
      while (performance.now() < until) into.push(await call());
    }),
  );
}

function rssMb(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
  return kb / 1024;
}

function report(label: string, proxied: Result[], direct: Result[]): void {
  const good = (results: Result[]) => results.filter((r) => r.ok);
  const errors = proxied.filter((r) => !r.ok);
  const kinds = new Map<string, number>();
  for (const r of errors) kinds.set(r.error ?? '?', (kinds.get(r.error ?? '?') ?? 0) + 1);
  const p = {
    first: summarize(good(proxied).map((r) => r.firstTokenMs)),
    total: summarize(good(proxied).map((r) => r.totalMs)),
  };
  const d = {
    first: summarize(good(direct).map((r) => r.firstTokenMs)),
    total: summarize(good(direct).map((r) => r.totalMs)),
  };
  const directErrors = direct.length - good(direct).length;
  process.stdout.write(
    `\n${label}: ${proxied.length} proxied streams, ${errors.length} errors` +
      `${kinds.size ? ` (${[...kinds].map(([k, n]) => `${k}: ${n}`).join(', ')})` : ''}; ` +
      `${direct.length} direct streams beside them, ${directErrors} errors\n` +
      `  first token   proxied p50 ${ms(p.first.median, 1)}  p99 ${ms(p.first.p99, 1)} | direct p50 ${ms(d.first.median, 1)}  p99 ${ms(d.first.p99, 1)} | added p50 ${ms(p.first.median - d.first.median, 1)}  p99 ${ms(p.first.p99 - d.first.p99, 1)}\n` +
      `  whole stream  proxied p50 ${ms(p.total.median, 0)}  p99 ${ms(p.total.p99, 0)} | direct p50 ${ms(d.total.median, 0)}  p99 ${ms(d.total.p99, 0)} | added p50 ${ms(p.total.median - d.total.median, 1)}  p99 ${ms(p.total.p99 - d.total.p99, 1)}\n`,
  );
}

const fake = await startScript('bench/soak/fakeTokens.ts', [String(TOKENS), String(PACE)]);
const proxy = await startCtxproxy(fake.url);
const pid = proxy.process.pid;
const direct = `${fake.url}/api/chat`;
const proxied = `${proxy.url}/v1/chat/completions`;
const rss: [string, number][] = [['start', rssMb(pid)]];
process.stdout.write(
  `soak: ${BURST} concurrent streams, then ${MINUTES} min at ${IN_FLIGHT} in flight; ${TOKENS} tokens per reply at ${PACE} tokens/s, one per chunk\n`,
);

try {
  // 0. Warm-up (not measured, but sent and audited): the first requests load the tokenizer and
  //    the redactor's rules. Another model, which the fake answers at once.
  for (let i = 0; i < 20; i++) await stream(proxied, proxyBody('llama3.2:3b'), true);
  process.stdout.write(
    `load average before: ${loadavg()
      .map((n) => n.toFixed(1))
      .join(' ')} (${cpus().length} CPUs)\n`,
  );

  // 1. The burst: every stream opened at once.
  const burstProxied: Result[] = [];
  const burstDirect: Result[] = [];
  await Promise.all([
    ...Array.from({ length: BURST }, async () => burstProxied.push(await stream(proxied, proxyBody(), true))),
    ...Array.from({ length: DIRECT_BURST }, async () => burstDirect.push(await stream(direct, directBody(), false))),
  ]);
  rss.push(['after burst', rssMb(pid)]);
  report(`burst of ${BURST}`, burstProxied, burstDirect);

  // 2. The soak: a steady load, with RSS read half-way.
  const soakProxied: Result[] = [];
  const soakDirect: Result[] = [];
  const started = performance.now();
  const until = started + MINUTES * 60_000;
  const middle = setTimeout(() => rss.push(['middle', rssMb(pid)]), MINUTES * 30_000);
  await Promise.all([
    keepInFlight(IN_FLIGHT, until, () => stream(proxied, proxyBody(), true), soakProxied),
    keepInFlight(DIRECT_IN_FLIGHT, until, () => stream(direct, directBody(), false), soakDirect),
  ]);
  clearTimeout(middle);
  rss.push(['end', rssMb(pid)]);
  const seconds = (performance.now() - started) / 1000;
  report(
    `${MINUTES} min at ${IN_FLIGHT} in flight (${(soakProxied.length / seconds).toFixed(1)} streams/s)`,
    soakProxied,
    soakDirect,
  );

  // 3. Every request sent is in the audit log once the proxy has stopped (SIGTERM flushes).
  const exited = new Promise((resolve) => proxy.process.once('exit', resolve));
  proxy.process.kill('SIGTERM');
  await exited;
  const store = openAuditStore({ path: path.join(proxy.workspace, '.ctxproxy', 'audit.db') });
  const rows = store.stats().snapshots;
  await store.close();
  process.stdout.write(
    `\naudit rows ${rows} for ${sent} requests sent${rows === sent ? ' (equal)' : ' (MISSING ROWS)'}\n` +
      `load average after: ${loadavg()
        .map((n) => n.toFixed(1))
        .join(' ')}\n` +
      `proxy RSS ${rss.map(([at, mb]) => `${at} ${mb.toFixed(0)} MB`).join(', ')}\n`,
  );
  if (rows !== sent) process.exitCode = 1;
} finally {
  await proxy.stop();
  await fake.stop();
}
