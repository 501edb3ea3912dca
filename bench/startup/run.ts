// How long the real CLI takes to start and how much memory it takes doing it, as
// ratios against `node -e 0` measured in the same run, interleaved round by round.
// Run: npm run bench -- startup [--runs 15] [--bin path/to/bin/ctxproxy.js]…

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { openAuditStore } from '../../src/audit/store.ts';
import type { Snapshot } from '../../src/shared/types.ts';
import { summarize } from '../support/stats.ts';

const root = path.join(import.meta.dirname, '../..');
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '15' },
    /** Repeatable: each entry point is measured in the same rounds (e.g. another checkout's, for a before/after). */
    bin: { type: 'string', multiple: true, default: [path.join(root, 'bin/ctxproxy.js')] },
  },
});
const RUNS = Number(values.runs);
const BINS = (values.bin as string[]).map((bin) => path.resolve(bin));
const RSS_HOOK = path.join(import.meta.dirname, 'maxRss.mjs');
const SNAPSHOTS = 1000;

interface Case {
  name: string;
  args: string[];
  /** Ratio of medians to `node -e 0` that the issue asks for. */
  target?: number;
  rssTargetMb?: number;
  input?: string;
  /** Wall time ends at this stdout line instead of at exit; the process is then stopped. */
  readyLine?: RegExp;
}

function snapshot(i: number): Snapshot {
  const question = `question ${i}: why does the parser drop the last token of line ${i % 97}?`;
  return {
    id: `s-${i}`,
    requestId: `req-${i}`,
    createdAt: 1_760_000_000_000 + i * 30_000,
    model: 'qwen2.5-coder:7b',
    modeAsked: 'auto',
    modeUsed: 'git-aware',
    workspace: '/home/dev/project',
    userAgent: 'OpenAI/JS 6.30.1',
    stream: true,
    conversationId: `c-${Math.floor(i / 10)}`,
    forwarded: [
      {
        role: 'system',
        content: `<context source="files.src/file${i}.ts">\n${'const x = 1;\n'.repeat(100)}</context>`,
      },
      { role: 'user', content: question },
    ],
    contextBlock: `<context source="files.src/file${i}.ts">\n${'const x = 1;\n'.repeat(100)}</context>`,
    sources: [{ source: 'files', status: 'ok', ms: 20, items: 1, chars: 1300, tokens: 400, skipped: [] }],
    redactions: {},
    reply: { content: `because of an off-by-one in line ${i}`, finishReason: 'stop' },
    usage: { promptTokens: 450, completionTokens: 12 },
    timings: { totalMs: 1500, collectMs: 25, firstTokenMs: 300, upstreamMs: 1450 },
    outcome: 'ok',
    warnings: [],
  };
}

/** A 1,000-snapshot audit database written by the real store. */
async function makeDatabase(file: string): Promise<void> {
  const store = openAuditStore({ path: file });
  for (let i = 0; i < SNAPSHOTS; i++) store.save(snapshot(i));
  await store.flush();
  await store.close();
}

/** About 5 KB of ordinary TypeScript with two secrets in it. */
function fiveKb(): string {
  const lines = [
    `const apiKey = "sk-proj-${'a1B2c3D4'.repeat(6)}";`,
    'const password = "correct-horse-battery-staple";',
  ];
  for (let i = 0; lines.join('\n').length < 5 * 1024; i++) {
    lines.push(
      `export function handler${i}(request: Request): number { return request.headers.get('x-${i}')?.length ?? ${i}; }`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** One run: wall time in ms (to exit, or to the ready line) and peak RSS in KiB. */
function runOnce(c: Case, cwd: string, rssFile: string): Promise<{ ms: number; rssKb: number }> {
  writeFileSync(rssFile, '');
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('CTXPROXY_')) env[key] = value;
  env.CTXPROXY_BENCH_RSS_FILE = rssFile;
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', RSS_HOOK, ...c.args], {
    cwd,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin.end(c.input ?? '');
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const exited = new Promise<string>((resolve) => child.once('close', (code, signal) => resolve(`${code ?? signal}`)));
  return new Promise((resolve, reject) => {
    let ms = 0;
    if (c.readyLine) {
      const pattern = c.readyLine;
      const lines = createInterface({ input: child.stdout });
      lines.on('line', (line) => {
        if (ms === 0 && pattern.test(line)) {
          ms = performance.now() - started;
          child.kill('SIGTERM');
        }
      });
    } else child.stdout.resume();
    void exited.then((code) => {
      if (ms === 0) ms = performance.now() - started;
      // An older build could die of the SIGTERM sent right at its ready line (fixed since):
      // its time counts, its peak RSS is unknown (NaN, left out of the median).
      const stoppedAtReady = c.readyLine && ms > 0 && code === 'SIGTERM';
      if (code !== '0' && !stoppedAtReady) reject(new Error(`${c.name} exited with ${code}: ${stderr}`));
      else resolve({ ms, rssKb: Number(readFileSync(rssFile, 'utf8').trim().split('\n').pop() || Number.NaN) });
    });
  });
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'ctxproxy-bench-startup-'));
  try {
    const db = path.join(dir, 'audit.db');
    await makeDatabase(db);
    const cases: Case[] = [{ name: 'node -e 0', args: ['-e', '0'] }];
    for (const [n, BIN] of BINS.entries()) {
      const tag = BINS.length > 1 ? ` [${n + 1}]` : '';
      cases.push(
        { name: `ctxproxy --help${tag}`, args: [BIN, '--help'], target: 3, rssTargetMb: 60 },
        { name: `ctxproxy audit list (1,000 snapshots)${tag}`, args: [BIN, 'audit', 'list', '--db', db], target: 5 },
        {
          name: `ctxproxy redact (5 KB)${tag}`,
          args: [BIN, 'redact', '--path', 'src/handler.ts'],
          target: 6,
          input: fiveKb(),
        },
        {
          name: `ctxproxy serve to its ready line${tag}`,
          args: [BIN, 'serve', '--port', '0', '--db', path.join(dir, `serve${n}.db`), '--workspace', dir],
          target: 10,
          readyLine: /^ctxproxy listening on /,
        },
      );
    }
    console.log(`ctxproxy startup bench — node ${process.version}, ${RUNS} rounds`);
    for (const [n, bin] of BINS.entries()) console.log(`  [${n + 1}] ${bin}`);
    const rssFile = path.join(dir, 'rss.txt');
    const times = cases.map(() => [] as number[]);
    const rss = cases.map(() => [] as number[]);
    // Interleaved: each round runs every case once, starting one further along, so that
    // all see the same machine load (the machine is shared).
    for (let round = 0; round < RUNS + 1; round++) {
      for (let k = 0; k < cases.length; k++) {
        const index = (round + k) % cases.length;
        const result = await runOnce(cases[index] as Case, dir, rssFile);
        if (round === 0) continue; // warm-up: file cache, SQLite pages
        times[index]?.push(result.ms);
        rss[index]?.push(result.rssKb);
      }
    }
    const base = summarize(times[0] as number[]).median;
    console.log(
      `${'what'.padEnd(44)} ${'median'.padStart(9)} ${'q1–q3'.padStart(15)} ${'× node'.padStart(7)} ${'target'.padStart(7)} ${'RSS MB'.padStart(7)}`,
    );
    let failed = 0;
    cases.forEach((c, i) => {
      const t = summarize(times[i] as number[]);
      const mb = summarize((rss[i] as number[]).filter((kb) => !Number.isNaN(kb))).median / 1024;
      const ratio = t.median / base;
      const ok = (c.target === undefined || ratio <= c.target) && (c.rssTargetMb === undefined || mb <= c.rssTargetMb);
      if (!ok) failed++;
      const target = c.target ? `≤ ${c.target}×` : '';
      const rssNote = c.rssTargetMb ? ` (≤ ${c.rssTargetMb})` : '';
      console.log(
        `${c.name.padEnd(44)} ${`${t.median.toFixed(0)} ms`.padStart(9)} ${`${t.q1.toFixed(0)}–${t.q3.toFixed(0)} ms`.padStart(15)} ${ratio.toFixed(1).padStart(6)}× ${target.padStart(7)} ${mb.toFixed(0).padStart(7)}${rssNote}${c.target ? (ok ? '  ok' : '  MISSED') : ''}`,
      );
    });
    console.log(failed === 0 ? 'all targets met' : `${failed} target(s) missed`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
