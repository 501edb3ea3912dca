// The optimised scanner against a plain one over the same rules: every rule
// whose keyword occurs searches the whole text with its regex (no line
// windows, no match-start lists, no grouping). Both must mask the same spans
// on the planted corpus, the clean files, the hand-written samples and a fuzzed
// mix of their lines: an
// optimisation may only save time, never change a mask.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyMasks, mergeFindings } from '../../src/redact/applyMasks.ts';
import { DEFAULT_RULES_DIR } from '../../src/redact/createRedactor.ts';
import { loadRedactionRules } from '../../src/redact/loadRules.ts';
import { createScanner, OPTIMISATIONS, type Scanner } from '../../src/redact/scanner.ts';
import { loadClean, loadPlanted } from './corpus.ts';
import { samples } from './handWrittenSamples.ts';
import { seededRng } from './secretGen.ts';

const rules = loadRedactionRules(DEFAULT_RULES_DIR);
// Built as createRedactor builds it (the secretlint gate's anchors included, so the groups are the same).
const optimised = createScanner(rules);
// No rule is line-scoped and none has match starts: the keyword filter alone, then a whole-text search.
const plain = createScanner(rules, OPTIMISATIONS);
const noDeadline = { check() {} };
const generic = new Set(rules.filter((rule) => rule.generic).map((rule) => rule.id));
const rank = (id: string) => (generic.has(id) ? 1 : 0);

function masked(text: string, path: string | undefined, scanner: Scanner): string {
  const { findings } = scanner.scan(text, path, noDeadline);
  return applyMasks(text, mergeFindings(findings, rank), (id) => `[REDACTED:${id}]`);
}

/** The first line where the two outputs differ, for the message. */
function firstDifference(a: string, b: string): string {
  const la = a.split('\n');
  const lb = b.split('\n');
  const at = la.findIndex((line, i) => line !== lb[i]);
  return `line ${at + 1}: optimised ${JSON.stringify(la[at]?.slice(0, 120))}, plain ${JSON.stringify(lb[at]?.slice(0, 120))}`;
}

test('the optimised scanner masks exactly what a plain whole-text scan of the same rules masks', (t) => {
  const items: { name: string; path: string | undefined; text: string }[] = [];
  for (const seed of [1, 2]) {
    for (const file of loadPlanted(seededRng(seed))) items.push({ ...file, name: `planted ${file.name} #${seed}` });
    for (const sample of samples(seededRng(seed))) items.push({ ...sample, name: `sample ${sample.kind} #${seed}` });
  }
  for (const file of loadClean()) items.push({ name: `clean ${file.name}`, path: file.name, text: file.text });
  // Fuzzed: lines of all of them shuffled together, with blank lines, CRLF and diff prefixes, so that
  // keywords, values and line breaks meet in orders no file has.
  const lines = items.flatMap((item) => item.text.split('\n'));
  const rng = seededRng(99);
  const any = <T>(list: readonly T[]) => list[Math.floor(rng() * list.length)]!;
  for (let n = 0; n < 200; n++) {
    const picked = Array.from(
      { length: 3 + Math.floor(rng() * 20) },
      () => any(['', '+', '-  ', '  ', '# ']) + any(lines),
    );
    const text = picked.join(any(['\n', '\n\n', '\r\n', '\n \n']));
    items.push({ name: `fuzzed #${n}`, path: any([undefined, 'a.yml', '.env', 'app.ts', 'notes.md', 'x.conf']), text });
  }
  const differences: string[] = [];
  for (const item of items) {
    const fast = masked(item.text, item.path, optimised);
    const slow = masked(item.text, item.path, plain);
    if (fast !== slow) differences.push(`${item.name}: ${firstDifference(fast, slow)}`);
  }
  t.diagnostic(`${items.length} items, ${differences.length} with different masks`);
  assert.deepEqual(differences, []);
});
