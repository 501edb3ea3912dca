// What holds the event loop in one piece, per hostile shape: the same in-process
// app as run.ts, with V8's sampling profiler on the main thread while each shape
// runs. The longest stretches of main-thread CPU between two turns of a 1 ms
// timer (mainThreadCpu.ts) are matched to the samples taken inside them, and
// the functions with the most samples there are printed with their file and
// line: the names of what is still synchronous and large. Linux only (the CPU
// figure is read from /proc). See README.md next to this file.
//
// BENCH_SHAPES=tools node --expose-gc --import tsx bench/stall/gaps.ts
// Environment: BENCH_SHAPES (only shapes whose name contains this text),
// BENCH_GAPS (gaps shown per shape, default 2), BENCH_TOP (functions per gap, default 8).

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startProxy } from '../../test/support/proxy.ts';
import { startFakeUpstream } from '../support/processes.ts';
import { threadCpuMs } from './mainThreadCpu.ts';
import { contextShapes, fullSizes, messageShapes, workspaceFiles } from './shapes.ts';
import { warmUp } from './warmUp.ts';

const ONLY = process.env.BENCH_SHAPES;
const GAPS = Number(process.env.BENCH_GAPS ?? 2);
const TOP = Number(process.env.BENCH_TOP ?? 8);

interface Gap {
  cpuMs: number;
  /** Wall-clock bounds on the profiler's clock (µs, monotonic). */
  fromUs: number;
  toUs: number;
}

const nowUs = () => Number(process.hrtime.bigint() / 1000n);

function meterGaps() {
  const gaps: Gap[] = [];
  let lastCpu = threadCpuMs();
  let lastUs = nowUs();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const tick = () => {
    const cpu = threadCpuMs();
    const at = nowUs();
    if (cpu - lastCpu > 3) gaps.push({ cpuMs: cpu - lastCpu, fromUs: lastUs, toUs: at });
    lastCpu = cpu;
    lastUs = at;
    timer = setTimeout(tick, 1);
  };
  timer = setTimeout(tick, 1);
  return () => {
    clearTimeout(timer);
    return gaps.sort((a, b) => b.cpuMs - a.cpuMs);
  };
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  parent?: number;
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

function describeNode(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const file = url.replace(/^file:\/\//, '').replace(`${process.cwd()}/`, '');
  return `${functionName || '(anonymous)'} ${file ? `${file}:${lineNumber + 1}` : ''}`.trim();
}

/** Self samples per function inside [fromUs, toUs], with the nearest frame of our own code above each. */
function inside(profile: Profile, gap: Gap): string[] {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const ours = (id: number): string => {
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const node = byId.get(at);
      if (node && /\/(src|bench|test)\//.test(node.callFrame.url) && !node.callFrame.url.includes('node_modules'))
        return describeNode(node);
    }
    return '-';
  };
  /** Our frames from the sample up, innermost first: who asked for the work. */
  const callers = (id: number): string => {
    const names: string[] = [];
    for (let at: number | undefined = id; at !== undefined && names.length < 6; at = parent.get(at)) {
      const node = byId.get(at);
      if (node && /\/(src)\//.test(node.callFrame.url) && !node.callFrame.url.includes('node_modules'))
        names.push(node.callFrame.functionName || '(anonymous)');
    }
    return names.join(' < ');
  };
  const counts = new Map<string, number>();
  const stacks = new Map<string, number>();
  let t = profile.startTime;
  let total = 0;
  profile.samples.forEach((id, i) => {
    t += profile.timeDeltas[i] ?? 0;
    if (t < gap.fromUs || t > gap.toUs) return;
    const node = byId.get(id);
    if (!node) return;
    const key = `${describeNode(node)}   <- ${ours(id)}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    const stack = callers(id);
    if (stack) stacks.set(stack, (stacks.get(stack) ?? 0) + 1);
    total++;
  });
  const topStacks = [...stacks.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([stack, n]) => `    stack ${((100 * n) / Math.max(1, total)).toFixed(0).padStart(3)}%  ${stack}`);
  const top = [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, TOP)
    .map(([key, n]) => `      ${((100 * n) / Math.max(1, total)).toFixed(0).padStart(3)}%  ${key}`);
  return [...top, ...topStacks, ...(process.env.BENCH_TIMELINE === '1' ? timeline(profile, gap, byId, ours) : [])];
}

/** The gap's samples in order, as runs of the same nearest frame of ours (what ran after what), with their ms. */
function timeline(profile: Profile, gap: Gap, byId: Map<number, ProfileNode>, ours: (id: number) => string): string[] {
  const runs: { what: string; us: number }[] = [];
  let t = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    t += delta;
    if (t < gap.fromUs || t > gap.toUs) return;
    const node = byId.get(id);
    const self = node?.callFrame.functionName ?? '';
    const what = self.startsWith('(') ? self : ours(id);
    const last = runs[runs.length - 1];
    if (last?.what === what) last.us += delta;
    else runs.push({ what, us: delta });
  });
  return runs
    .filter((run) => run.us >= 500)
    .map((run) => `        ${(run.us / 1000).toFixed(1).padStart(5)} ms  ${run.what}`);
}

function request(url: string, body: Buffer, headers: Record<string, string>) {
  return new Promise<number>((resolve) => {
    const req = http.request(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json', ...headers } },
      (r) => {
        r.resume();
        r.on('end', () => resolve(r.statusCode ?? 0));
      },
    );
    req.on('error', () => resolve(-1));
    req.end(body);
  });
}

function buildWorkspace(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'ctxproxy-gaps-'));
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: dir,
      env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
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
const app = await startProxy({ upstreamUrl: fake.url, workspace, settings: { mode: 'auto' }, warm: true });
await (app.deps.redactor as { warmedUp?: Promise<void> }).warmedUp;
await warmUp(app.url);
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 200 });
try {
  for (const shape of [...messageShapes(fullSizes), ...contextShapes()]) {
    if (ONLY && !shape.name.includes(ONLY)) continue;
    const body = Buffer.from(shape.body());
    (globalThis as { gc?: () => void }).gc?.();
    await session.post('Profiler.start');
    const stop = meterGaps();
    const status = await request(`${app.url}/v1/chat/completions`, body, shape.headers ?? {});
    const gaps = stop();
    const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: Profile };
    process.stdout.write(
      `${shape.name} (${status}): longest main-thread CPU ${gaps
        .map((g) => g.cpuMs.toFixed(0))
        .slice(0, 6)
        .join(', ')} ms\n`,
    );
    for (const gap of gaps.slice(0, GAPS)) {
      process.stdout.write(
        `   gap ${gap.cpuMs.toFixed(1)} ms CPU, ${((gap.toUs - gap.fromUs) / 1000).toFixed(1)} ms wall\n`,
      );
      process.stdout.write(`${inside(profile, gap).join('\n')}\n`);
    }
  }
} finally {
  session.disconnect();
  await app.close();
  await fake.stop();
  rmSync(workspace, { recursive: true, force: true });
}
