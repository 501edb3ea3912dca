// The compact cl100k counter (src/budget/cl100k.ts) against gpt-tokenizer's
// countTokens, in the same process and rounds: characters per millisecond of
// each on code (this repository's src/), prose, a log and multilingual text
// with emoji, in pieces of 4,000 characters as the budget counts them; the
// order of the two alternates round by round. Both caches warm (gpt-tokenizer
// keeps up to 100,000 merged pieces, cl100k.ts 8,192) and both cold (a text
// never seen: gpt-tokenizer's merge cache cleared, ours outgrown).
// Run: node --import tsx bench/budget/cl100k.ts     (BENCH_ROUNDS, default 15)

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { clearMergeCache, countTokens } from 'gpt-tokenizer/encoding/cl100k_base';
import { countCl100k } from '../../src/budget/cl100k.ts';
import { log, prose, seeded } from './generate.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const root = fileURLToPath(new URL('../../', import.meta.url));
const noSpecial = { disallowedSpecial: new Set<string>() };

function pieces(text: string): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length; at += 4000) out.push(text.slice(at, at + 4000));
  return out;
}

function sourceText(folder: string): string {
  let text = '';
  for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && /\.tsx?$/.test(entry.name))
      text += readFileSync(path.join(entry.parentPath, entry.name), 'utf8');
  }
  return text;
}

const random = seeded(12);
const multilingual = Array.from(
  { length: 3000 },
  (_, i) =>
    [
      'Grüße aus Köln, ',
      'これは日本語の文です。',
      '中文文本，',
      'Привет, мир! ',
      'مرحبا بالعالم ',
      '😀👍🏽 ',
      'naïve café ',
      `#${i} `,
    ][i % 8],
).join('');
const corpora: Record<string, string[]> = {
  code: pieces(sourceText(path.join(root, 'src'))),
  prose: pieces(prose(random, 3000)),
  log: pieces(log(random, 4000)),
  multilingual: pieces(multilingual),
};

function timed(texts: string[], count: (text: string) => number): number {
  const start = performance.now();
  let sink = 0;
  for (const text of texts) sink += count(text);
  if (sink < 0) throw new Error('unreachable');
  return performance.now() - start;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const theirs = (text: string) => countTokens(text, noSpecial);
/** Outgrows cl100k.ts's cache of merged pieces, so the next round merges again. */
const flushOurs = () => countCl100k(Array.from({ length: 9000 }, (_, i) => `zq${i.toString(36)}xv`).join(' '));

process.stdout.write(`cl100k counting, ${ROUNDS} rounds, median ms per round (characters per ms)\n`);
for (const [name, texts] of Object.entries(corpora)) {
  const chars = texts.reduce((sum, text) => sum + text.length, 0);
  for (const cold of [false, true]) {
    const ours: number[] = [];
    const gpt: number[] = [];
    for (let round = 0; round < ROUNDS + 1; round++) {
      const pair = [
        () => {
          if (cold) flushOurs();
          return timed(texts, countCl100k);
        },
        () => {
          if (cold) clearMergeCache();
          return timed(texts, theirs);
        },
      ] as const;
      const [a, b] = round % 2 === 0 ? [pair[0](), pair[1]()] : [pair[1](), pair[0]()].reverse();
      // The first round warms both (JIT, caches).
      if (round === 0) continue;
      ours.push(a as number);
      gpt.push(b as number);
    }
    const o = median(ours);
    const g = median(gpt);
    process.stdout.write(
      `  ${`${name}, ${cold ? 'cold' : 'warm'}`.padEnd(20)} ${(chars / 1000).toFixed(0).padStart(5)}K chars` +
        `   cl100k.ts ${o.toFixed(1)} ms (${(chars / o).toFixed(0)}/ms)   gpt-tokenizer ${g.toFixed(1)} ms (${(chars / g).toFixed(0)}/ms)` +
        `   time ratio ${(o / g).toFixed(2)}\n`,
    );
  }
}
