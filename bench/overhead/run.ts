// What ctxproxy (context off) adds on top of calling the same upstream directly.
// See README.md next to this file. Run: npm run bench -- overhead

import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { startProxy } from '../../test/support/proxy.ts';
import { startCtxproxy, startFakeUpstream, startScript } from '../support/processes.ts';
import { ms, summarize } from '../support/stats.ts';
import { type Timing, timedPost } from '../support/timedPost.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1500);
const CONCURRENCY = 50;
const CONCURRENT_REQUESTS = Number(process.env.BENCH_CONCURRENT_REQUESTS ?? 2000);
const MEMORY_REQUESTS = Number(process.env.BENCH_MEMORY_REQUESTS ?? 10_000);
const MODEL = 'qwen2.5-coder:7b';

function shuffled<T>(items: T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY + 10 });

const call = (url: string, body: string): Promise<Timing> => timedPost(agent, url, body);

const fake = await startFakeUpstream();
const proxy = await startCtxproxy(fake.url);
// The same server with its log (a line per request) written to a pipe this process reads.
const logged = await startCtxproxy(fake.url, [], { stderr: 'read' });
const floor = await startScript('bench/overhead/floorProxy.ts', [fake.url]);
const bare = await startScript('bench/overhead/bareProxy.ts', [fake.url]);
const direct = (i: number) =>
  call(
    `${fake.url}/api/chat`,
    JSON.stringify({ model: MODEL, stream: true, messages: [{ role: 'user', content: `question number ${i}` }] }),
  );
const bared = (i: number) =>
  call(
    `${bare.url}/v1/chat/completions`,
    JSON.stringify({ model: MODEL, stream: true, messages: [{ role: 'user', content: `question number ${i}` }] }),
  );
const floored = (i: number) =>
  call(
    `${floor.url}/v1/chat/completions`,
    JSON.stringify({ model: MODEL, stream: true, messages: [{ role: 'user', content: `question number ${i}` }] }),
  );
const proxied = (i: number) =>
  call(
    `${proxy.url}/v1/chat/completions`,
    JSON.stringify({ model: MODEL, stream: true, messages: [{ role: 'user', content: `question number ${i}` }] }),
  );
const piped = (i: number) =>
  call(
    `${logged.url}/v1/chat/completions`,
    JSON.stringify({ model: MODEL, stream: true, messages: [{ role: 'user', content: `question number ${i}` }] }),
  );

try {
  for (let i = 0; i < 300; i++) {
    await direct(i);
    await bared(i);
    await floored(i);
    await proxied(i);
    await piped(i);
  }

  // Sequential, interleaved: each round calls both, in a random order, so drift hits both alike.
  const d: Timing[] = [];
  const b: Timing[] = [];
  const f: Timing[] = [];
  const p: Timing[] = [];
  const l: Timing[] = [];
  const sides: [Timing[], (i: number) => Promise<Timing>][] = [
    [d, direct],
    [b, bared],
    [f, floored],
    [p, proxied],
    [l, piped],
  ];
  for (let i = 0; i < ROUNDS; i++) {
    for (const [into, run] of shuffled(sides)) into.push(await run(i));
  }
  const dt = summarize(d.map((t) => t.totalMs));
  const pt = summarize(p.map((t) => t.totalMs));
  const df = summarize(d.map((t) => t.firstChunkMs));
  const pf = summarize(p.map((t) => t.firstChunkMs));
  const added = summarize(p.map((t, i) => t.totalMs - (d[i] as Timing).totalMs));
  const ft = summarize(f.map((t) => t.totalMs));
  const bt = summarize(b.map((t) => t.totalMs));
  const bareAdded = summarize(b.map((t, i) => t.totalMs - (d[i] as Timing).totalMs));
  const stackAdded = summarize(f.map((t, i) => t.totalMs - (d[i] as Timing).totalMs));
  const ownAdded = summarize(p.map((t, i) => t.totalMs - (f[i] as Timing).totalMs));
  const lt = summarize(l.map((t) => t.totalMs));
  const loggedAdded = summarize(l.map((t, i) => t.totalMs - (d[i] as Timing).totalMs));
  const logCost = summarize(l.map((t, i) => t.totalMs - (p[i] as Timing).totalMs));
  // Time to the first chunk, paired with the same round's direct call and bare proxy.
  const firstAdded = (side: Timing[], against: Timing[]) =>
    summarize(side.map((t, i) => t.firstChunkMs - (against[i] as Timing).firstChunkMs));
  const firstRows = (
    [
      ['bare node:http proxy', b],
      ['stack floor', f],
      ['ctxproxy', p],
      ['ctxproxy, log piped', l],
    ] as const
  ).map(([name, side]) => {
    const first = summarize(side.map((t) => t.firstChunkMs));
    const overDirect = firstAdded(side, d);
    const overBare = firstAdded(side, b);
    return `  ${name.padEnd(22)}  ${ms(first.median)}   added over direct ${ms(overDirect.median)} (IQR ${ms(overDirect.iqr)})   over bare ${ms(overBare.median)}   ratio to bare ${(first.median / summarize(b.map((t) => t.firstChunkMs)).median).toFixed(2)}x`;
  });

  // 50 in flight: throughput of each side, in interleaved blocks.
  const throughput = async (run: (i: number) => Promise<Timing>, count: number) => {
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < count) await run(next++);
      }),
    );
    return count / ((performance.now() - started) / 1000);
  };
  const directRps: number[] = [];
  const bareRps: number[] = [];
  const floorRps: number[] = [];
  const proxyRps: number[] = [];
  const loggedRps: number[] = [];
  for (let block = 0; block < 4; block++) {
    directRps.push(await throughput(direct, CONCURRENT_REQUESTS / 4));
    bareRps.push(await throughput(bared, CONCURRENT_REQUESTS / 4));
    floorRps.push(await throughput(floored, CONCURRENT_REQUESTS / 4));
    proxyRps.push(await throughput(proxied, CONCURRENT_REQUESTS / 4));
    loggedRps.push(await throughput(piped, CONCURRENT_REQUESTS / 4));
  }
  const lr = summarize(loggedRps);
  const dr = summarize(directRps);
  const br = summarize(bareRps);
  const fr = summarize(floorRps);
  const pr = summarize(proxyRps);

  // Memory across many requests: the same app in this process, so the heap can be read after a full GC.
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc (npm run bench does)');
  const inProcess = await startProxy({ upstreamUrl: fake.url });
  const heapMb = async () => {
    await inProcess.store.flush();
    gc();
    gc();
    return process.memoryUsage().heapUsed / 1024 / 1024;
  };
  const inProcessCall = (i: number) =>
    call(
      `${inProcess.url}/v1/chat/completions`,
      JSON.stringify({ model: MODEL, stream: true, messages: [{ role: 'user', content: `question number ${i}` }] }),
    );
  const checkpoints: [number, number][] = [[0, await heapMb()]];
  let sent = 0;
  while (sent < MEMORY_REQUESTS) {
    const batch = Math.min(1000, MEMORY_REQUESTS - sent);
    let next = 0;
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        while (next < batch) await inProcessCall(sent + next++);
      }),
    );
    sent += batch;
    if (sent % 2500 === 0 || sent === MEMORY_REQUESTS) checkpoints.push([sent, await heapMb()]);
  }
  await inProcess.close();

  const lines = [
    `ctxproxy overhead (context off), ${ROUNDS} interleaved sequential rounds, ${CONCURRENCY} in flight for throughput`,
    '',
    'sequential, per request (median, IQR):',
    `  direct to upstream      ${ms(dt.median)}  IQR ${ms(dt.iqr)}`,
    `  through ctxproxy        ${ms(pt.median)}  IQR ${ms(pt.iqr)}`,
    `  added (paired)          ${ms(added.median)}  IQR ${ms(added.iqr)}   ratio ${(pt.median / dt.median).toFixed(2)}x`,
    `  first chunk direct      ${ms(df.median)}   through ctxproxy ${ms(pf.median)}   added ${ms(pf.median - df.median)}`,
    '  references, each a pass-through proxy doing nothing else, in the same rounds:',
    `  bare node:http proxy    ${ms(bt.median)}  adds ${ms(bareAdded.median)}   (what a second HTTP hop costs in Node here)`,
    `  stack floor             ${ms(ft.median)}  adds ${ms(stackAdded.median)}   (Hono + the ollama client, as ctxproxy uses them)`,
    `  ctxproxy's own work on top of the stack floor ${ms(ownAdded.median)}  IQR ${ms(ownAdded.iqr)}`,
    `  ctxproxy, log piped     ${ms(lt.median)}  adds ${ms(loggedAdded.median)}   the log line read through a pipe: ${ms(logCost.median)} (IQR ${ms(logCost.iqr)}), ${(logged.stderrBytes() / (300 + ROUNDS + CONCURRENT_REQUESTS)).toFixed(0)} bytes of log per request`,
    '',
    `time to the first chunk (median; "added": paired with the same round's call; direct ${ms(df.median)}):`,
    ...firstRows,
    '',
    `${CONCURRENCY} concurrent streams (requests/s, median of 4 interleaved blocks):`,
    `  direct                  ${dr.median.toFixed(0)}/s`,
    `  bare node:http proxy    ${br.median.toFixed(0)}/s   ratio ${(br.median / dr.median).toFixed(2)} of direct`,
    `  stack floor             ${fr.median.toFixed(0)}/s   ratio ${(fr.median / dr.median).toFixed(2)} of direct`,
    `  through ctxproxy        ${pr.median.toFixed(0)}/s   ratio ${(pr.median / dr.median).toFixed(2)} of direct, ${(pr.median / fr.median).toFixed(2)} of the floor`,
    `  ctxproxy, log piped     ${lr.median.toFixed(0)}/s   ratio ${(lr.median / dr.median).toFixed(2)} of direct, ${(lr.median / fr.median).toFixed(2)} of the floor`,
    '',
    `memory across ${MEMORY_REQUESTS} requests (heap used after a full GC; its caches fill by ~5,000):`,
    `  ${checkpoints.map(([n, mb]) => `${n}: ${mb.toFixed(0)} MB`).join('   ')}`,
    '',
    'target (issue 15): time to the first chunk added over direct, context off, <= 1 ms; memory flat',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  agent.destroy();
  await floor.stop();
  await bare.stop();
  await proxy.stop();
  await logged.stop();
  await fake.stop();
}
