// The held-out question, asked from outside: what does each proxy add to a request,
// sequential, context off, non-streaming and streaming, over both upstream kinds,
// against Portkey's gateway and a bare node:http pass-through in the same rounds.
// See README.md next to this file ("From outside").
//
// Run: npm run build && npm ci --prefix bench/overhead/portkey &&
//      node --import tsx bench/overhead/outside.ts   (BENCH_ROUNDS, default 400)
// BENCH_BEFORE=DIR adds "ctxproxy before": DIR's bin/ctxproxy.js (another checkout, built), in the same rounds.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Child, cpuMs, startCtxproxy, startFakeUpstream, startScript } from '../support/processes.ts';
import { ms, summarize } from '../support/stats.ts';
import { type Timing, timedPost } from '../support/timedPost.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 400);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 200);
const OLLAMA_MODEL = 'qwen2.5-coder:7b';
const OPENAI_MODEL = 'local-model';
const root = fileURLToPath(new URL('../../', import.meta.url));
const here = fileURLToPath(new URL('.', import.meta.url));

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

const call = (url: string, body: string, headers: Record<string, string> = {}): Promise<Timing> =>
  timedPost(agent, url, body, headers);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const PORTKEY_ENTRY = path.join(here, 'portkey/node_modules/@portkey-ai/gateway/build/start-server.js');

/** Portkey's gateway as its package starts it (`build/start-server.js --port=N`), its output read. */
async function startPortkey(): Promise<Child & { outputBytes: () => number }> {
  const port = await freePort();
  const child = spawn(process.execPath, [PORTKEY_ENTRY, `--port=${port}`, '--headless'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let outputBytes = 0;
  const count = (chunk: Buffer) => {
    outputBytes += chunk.length;
  };
  child.stdout?.on('data', count);
  child.stderr?.on('data', count);
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('Ready for connections')) resolve();
    });
    child.once('exit', () => reject(new Error('Portkey exited before it was ready')));
  });
  return {
    process: child,
    url: `http://127.0.0.1:${port}`,
    outputBytes: () => outputBytes,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * A real git workspace (a clone of this repository), so the server's background work (index,
 * symbols, watcher) runs; one per server, as each keeps its audit and its index in the workspace.
 */
const workspaces: string[] = [];
function gitWorkspace(): string {
  const folder = mkdtempSync(path.join(tmpdir(), 'ctxproxy-overhead-ws-'));
  const cloned = spawnSync('git', ['clone', '--quiet', '--no-hardlinks', root, folder], { stdio: 'inherit' });
  if (cloned.status !== 0) throw new Error('git clone failed');
  workspaces.push(folder);
  return folder;
}

function shuffled<T>(items: T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy;
}

const chat = (model: string, stream: boolean, i: number) =>
  JSON.stringify({ model, stream, messages: [{ role: 'user', content: `question number ${i}` }] });

// Checked before any server starts: a throw after them left the fakes and two servers running.
if (!existsSync(PORTKEY_ENTRY)) {
  console.error('Portkey is not installed: npm ci --prefix bench/overhead/portkey');
  process.exit(1);
}
const loadBefore = loadavg();
const ollama = await startFakeUpstream();
const openai = await startScript('bench/support/fakeOpenAIProcess.ts', [OPENAI_MODEL]);
const ctxOllama = await startCtxproxy(ollama.url, [], { stderr: 'read', workspace: gitWorkspace() });
const ctxOpenai = await startCtxproxy(openai.url, ['--upstream-kind', 'openai'], {
  stderr: 'read',
  workspace: gitWorkspace(),
});
const beforeBin = process.env.BENCH_BEFORE ? path.join(process.env.BENCH_BEFORE, 'bin/ctxproxy.js') : undefined;
const before = beforeBin
  ? {
      ollama: await startCtxproxy(ollama.url, [], { stderr: 'read', workspace: gitWorkspace(), bin: beforeBin }),
      openai: await startCtxproxy(openai.url, ['--upstream-kind', 'openai'], {
        stderr: 'read',
        workspace: gitWorkspace(),
        bin: beforeBin,
      }),
    }
  : undefined;
const bareOllama = await startScript('bench/overhead/bareProxy.ts', [ollama.url]);
const bareOpenai = await startScript('bench/overhead/bareProxy.ts', [openai.url, 'openai']);
const portkey = await startPortkey();

// Portkey answers streams only non-streaming here: its 1.15.2 build fails every streamed chat on
// Node 20 (`TypeError: immutable` appending its headers to the stream's Response), and by design it
// holds the first streamed line for 25 ms (a `setTimeout(25)` in its stream reader), so it is no
// reference for the first chunk; the streaming rounds compare against the bare proxy.
// Portkey's `openai` provider with a custom host is how it fronts any OpenAI-compatible server; its
// `ollama` provider calls Ollama's own OpenAI-compatible endpoint (/v1/chat/completions), which the
// fake OpenAI server stands in for.
const portkeyHeaders = (provider: string) => ({
  'x-portkey-provider': provider,
  'x-portkey-custom-host': provider === 'openai' ? `${openai.url}/v1` : openai.url,
  authorization: 'Bearer unused',
});

interface Side {
  name: string;
  run: (i: number) => Promise<Timing>;
  timings: Timing[];
}
interface Group {
  title: string;
  stream: boolean;
  direct: Side;
  others: Side[];
}
const side = (name: string, run: (i: number) => Promise<Timing>): Side => ({ name, run, timings: [] });
const groups: Group[] = [];
for (const stream of [false, true]) {
  groups.push({
    title: `upstream kind openai, ${stream ? 'streaming' : 'non-streaming'}`,
    stream,
    direct: side('direct', (i) => call(`${openai.url}/v1/chat/completions`, chat(OPENAI_MODEL, stream, i))),
    others: [
      side('bare node:http', (i) => call(`${bareOpenai.url}/v1/chat/completions`, chat(OPENAI_MODEL, stream, i))),
      ...(stream
        ? []
        : [
            side('Portkey', (i) =>
              call(`${portkey.url}/v1/chat/completions`, chat(OPENAI_MODEL, stream, i), portkeyHeaders('openai')),
            ),
          ]),
      side('ctxproxy', (i) => call(`${ctxOpenai.url}/v1/chat/completions`, chat(OPENAI_MODEL, stream, i))),
      ...(before
        ? [
            side('ctxproxy before', (i) =>
              call(`${before.openai.url}/v1/chat/completions`, chat(OPENAI_MODEL, stream, i)),
            ),
          ]
        : []),
    ],
  });
  groups.push({
    title: `upstream kind ollama, ${stream ? 'streaming' : 'non-streaming'}`,
    stream,
    direct: side('direct', (i) => call(`${ollama.url}/api/chat`, chat(OLLAMA_MODEL, stream, i))),
    others: [
      side('bare node:http', (i) => call(`${bareOllama.url}/v1/chat/completions`, chat(OLLAMA_MODEL, stream, i))),
      ...(stream
        ? []
        : [
            side('Portkey (ollama provider)', (i) =>
              call(`${portkey.url}/v1/chat/completions`, chat(OPENAI_MODEL, stream, i), portkeyHeaders('ollama')),
            ),
          ]),
      side('ctxproxy', (i) => call(`${ctxOllama.url}/v1/chat/completions`, chat(OLLAMA_MODEL, stream, i))),
      ...(before
        ? [
            side('ctxproxy before', (i) =>
              call(`${before.ollama.url}/v1/chat/completions`, chat(OLLAMA_MODEL, stream, i)),
            ),
          ]
        : []),
    ],
  });
}
// The Portkey ollama side calls the fake OpenAI server, so its own direct call is that one's.
const directOf = (group: Group, s: Side): Side =>
  s.name.startsWith('Portkey')
    ? (groups.find((g) => g.stream === group.stream && g.title.includes('openai')) as Group).direct
    : group.direct;

try {
  const all = groups.flatMap((g) => [g.direct, ...g.others]);
  for (let i = 0; i < WARMUP; i++) for (const s of all) await s.run(i);
  for (const s of all) s.timings.length = 0;
  // The servers' first index of their workspace runs in the background; measured after it (at most a minute).
  const ctxChildren = [ctxOllama, ctxOpenai, ...(before ? [before.ollama, before.openai] : [])];
  for (let waited = 0; waited < 60; waited++) {
    const was = ctxChildren.map((child) => cpuMs(child.process.pid));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    if (ctxChildren.every((child, k) => cpuMs(child.process.pid) - (was[k] as number) < 30)) break;
  }
  // CPU time per request of each server, whatever the machine's load (which stretches latencies, not CPU).
  const servers = [
    ['ctxproxy, kind openai', ctxOpenai],
    ['ctxproxy, kind ollama', ctxOllama],
    ...(before
      ? ([
          ['ctxproxy before, openai', before.openai],
          ['ctxproxy before, ollama', before.ollama],
        ] as const)
      : []),
    ['Portkey', portkey],
    ['bare node:http, openai', bareOpenai],
    ['bare node:http, ollama', bareOllama],
  ] as const;
  const cpuBefore = servers.map(([, child]) => cpuMs(child.process.pid));
  for (let i = 0; i < ROUNDS; i++) for (const s of shuffled(all)) s.timings.push(await s.run(WARMUP + i));
  const cpuAfter = servers.map(([, child]) => cpuMs(child.process.pid));
  const loadAfter = loadavg();

  const lines = [
    `from outside, context off, ${ROUNDS} sequential rounds (every side once per round, random order), ${WARMUP} warm-up`,
    `load average before ${loadBefore.map((l) => l.toFixed(2)).join(' ')}, after ${loadAfter.map((l) => l.toFixed(2)).join(' ')}`,
  ];
  for (const group of groups) {
    const metric = (t: Timing) => (group.stream ? t.firstChunkMs : t.totalMs);
    const added = (s: Side) => {
      const against = directOf(group, s).timings;
      return summarize(s.timings.map((t, i) => metric(t) - metric(against[i] as Timing))).median;
    };
    const byName = new Map(group.others.map((s) => [s.name, added(s)]));
    const portkeyAdded = [...byName].find(([name]) => name.startsWith('Portkey'))?.[1] ?? Number.NaN;
    const bareAdded = byName.get('bare node:http') ?? Number.NaN;
    lines.push(
      '',
      `${group.title} (${group.stream ? 'first chunk' : 'whole answer'}; median, added = paired with the same round's direct call):`,
    );
    lines.push(`  ${'direct'.padEnd(26)} ${ms(summarize(group.direct.timings.map(metric)).median)}`);
    for (const s of group.others) {
      const a = byName.get(s.name) as number;
      lines.push(
        `  ${s.name.padEnd(26)} ${ms(summarize(s.timings.map(metric)).median)}   added ${ms(a)}   ×bare ${(a / bareAdded).toFixed(2)}${Number.isNaN(portkeyAdded) ? '' : `   ×Portkey ${(a / portkeyAdded).toFixed(2)}`}`,
      );
    }
  }
  // Each server serves two requests a round: ctxproxy and the bare proxy one streamed and one not, Portkey
  // one non-streamed chat for each kind.
  lines.push('', 'CPU time per request (user + system of the whole process, from /proc; clock ticks of 10 ms):');
  servers.forEach(([name], k) => {
    const served = 2 * ROUNDS;
    const used = (cpuAfter[k] as number) - (cpuBefore[k] as number);
    lines.push(`  ${name.padEnd(26)} ${ms(used / served)}`);
  });
  lines.push(
    '',
    `log read through pipes: ctxproxy (ollama) ${ctxOllama.stderrBytes()} B, (openai) ${ctxOpenai.stderrBytes()} B, Portkey ${portkey.outputBytes()} B`,
    'target (issue 28): ctxproxy added, non-streaming, <= 0.5 × Portkey added',
  );
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  agent.destroy();
  const beforeChildren = before ? [before.openai, before.ollama] : [];
  for (const child of [portkey, bareOpenai, bareOllama, ctxOpenai, ctxOllama, ...beforeChildren, openai, ollama]) {
    await child.stop();
  }
  for (const folder of workspaces) rmSync(folder, { recursive: true, force: true });
}
