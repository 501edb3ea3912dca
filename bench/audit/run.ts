// Audit store benchmark: what a snapshot costs on the response path and on disk.
// Run: node --import tsx bench/audit/run.ts [--turns 100] [--reps 5]
// See README.md for what is measured and why.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import type { DedupePolicy } from '../../src/audit/blobRefs.ts';
import { openAuditStore } from '../../src/audit/store.ts';
import { table } from '../../src/cli/auditFormat.ts';
import type { ChatMessage, Snapshot } from '../../src/shared/types.ts';

const { values } = parseArgs({ options: { turns: { type: 'string' }, reps: { type: 'string' } } });
const TURNS = Number(values.turns ?? 100);
const REPS = Number(values.reps ?? 5);
const BLOCK_CHARS = 32_000; // ~8k tokens at ~4 chars a token

// ---- a deterministic conversation ------------------------------------------------

function pseudoRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

const WORDS =
  'the parser config module token stream error handler request git diff file line test build cache value'.split(' ');

function prose(random: () => number, chars: number): string {
  const words: string[] = [];
  let size = 0;
  while (size < chars) {
    const word = WORDS[Math.floor(random() * WORDS.length)] ?? 'x';
    words.push(word);
    size += word.length + 1;
  }
  return words.join(' ');
}

function contextBlock(): string {
  const random = pseudoRandom(7);
  const fences: string[] = [];
  for (let i = 0; fences.join('\n\n').length < BLOCK_CHARS; i++) {
    fences.push(`<context source="files.src/file${i}.ts">\n${prose(random, 1500)}\n</context>`);
  }
  return fences.join('\n\n');
}

interface Turn {
  snapshot: Snapshot;
  /** UTF-8 bytes of this turn's own new messages: the user's question and the model's answer. */
  ownBytes: number;
}

function* conversation(id: string, block: string, seed: number): Generator<Turn> {
  const random = pseudoRandom(seed);
  const history: ChatMessage[] = [];
  for (let turn = 0; turn < TURNS; turn++) {
    const question = prose(random, 150 + Math.floor(random() * 500));
    const answer = prose(random, 600 + Math.floor(random() * 2000));
    history.push({ role: 'user', content: question });
    const snapshot: Snapshot = {
      id: `${id}-${turn}`,
      requestId: `req-${id}-${turn}`,
      createdAt: 1_760_000_000_000 + turn * 30_000,
      model: 'qwen2.5-coder:7b',
      modeAsked: 'auto',
      modeUsed: 'git-aware',
      workspace: '/home/dev/project',
      userAgent: 'OpenAI/JS 6.30.1',
      stream: true,
      conversationId: id,
      forwarded: [{ role: 'system', content: block }, ...history],
      contextBlock: block,
      sources: [{ source: 'files', status: 'ok', ms: 20, items: 21, chars: block.length, tokens: 8000, skipped: [] }],
      redactions: {},
      reply: { content: answer, finishReason: 'stop' },
      usage: { promptTokens: 8000 + turn * 500, completionTokens: 400 },
      timings: { totalMs: 1500, collectMs: 25, firstTokenMs: 300, upstreamMs: 1450 },
      outcome: 'ok',
      warnings: [],
    };
    yield { snapshot, ownBytes: Buffer.byteLength(question) + Buffer.byteLength(answer) };
    history.push({ role: 'assistant', content: answer });
  }
}

// ---- statistics ------------------------------------------------------------------

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

function describe(samples: number[]): { median: number; p25: number; p75: number; p99: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    median: quantile(sorted, 0.5),
    p25: quantile(sorted, 0.25),
    p75: quantile(sorted, 0.75),
    p99: quantile(sorted, 0.99),
  };
}

const ms = (value: number) => `${value.toFixed(value < 0.1 ? 4 : 3)} ms`;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const line = (label: string, samples: number[]) => {
  const d = describe(samples);
  return `  ${label.padEnd(44)} median ${ms(d.median).padStart(10)}   p25–p75 ${ms(d.p25)}–${ms(d.p75)}   p99 ${ms(d.p99)}`;
};

// ---- runs ------------------------------------------------------------------------

interface Measured {
  save: number[];
  write1: number[];
  write10: number[];
  bytes: { empty: number; atTurn90: number; end: number };
}

/** One store, `REPS` conversations; every turn is saved then flushed (a batch of one, as the server does). */
async function measure(dir: string, policy: DedupePolicy, block: string): Promise<Measured> {
  const store = openAuditStore({ path: join(dir, `${policy}.db`), dedupe: policy });
  const result: Measured = {
    save: [],
    write1: [],
    write10: [],
    bytes: { empty: store.stats().liveBytes, atTurn90: 0, end: 0 },
  };
  for (let rep = 0; rep < REPS; rep++) {
    let turnIndex = 0;
    for (const { snapshot } of conversation(`c${rep}`, block, 100 + rep)) {
      const started = performance.now();
      store.save(snapshot);
      const saved = performance.now();
      await store.flush();
      result.save.push(saved - started);
      result.write1.push(performance.now() - saved);
      turnIndex += 1;
      if (rep === 0 && turnIndex === Math.floor(TURNS * 0.9)) result.bytes.atTurn90 = store.stats().liveBytes;
    }
    if (rep === 0) result.bytes.end = store.stats().liveBytes;
  }
  // Batches of ten: the server under load, when several requests finish within one tick.
  const batch: Snapshot[] = [];
  for (const { snapshot } of conversation('batched', block, 999)) {
    batch.push(snapshot);
    if (batch.length < 10) continue;
    for (const queued of batch.splice(0)) store.save(queued);
    const started = performance.now();
    await store.flush();
    result.write10.push((performance.now() - started) / 10);
  }
  await store.close();
  return result;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ctxproxy-bench-audit-'));
  try {
    const block = contextBlock();
    const own = [...conversation('probe', block, 100)].map((turn) => turn.ownBytes);
    const ownAverage = own.reduce((a, b) => a + b, 0) / own.length;
    const ownLast10 = own.slice(-Math.ceil(TURNS * 0.1)).reduce((a, b) => a + b, 0) / Math.ceil(TURNS * 0.1);
    const sqlite = new Database(':memory:').prepare('SELECT sqlite_version() AS v').get() as { v: string };
    console.log(
      `ctxproxy audit bench — node ${process.version}, SQLite ${sqlite.v}, ${TURNS}-turn conversation × ${REPS}, context block ${kb(Buffer.byteLength(block))}, own messages ${kb(ownAverage)}/turn on average`,
    );

    const warmUp = openAuditStore({ path: join(dir, 'warmup.db') });
    for (const { snapshot } of conversation('warm', block, 1)) warmUp.save(snapshot);
    await warmUp.close();

    const runs = new Map<DedupePolicy, Measured>();
    for (const policy of ['all', 'context', 'none'] as const) runs.set(policy, await measure(dir, policy, block));
    const all = runs.get('all');
    if (!all) return;

    console.log(`\nwrite cost per snapshot (dedupe=all, ${all.save.length} snapshots)`);
    console.log(line('save() on the caller path', all.save));
    console.log(line('batch write, 1 per batch (off the path)', all.write1));
    console.log(line('batch write, 10 per batch, per snapshot', all.write10));
    const sync = all.save.map((save, i) => save + (all.write1[i] ?? 0));
    console.log(line('baseline: save+write on the caller path', sync));
    console.log(
      `  → the response path pays ${(describe(all.save).median / describe(sync).median).toFixed(4)}× the synchronous write (median)`,
    );
    for (const policy of ['context', 'none'] as const) {
      const run = runs.get(policy);
      if (run) console.log(line(`batch write, 1 per batch, dedupe=${policy}`, run.write1));
    }

    console.log(`\ndatabase bytes for one ${TURNS}-turn conversation (live pages, first conversation of each run)`);
    const none = runs.get('none');
    const rows: string[][] = [];
    for (const [policy, run] of runs) {
      const total = run.bytes.end - run.bytes.empty;
      const lastTurns = TURNS - Math.floor(TURNS * 0.9);
      const recent = (run.bytes.end - run.bytes.atTurn90) / lastTurns;
      const baseline = none ? none.bytes.end - none.bytes.empty : total;
      rows.push([
        policy,
        kb(total),
        kb(total / TURNS),
        kb(recent),
        `${(recent / ownLast10).toFixed(2)}×`,
        `${(total / baseline).toFixed(3)}×`,
      ]);
    }
    const header = ['dedupe', 'total', 'per turn', 'per turn, last 10%', '÷ own messages', 'total ÷ none'];
    console.log(
      table(header, rows)
        .split('\n')
        .map((row) => `  ${row}`)
        .join('\n'),
    );
    console.log(
      `  own messages (question + answer) over the last 10% of turns: ${kb(ownLast10)}/turn.\n  all = block and history shared (the default); context = only the block stored once; none = the block stored again every turn.`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
