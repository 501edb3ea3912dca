// How often turn N+1's forwarded prompt begins with turn N's bytes (what lets
// Ollama reuse its prompt cache), in a scripted 20-turn session with edits
// between turns, against a baseline measured in the same run: the same session
// through a proxy that keeps no conversation state. See README.md.

import { runScriptedSession, type SessionResult } from '../../test/support/scriptedSession.ts';

const turns = Number(process.env.BENCH_TURNS ?? 20);
const ours = await runScriptedSession({ turns });
const baseline = await runScriptedSession({ turns, remember: false });

const line = (name: string, r: SessionResult) =>
  `${name.padEnd(34)} ${String(r.stable).padStart(3)}/${r.pairs} prefix-stable (${pct(r.stable / r.pairs)})  ` +
  `reused bytes ${pct(r.reusedShare)}  updates ${r.updates}  last prompt ${r.promptBytes.at(-1)} B`;
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

process.stdout.write(`${line('ctxproxy (conversation state)', ours)}\n`);
process.stdout.write(`${line('baseline (every turn planned fresh)', baseline)}\n`);
process.stdout.write(
  `ratio of reused bytes ctxproxy/baseline: ${(ours.reusedShare / Math.max(baseline.reusedShare, 1e-9)).toFixed(2)}\n`,
);
if (ours.stable / ours.pairs < 0.95) {
  process.stderr.write(`below the 95% goal; unstable turns: ${ours.unstable.join(', ')}\n`);
  process.exit(1);
}
