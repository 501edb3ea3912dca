// What of a context-off request is ctxproxy's own code: the in-process app
// (test/support/proxy.ts, mode off) against the fake Ollama, sequential chats,
// V8's sampling profiler on the main thread; self time per function, grouped by
// where it lives (src/ folders, node_modules packages, Node itself), and the
// inclusive time of our functions. See README.md ("Own work over the floor").
//
// node --import tsx bench/overhead/ownWork.ts     BENCH_REQUESTS (3000), BENCH_STREAM=1, BENCH_TOP (25)

import http from 'node:http';
import { Session } from 'node:inspector/promises';
import { startProxy } from '../../test/support/proxy.ts';
import { startFakeUpstream } from '../support/processes.ts';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 3000);
const STREAM = process.env.BENCH_STREAM === '1';
const TOP = Number(process.env.BENCH_TOP ?? 25);

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

const fake = await startFakeUpstream();
const app = await startProxy({ upstreamUrl: fake.url, settings: { mode: 'off' } });
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const chat = (i: number) =>
  new Promise<void>((resolve, reject) => {
    const body = JSON.stringify({
      model: 'qwen2.5-coder:7b',
      stream: STREAM,
      messages: [{ role: 'user', content: `question number ${i}` }],
    });
    const req = http.request(
      `${app.url}/v1/chat/completions`,
      { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
      (res) => {
        res.resume();
        res.on('end', () => resolve());
      },
    );
    req.on('error', reject);
    req.end(body);
  });

for (let i = 0; i < 300; i++) await chat(i);
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 100 });
await session.post('Profiler.start');
const started = process.cpuUsage();
const t0 = performance.now();
for (let i = 0; i < REQUESTS; i++) await chat(i);
const wallMs = performance.now() - t0;
const cpu = process.cpuUsage(started);
const { profile } = (await session.post('Profiler.stop')) as unknown as {
  profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
};
session.disconnect();
await app.close();
await fake.stop();

const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
const samples = new Map<number, number>();
for (const id of profile.samples) samples.set(id, (samples.get(id) ?? 0) + 1);
const total = profile.samples.length;
const cwd = `${process.cwd()}/`;
function place(url: string): string {
  if (url === '') return '(native/VM)';
  if (url.startsWith('node:')) return 'node';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1] as string;
  const ours = /\/(src\/[^/]+)\//.exec(url);
  if (ours) return ours[1] as string;
  return url.replace(/^file:\/\//, '').replace(cwd, '');
}
const groups = new Map<string, number>();
const selfByFn = new Map<string, number>();
const inclusiveOurs = new Map<string, number>();
for (const [id, n] of samples) {
  const node = byId.get(id) as ProfileNode;
  const name = node.callFrame.functionName;
  const group = name.startsWith('(') ? name : place(node.callFrame.url);
  groups.set(group, (groups.get(group) ?? 0) + n);
  if (group.startsWith('src/')) {
    const key = `${name || '(anonymous)'} ${node.callFrame.url.replace(/^file:\/\//, '').replace(cwd, '')}`;
    selfByFn.set(key, (selfByFn.get(key) ?? 0) + n);
  }
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const frame = byId.get(at) as ProfileNode;
    if (!/\/src\//.test(frame.callFrame.url) || frame.callFrame.url.includes('node_modules')) continue;
    const key = `${frame.callFrame.functionName || '(anonymous)'} ${place(frame.callFrame.url)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    inclusiveOurs.set(key, (inclusiveOurs.get(key) ?? 0) + n);
  }
}
const perRequestMs = (n: number) => (((n / total) * (cpu.user + cpu.system)) / 1000 / REQUESTS).toFixed(3);
const lines = [
  `${REQUESTS} sequential ${STREAM ? 'streamed' : 'non-streamed'} chats, mode off: ${(wallMs / REQUESTS).toFixed(3)} ms wall, ${((cpu.user + cpu.system) / 1000 / REQUESTS).toFixed(3)} ms CPU per request (this process: client, proxy, not the fake upstream)`,
  '',
  'self time by place (ms of CPU per request):',
  ...[...groups.entries()].sort((a, b) => b[1] - a[1]).map(([g, n]) => `  ${perRequestMs(n).padStart(7)}  ${g}`),
  '',
  `our functions, self (top ${TOP}):`,
  ...[...selfByFn.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, TOP)
    .map(([f, n]) => `  ${perRequestMs(n).padStart(7)}  ${f}`),
  '',
  `our functions, inclusive (top ${TOP}):`,
  ...[...inclusiveOurs.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, TOP)
    .map(([f, n]) => `  ${perRequestMs(n).padStart(7)}  ${f}`),
];
process.stdout.write(`${lines.join('\n')}\n`);
