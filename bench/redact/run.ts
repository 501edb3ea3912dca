// Throughput of the redactor on ~1 MB of mixed text, against secretlint's
// recommended preset alone in the same run, and the cost of a cache hit.
// Run: node --import tsx bench/redact/run.ts

import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { lintSource } from '@secretlint/core';
import { secretLintProfiler } from '@secretlint/profiler';
import { creator as recommendedPreset } from '@secretlint/secretlint-rule-preset-recommend';
import type { SecretLintCoreConfig } from '@secretlint/types';
import { createRedactor, DEFAULT_RULES_DIR } from '../../src/redact/createRedactor.ts';
import { KeywordIndex } from '../../src/redact/keywordIndex.ts';
import { loadRedactionRules } from '../../src/redact/loadRules.ts';
import { OPTIMISATIONS } from '../../src/redact/scanner.ts';
import { GATE_ANCHORS } from '../../src/redact/secretlintGuard.ts';
import type { Redactor } from '../../src/shared/types.ts';
import { denseCorpus, type Input, type Item, repositoryMix } from './inputs.ts';

const { values: flags } = parseArgs({
  options: { before: { type: 'string' }, rounds: { type: 'string', default: '11' }, 'mix-only': { type: 'boolean' } },
});
/** `--before DIR`: another checkout's redactor (e.g. main's), run in the same rounds for a before/after. */
const before = flags.before
  ? ((await import(pathToFileURL(join(resolve(flags.before), 'src/redact/createRedactor.ts')).href)) as {
      createRedactor: (options?: { timeoutMs?: number; cacheMaxChars?: number }) => Promise<Redactor>;
    })
  : undefined;

/**
 * Throughput, not deadlines: on a loaded machine a first scan that compiles many rules' regexes can
 * pass the 2 s default (the server compiles them in the background after start, warmRegexes.ts).
 */
const NO_DEADLINE = 600_000;
const ROUNDS = Number(flags.rounds);

const secretlintConfig: SecretLintCoreConfig = {
  rules: [{ id: '@secretlint/secretlint-rule-preset-recommend', rule: recommendedPreset }],
};

async function secretlintAlone(items: Item[]): Promise<number> {
  let findings = 0;
  for (const item of items) {
    const result = await lintSource({
      source: { content: item.text, filePath: item.path, contentType: 'text' },
      options: { config: secretlintConfig, maskSecrets: true },
    });
    findings += result.messages.length;
  }
  return findings;
}

/**
 * A floor, not a contender: only the keyword pre-filter's pass (the automaton over every character,
 * without listing hits for the rules), which any run of ours pays before its first rule.
 */
const keywordIndex = (() => {
  const rules = loadRedactionRules(DEFAULT_RULES_DIR);
  return new KeywordIndex([
    ...rules.flatMap((rule) => rule.keywords),
    ...GATE_ANCHORS,
    ...rules.flatMap((rule) => rule.starts ?? []),
  ]);
})();
async function keywordPassAlone(items: Item[]): Promise<number> {
  let found = 0;
  for (const item of items) found += keywordIndex.scan(item.text).found.reduce((sum, hit) => sum + hit, 0);
  return found;
}

async function ours(items: Item[], redactor: Redactor): Promise<number> {
  let findings = 0;
  for (const item of items) findings += (await redactor.redact(item.text, { path: item.path })).findings.length;
  return findings;
}

function stats(samples: number[]): { median: number; min: number; max: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)]!, min: sorted[0]!, max: sorted.at(-1)! };
}

/**
 * CPU time (user + system, all threads: the garbage collector's helper counts)
 * and wall time of one run, which starts once pending callbacks (the
 * shipped profiler's observer) have run.
 */
async function time(fn: () => Promise<number>): Promise<{ ms: number; wallMs: number; findings: number }> {
  await settle();
  const cpu = process.cpuUsage();
  const started = performance.now();
  const findings = await fn();
  const used = process.cpuUsage(cpu);
  return { ms: (used.user + used.system) / 1000, wallMs: performance.now() - started, findings };
}

// secretlint "as shipped": its profiler marks every rule run on the global performance timeline, and
// an observer keeps every entry in arrays it never clears, searching them for each new one. Our
// module silences it on import; a shipped run puts the real timeline back and starts from the state
// of a fresh process (empty arrays, no marks), as one `secretlint` CLI run over these files would.
/** The profiler's fields are private in its types; this is the shape its module/index.js has. */
const profiler = secretLintProfiler as unknown as {
  perf: unknown;
  entries: unknown[];
  measures: unknown[];
  executionPromises: unknown[];
};
const silenced = profiler.perf;
function resetProfiler(): void {
  profiler.entries.length = 0;
  profiler.measures.length = 0;
  profiler.executionPromises.length = 0;
  performance.clearMarks();
  performance.clearMeasures();
}

/** Callbacks queued so far (the shipped profiler's observer runs in later turns) have run. */
async function settle(): Promise<void> {
  for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
}

/** CPU and wall time of the work the shipped profiler queued during a shipped run (measured once). */
const deferred: { ms: number; wallMs: number }[] = [];

/**
 * One shipped run from a fresh profiler (as one CLI run from a fresh process). The clock stops when the
 * last lintSource resolves, as for the others; the work its profiler queued runs after (settleShipped).
 */
async function shipped(items: Item[]): Promise<number> {
  resetProfiler();
  profiler.perf = performance;
  try {
    return await secretlintAlone(items);
  } finally {
    profiler.perf = silenced;
  }
}

/**
 * The shipped profiler's observer then searches every earlier entry for each new one (quadratic:
 * seconds for one pass of this input). That is timed once, on its own; after other runs the
 * observer is given arrays that keep nothing, so that it does not slow the bench down.
 */
async function settleShipped(): Promise<void> {
  if (deferred.length > 0) {
    const keepNothing = { find: () => undefined, push: () => 0, length: 0 };
    Object.assign(profiler, { entries: keepNothing, measures: keepNothing });
  }
  const cpu = process.cpuUsage();
  const started = performance.now();
  await settle();
  await Promise.all(profiler.executionPromises);
  const used = process.cpuUsage(cpu);
  if (deferred.length === 0)
    deferred.push({ ms: (used.user + used.system) / 1000, wallMs: performance.now() - started });
  Object.assign(profiler, { entries: [], measures: [], executionPromises: [] });
  resetProfiler();
}

type Run = { ms: number; wallMs: number; findings: number };

/**
 * Rounds of the three contenders and the floor over one input; prints their figures and ratios. With
 * `ablation`, each round also runs our redactor with one scanner optimisation turned off at a time.
 */
async function measure({ name, items, bytes, planted }: Input, ablation: boolean): Promise<void> {
  const variants = ablation ? OPTIMISATIONS : [];
  console.log(
    `\n${name}: ${items.length} items, ${(bytes / 1024).toFixed(0)} KiB, ${planted} planted secrets; ${ROUNDS} rounds, each one run of the ${4 + variants.length + (before ? 1 : 0)}, in turns`,
  );

  // One redactor per contender, without a result cache (every item is scanned in every run), warmed up
  // with two whole passes (JIT, module loading, each regex compiled on first use): steady-state
  // scanning, as in a server that has been up for a while. The other contenders warm up with one pass.
  const uncached = { timeoutMs: NO_DEADLINE, cacheMaxChars: 0 };
  const runs: Record<string, Run[]> = { shipped: [], silenced: [], ours: [], keywords: [] };
  const redactors = new Map<string, Redactor>([['ours', await createRedactor(uncached)]]);
  for (const off of variants) {
    runs[`without ${off}`] = [];
    redactors.set(`without ${off}`, await createRedactor({ ...uncached, without: [off] }));
  }
  if (before) {
    runs.before = [];
    redactors.set('before', await before.createRedactor(uncached));
  }
  for (const redactor of redactors.values()) for (let pass = 0; pass < 2; pass++) await ours(items, redactor);
  await secretlintAlone(items);
  await shipped(items.slice(0, 100));
  await settleShipped();
  deferred.length = 0;
  await keywordPassAlone(items);
  for (let round = 0; round < ROUNDS; round++) {
    const order = Object.keys(runs);
    for (let k = 0; k < round % order.length; k++) order.push(order.shift()!);
    for (const which of order) {
      const redactor = redactors.get(which);
      const run =
        which === 'shipped'
          ? () => shipped(items)
          : which === 'silenced'
            ? () => secretlintAlone(items)
            : which === 'keywords'
              ? () => keywordPassAlone(items)
              : () => ours(items, redactor!);
      runs[which]!.push(await time(run));
      if (which === 'shipped') await settleShipped();
    }
  }
  const cpu = (which: string) => stats(runs[which]!.map((r) => r.ms));
  const wall = (which: string) => stats(runs[which]!.map((r) => r.wallMs));
  /** Per round: how many times faster ours was than `which` (same round, so the same machine load). */
  const ratio = (which: string, key: 'ms' | 'wallMs') =>
    stats(runs[which]!.map((r, i) => r[key] / runs.ours![i]![key]));
  const mbps = (ms: number) => (bytes / 1024 / 1024 / (ms / 1000)).toFixed(2);
  const line = (name: string, which: string) => {
    const c = cpu(which);
    const w = wall(which);
    return (
      `${name} CPU median ${c.median.toFixed(1)} ms (min ${c.min.toFixed(1)}, max ${c.max.toFixed(1)}), ${mbps(c.median)} MiB/s; ` +
      `wall median ${w.median.toFixed(1)} ms (min ${w.min.toFixed(1)}, max ${w.max.toFixed(1)}); ${runs[which]![0]!.findings} findings`
    );
  };
  const ratioText = (r: ReturnType<typeof stats>) =>
    `${r.median.toFixed(2)}x (min ${r.min.toFixed(2)}, max ${r.max.toFixed(2)})`;
  console.log(line('secretlint preset, as shipped (profiler on):', 'shipped'));
  console.log(
    `  + the work its profiler queued during the first of those runs, run after it: CPU ${deferred[0]?.ms.toFixed(0)} ms, wall ${deferred[0]?.wallMs.toFixed(0)} ms`,
  );
  console.log(line('secretlint preset, profiler silenced:       ', 'silenced'));
  console.log(line('ctxproxy redactor (ours + secretlint guard):', 'ours'));
  if (before) {
    console.log(line(`  the same from ${flags.before}:`.padEnd(44), 'before'));
    console.log(
      `  this checkout against it, per-round ratios: CPU ${ratioText(ratio('before', 'ms'))} (>= 1: no slower)`,
    );
  }
  const floor = cpu('keywords');
  console.log(
    `  floor: its keyword pre-filter pass alone, CPU median ${floor.median.toFixed(1)} ms (min ${floor.min.toFixed(1)}, max ${floor.max.toFixed(1)}), ` +
      `${((100 * floor.median) / cpu('silenced').median).toFixed(0)} % of secretlint silenced (2x would leave all of ours ${(cpu('silenced').median / 2).toFixed(1)} ms)`,
  );
  console.log(
    `ours against secretlint as shipped, per-round ratios: CPU ${ratioText(ratio('shipped', 'ms'))}, ` +
      `wall ${ratioText(ratio('shipped', 'wallMs'))}`,
  );
  console.log(
    `ours against secretlint with its profiler silenced, per-round ratios: CPU ${ratioText(ratio('silenced', 'ms'))}, ` +
      `wall ${ratioText(ratio('silenced', 'wallMs'))}`,
  );
  console.log(
    `findings: ours ${runs.ours![0]!.findings} vs secretlint ${runs.silenced![0]!.findings} (target: strictly more)`,
  );
  if (variants.length === 0) return;
  // What each optimisation buys: per round, our run without it minus our run with all, as a share of the latter.
  console.log('ablation (our redactor with one optimisation off; same masks, checked by the differential test):');
  for (const off of variants) {
    const which = `without ${off}`;
    const buys = stats(runs[which]!.map((r, i) => r.ms - runs.ours![i]!.ms));
    const share = stats(runs[which]!.map((r, i) => (r.ms - runs.ours![i]!.ms) / runs.ours![i]!.ms));
    const same = runs[which]!.every((r) => r.findings === runs.ours![0]!.findings);
    console.log(
      `  without ${off.padEnd(12)} CPU median ${cpu(which).median.toFixed(1)} ms; buys ${buys.median.toFixed(1)} ms ` +
        `(min ${buys.min.toFixed(1)}, max ${buys.max.toFixed(1)}) = ${(100 * share.median).toFixed(0)} % of the total ` +
        `(min ${(100 * share.min).toFixed(0)}, max ${(100 * share.max).toFixed(0)}); keep at >= 10 %${same ? '' : '; FINDINGS DIFFER'}`,
    );
  }
}

const inputs = [repositoryMix(), denseCorpus()];
await measure(inputs[0]!, true);
if (!flags['mix-only']) await measure(inputs[1]!, false);

// Cache hit: the same item again, as on every turn of a conversation whose
// context did not change. CPU time per call (hash + lookup + copy of the findings).
const cached = await createRedactor({ timeoutMs: NO_DEADLINE });
for (const size of [4 * 1024, 32 * 1024]) {
  const text = inputs[1]!.items
    .map((i) => i.text)
    .join('\n')
    .slice(0, size);
  await cached.redact(text, { path: 'x.ts' });
  const perCall: number[] = [];
  for (let round = 0; round < 5; round++) {
    const cpu = process.cpuUsage();
    for (let i = 0; i < 500; i++) await cached.redact(text, { path: 'x.ts' });
    const used = process.cpuUsage(cpu);
    perCall.push((used.user + used.system) / 500);
  }
  const c = stats(perCall);
  console.log(
    `cache hit, ${size / 1024} KiB item: CPU median ${c.median.toFixed(1)} µs per call (min ${c.min.toFixed(1)}, max ${c.max.toFixed(1)}); target < 100 µs`,
  );
}
