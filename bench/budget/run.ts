// Budget stage benchmark: counting and fitting a ~100,000-token conversation
// plus a full deep-mode context. Baseline: tokenizing the whole request text
// once with cl100k (no cache), measured in the same run.
// Run: node --import tsx bench/budget/run.ts

import { performance } from 'node:perf_hooks';
import { clearMergeCache as clearCl100k, countTokens as countCl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { clearMergeCache as clearO200k, countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base';
import { budgetRequest, createTokenCounter, nextCalibration, type TokenCounter } from '../../src/budget/index.ts';
import type { Calibration } from '../../src/shared/types.ts';
import { type ChatMessage, MODE_NAMES, type ModeName, type Plan } from '../../src/shared/types.ts';
import { code, conversation, deepContext, prose, seeded } from './generate.ts';

const plans = Object.fromEntries(
  await Promise.all(
    MODE_NAMES.map(async (mode) => [
      mode,
      (await import(`../../rules/modes/${mode}.json`, { with: { type: 'json' } })).default as Plan,
    ]),
  ),
) as Record<ModeName, Plan>;

interface Stats {
  median: number;
  min: number;
  max: number;
  p90: number;
}

function stats(samples: number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { median: at(0.5), min: sorted[0] ?? 0, max: sorted.at(-1) ?? 0, p90: at(0.9) };
}

function time(fn: () => void): number {
  const start = performance.now();
  fn();
  return performance.now() - start;
}

const fmt = (s: Stats) =>
  `median ${s.median.toFixed(2)} ms (min ${s.min.toFixed(2)}, p90 ${s.p90.toFixed(2)}, max ${s.max.toFixed(2)})`;

const setupCounter = createTokenCounter();
const messages = conversation(100_000, (m) => setupCounter.countMessages(m));
const items = deepContext();
const allText = [
  ...messages.map(
    (m) => (typeof m.content === 'string' ? m.content : '') + (m.tool_calls ? JSON.stringify(m.tool_calls) : ''),
  ),
  ...items.map((i) => i.text),
].join('\n');
const noSpecial = { disallowedSpecial: new Set<string>() };
console.log(
  `input: ${messages.length} messages, ${setupCounter.countMessages(messages)} tokens; ${items.length} deep items, ${items.reduce((n, i) => n + setupCounter.count(i.text), 0)} tokens; ${(allText.length / 1024).toFixed(0)} KiB of text`,
);

// Estimator choice: the same text through both encodings, interleaved, with the
// tokenizer's own merge cache cleared (first sight of a text) and kept (a
// long-running server).
function compareEncodings(clear: boolean): { cl: Stats; o2: Stats } {
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < 7; i++) {
    if (clear) clearCl100k();
    a.push(time(() => countCl100k(allText, noSpecial)));
    if (clear) clearO200k();
    b.push(time(() => countO200k(allText, noSpecial)));
  }
  return { cl: stats(a), o2: stats(b) };
}
const coldEncodings = compareEncodings(true);
const warmEncodings = compareEncodings(false);
for (const [label, { cl, o2 }] of [
  ['merge cache cleared', coldEncodings],
  ['merge cache warm   ', warmEncodings],
] as const) {
  console.log(
    `estimator, ${label}: cl100k ${fmt(cl)}; o200k ${fmt(o2)}; o200k/cl100k ${(o2.median / cl.median).toFixed(2)}x`,
  );
}

// Baseline: tokenizing everything once with the chosen estimator, no cache of ours.
const baseline = coldEncodings.cl;

function scenario(label: string, window: number): void {
  const run = (counter: TokenCounter) =>
    budgetRequest({ messages, items, requested: plans.deep, plans, window, counter });
  const cold = stats(
    Array.from({ length: 7 }, () => {
      clearCl100k();
      const fresh = createTokenCounter();
      return time(() => run(fresh));
    }),
  );
  const counter = createTokenCounter();
  const result = run(counter);
  const warm = stats(Array.from({ length: 40 }, () => time(() => run(counter))));
  console.log(`\n${label} (window ${window})`);
  console.log(
    `  result: mode ${result.modeUsed}${result.downgrade ? ` (from ${result.downgrade.from})` : ''}, ${result.droppedMessages} messages dropped, conversation ${result.report.conversationTokens} + context ${result.report.contextTokens} tokens, num_ctx ${result.numCtx}`,
  );
  console.log(`  cold (empty cache): ${fmt(cold)}`);
  console.log(`  warm (cached):      ${fmt(warm)}`);
  console.log(
    `  ratios: cold/warm ${(cold.median / warm.median).toFixed(1)}x, baseline/warm ${(baseline.median / warm.median).toFixed(1)}x, cold/baseline ${(cold.median / baseline.median).toFixed(2)}x; warm target < 20 ms: ${warm.median < 20 ? 'met' : 'MISSED'}`,
  );
}

scenario('everything fits, deep context trimmed to its caps', 262144);
scenario('history dropped and mode downgraded', 131072);

// The realistic warm path: each request is the next turn of the same
// conversation (two new messages, so the context's share shrinks and trimmed
// items are re-cut) and the calibration ratio moves after every answer.
function nextTurns(window: number, turns: number, start: ChatMessage[]): void {
  const random = seeded(99);
  const counter = createTokenCounter();
  let calibration: Calibration | undefined;
  let history = [...start];
  budgetRequest({ messages: history, items, requested: plans.deep, plans, window, counter });
  const samples: number[] = [];
  let last = '';
  for (let t = 0; t < turns; t++) {
    history = [
      ...history,
      { role: 'assistant', content: `${prose(random, 5)}\n\n\`\`\`ts\n${code(random, 1)}\`\`\`` },
      { role: 'user', content: prose(random, 3) },
    ];
    const ratio = calibration?.ratio ?? 1;
    let raw = 0;
    let summary = '';
    samples.push(
      time(() => {
        const result = budgetRequest({
          messages: history,
          items,
          requested: plans.deep,
          plans,
          window,
          counter: counter.withRatio(ratio),
        });
        raw = result.rawEstimatedPromptTokens;
        summary = `mode ${result.modeUsed}, context ${result.report.contextTokens} tokens, ${result.report.perEntry.reduce((n, e) => n + e.trimmed.length, 0)} items trimmed`;
      }),
    );
    last = summary;
    calibration = nextCalibration(calibration, raw, Math.round(raw * (1.1 + 0.03 * Math.sin(t))));
  }
  const next = stats(samples);
  console.log(
    `\nnext turns of a ${setupCounter.countMessages(start)}-token conversation, ratio recalibrated each turn (window ${window}, ${turns} turns)`,
  );
  console.log(`  last turn: ${last}`);
  console.log(`  per turn: ${fmt(next)}; baseline/turn ${(baseline.median / next.median).toFixed(1)}x`);
}

nextTurns(262144, 20, messages);
// A smaller window where what the conversation leaves binds the context: every turn re-cuts the items.
nextTurns(32768, 20, [messages[0] as ChatMessage, ...messages.slice(-12)]);
