// The audit write on the path to the first chunk: a request's in-flight record,
// written (and waited for) before its prompt goes upstream, in the pattern of
// sequential chats against the real server: each request's record is written
// while the final version of the request before it is still queued. Prints the
// median time saveInFlight takes (its turn of the event loop included).
// Run: node --import tsx bench/overhead/inFlightWrite.ts   (BENCH_ROUNDS, default 3000)

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { openAuditStore } from '../../src/audit/store.ts';
import type { Snapshot } from '../../src/shared/types.ts';
import { makeSnapshot } from '../../test/audit/fixtures.ts';
import { summarize } from '../support/stats.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3000);
const WARMUP = 300;

/** What a chat with context off leaves in the log: one short question, no context block. */
function offModeSnapshot(i: number, outcome: Snapshot['outcome']): Snapshot {
  return makeSnapshot({
    id: `s_bench_${i}`,
    contextBlock: undefined,
    conversationId: undefined,
    modeAsked: 'off',
    modeUsed: 'off',
    downgradeReason: undefined,
    sources: [],
    outcome,
    forwarded: [{ role: 'user', content: `question number ${i}` }],
    reply: outcome === 'in_flight' ? { content: '' } : { content: 'Hello from the fake Ollama.', finishReason: 'stop' },
  });
}

const dir = mkdtempSync(path.join(tmpdir(), 'ctxproxy-bench-audit-'));
const store = openAuditStore({ path: path.join(dir, 'audit.db') });
const times: number[] = [];
try {
  for (let i = 0; i < WARMUP + ROUNDS; i++) {
    const started = performance.now();
    const result = await store.saveInFlight(offModeSnapshot(i, 'in_flight'));
    if (i >= WARMUP) times.push(performance.now() - started);
    if (!result.written) throw new Error(`in-flight record not written: ${result.reason}`);
    store.save(offModeSnapshot(i, 'ok'));
  }
} finally {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
const { median, iqr } = summarize(times);
console.log(
  `in-flight record written before the upstream call: median ${median.toFixed(3)} ms, IQR ${iqr.toFixed(3)} ms (${ROUNDS} rounds)`,
);
