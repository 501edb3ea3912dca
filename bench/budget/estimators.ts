// Is cl100k worth its memory? Two estimators, each with one calibration ratio (what ctxproxy learns
// from the model's prompt_eval_count), against a tokenizer standing in for the model's own: error
// per text and per request, and the memory each estimator holds.
// Run: node --import tsx bench/budget/estimators.ts

import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { countTokens as countCl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base';
import { countTokens as countGpt2 } from 'gpt-tokenizer/encoding/r50k_base';
import type { ChatMessage } from '../../src/shared/types.ts';
import { conversation, deepContext } from './generate.ts';

const noSpecial = { disallowedSpecial: new Set<string>() };

/** Characters per token: the cheapest estimator, no tables. */
const byChars = (text: string) => Math.ceil(text.length / 4);

/**
 * A one-pass scan by character class, no tables: a word piece per letter run (split at a
 * lower→upper case change, long runs cut every 8), digits in threes, each punctuation pair,
 * a token per line break run and per indentation run, one per character above U+2E7F.
 */
function byClass(text: string): number {
  let tokens = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 0xc0 && c < 0x2e80)) {
      let len = 0;
      let j = i;
      while (j < n) {
        const d = text.charCodeAt(j);
        const upper = d >= 65 && d <= 90;
        const letter = upper || (d >= 97 && d <= 122) || (d >= 0xc0 && d < 0x2e80);
        if (!letter) break;
        if (upper && len > 0 && j > i) {
          const prev = text.charCodeAt(j - 1);
          if (prev >= 97 && prev <= 122) {
            tokens += Math.ceil(len / 8);
            len = 0;
          }
        }
        len += d >= 0xc0 ? 2 : 1;
        j++;
      }
      tokens += Math.ceil(len / 8);
      i = j;
    } else if (c >= 48 && c <= 57) {
      let j = i;
      while (j < n && text.charCodeAt(j) >= 48 && text.charCodeAt(j) <= 57) j++;
      tokens += Math.ceil((j - i) / 3);
      i = j;
    } else if (c === 32) {
      let j = i;
      while (j < n && text.charCodeAt(j) === 32) j++;
      // One space joins the next word; a run of spaces is indentation.
      if (j - i > 1) tokens += 1;
      i = j;
    } else if (c === 10 || c === 13 || c === 9) {
      let j = i;
      while (j < n && (text.charCodeAt(j) === 10 || text.charCodeAt(j) === 13 || text.charCodeAt(j) === 9)) j++;
      tokens += 1;
      i = j;
    } else if (c >= 0x2e80) {
      tokens += 1;
      i++;
    } else {
      let j = i;
      while (j < n) {
        const d = text.charCodeAt(j);
        if ((d >= 48 && d <= 57) || (d >= 65 && d <= 90) || (d >= 97 && d <= 122) || d <= 32 || d >= 0xc0) break;
        j++;
      }
      tokens += Math.ceil((j - i) / 2);
      i = j;
    }
  }
  return tokens;
}

function textOf(message: ChatMessage): string {
  const parts: string[] = [];
  if (typeof message.content === 'string') parts.push(message.content);
  for (const call of message.tool_calls ?? []) parts.push(call.function.name, call.function.arguments);
  return parts.join('\n');
}

// The corpus: the budget benchmark's conversation and deep context, and this repository's own code.
const root = path.join(import.meta.dirname, '../..');
const code = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return code(full);
    return /\.(ts|tsx|json|md)$/.test(entry.name) ? [readFileSync(full, 'utf8')] : [];
  });
const kinds: Record<string, string[]> = {
  'conversation messages': conversation(100_000, (m) => m.reduce((t, x) => t + byChars(textOf(x)), 0)).map(textOf),
  'deep context items': deepContext().map((item) => item.text),
  'src/ and test/ files': [...code(path.join(root, 'src')), ...code(path.join(root, 'test'))],
  'README.md, bench READMEs': [
    readFileSync(path.join(root, 'README.md'), 'utf8'),
    ...code(path.join(root, 'bench')).filter((t) => t.startsWith('#')),
  ],
};

const estimators: Record<string, (text: string) => number> = {
  cl100k: (text) => countCl100k(text, noSpecial),
  'chars/4': byChars,
  'char classes': byClass,
};
const models: Record<string, (text: string) => number> = {
  'o200k (a large modern vocabulary)': (text) => countO200k(text, noSpecial),
  'r50k (a small GPT-2 vocabulary)': (text) => countGpt2(text, noSpecial),
};

const pct = (x: number) => `${(x * 100).toFixed(1)}%`.padStart(7);
function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

const all = Object.values(kinds)
  .flat()
  .filter((t) => t.length >= 64);
console.log(`corpus: ${all.length} texts, ${(all.reduce((s, t) => s + t.length, 0) / 1024).toFixed(0)} KiB`);
for (const [modelName, model] of Object.entries(models)) {
  console.log(`\nthe model's tokenizer: ${modelName}`);
  const truth = new Map(all.map((t) => [t, model(t)]));
  for (const [name, estimate] of Object.entries(estimators)) {
    const raw = new Map(all.map((t) => [t, estimate(t)]));
    // The converged calibration: one ratio over everything (what prompt_eval_count teaches it).
    const ratio = all.reduce((s, t) => s + (truth.get(t) ?? 0), 0) / all.reduce((s, t) => s + (raw.get(t) ?? 0), 0);
    const rows: string[] = [];
    for (const [kind, texts] of Object.entries(kinds)) {
      const usable = texts.filter((t) => t.length >= 64);
      const errors = usable.map((t) => ((raw.get(t) ?? 0) * ratio) / (truth.get(t) ?? 1) - 1).sort((a, b) => a - b);
      const whole = usable.reduce((s, t) => s + (raw.get(t) ?? 0), 0) * ratio;
      const wholeTruth = usable.reduce((s, t) => s + (truth.get(t) ?? 0), 0);
      rows.push(
        `    ${kind.padEnd(26)} per text: p5 ${pct(quantile(errors, 0.05))}  median ${pct(quantile(errors, 0.5))}  p95 ${pct(quantile(errors, 0.95))}   all of it together ${pct(whole / wholeTruth - 1)}`,
      );
    }
    console.log(`  ${name.padEnd(13)} calibration ratio ${ratio.toFixed(3)}`);
    for (const row of rows) console.log(row);
  }
}

// Memory: what loading the cl100k tables and counting once adds to a fresh Node process (the other
// two estimators hold no tables).
const probe = `
const used = () => { globalThis.gc(); const m = process.memoryUsage(); return [m.rss, m.heapUsed]; };
const [rss0, heap0] = used();
const { countTokens } = await import('gpt-tokenizer/encoding/cl100k_base');
countTokens('warm … up');
const [rss1, heap1] = used();
console.log(((rss1 - rss0) / 1048576).toFixed(1), ((heap1 - heap0) / 1048576).toFixed(1));`;
const measured = execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', probe], {
  cwd: root,
  encoding: 'utf8',
}).trim();
const [rssMb, heapMb] = measured.split(' ');
console.log(`
cl100k's tables, loaded and used once in a fresh process: +${rssMb} MB RSS, +${heapMb} MB heap`);
