// Relevance, not volume: with more candidates than budget, what the question
// names goes first (items, then the hunk or function inside them), changed
// code next, the rest last.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { budgetRequest, fitContext, questionTerms, trimItem } from '../../src/budget/index.ts';
import { termMatcher } from '../../src/budget/questionTerms.ts';
import { enclosingBlock } from '../../src/budget/relevance.ts';
import type { ChatMessage, Plan, Segment } from '../../src/shared/types.ts';
import { item, loadPlans, numberedLines, wordCounter } from './helpers.ts';

const counter = wordCounter();
const noFence = () => 0;
const plan = (entries: Plan['entries']): Plan => ({ mode: 'deep', description: 'test', entries });

describe('questionTerms', () => {
  it('reads identifiers, dotted names and paths, not plain words or URLs', () => {
    assert.deepEqual(questionTerms('Where is parseInvoice defined?'), { identifiers: ['parseInvoice'], paths: [] });
    assert.deepEqual(questionTerms('What does `OrderService.create` do in billing/rates.py?'), {
      identifiers: ['OrderService.create', 'OrderService', 'create'],
      paths: ['billing/rates.py', 'rates.py'],
    });
    assert.deepEqual(questionTerms('Why is max_retries 3? See src/app.ts:12.'), {
      identifiers: ['max_retries'],
      paths: ['src/app.ts', 'app.ts'],
    });
    assert.deepEqual(questionTerms('Which Python version does this need, e.g. per https://a.example/x/y?'), {
      identifiers: [],
      paths: [],
    });
  });

  it('matches identifiers as whole words and paths as substrings', () => {
    const matches = termMatcher(questionTerms('is parseInvoice in billing/rates.py used?'));
    assert.ok(matches('export function parseInvoice(text) {'));
    assert.ok(!matches('export function parseInvoices(text) {'));
    assert.ok(matches('diff --git a/src/billing/rates.py b/src/billing/rates.py'));
    assert.ok(!termMatcher(questionTerms('what did I change?'))('anything at all'));
  });
});

/** A TypeScript file: `count` filler functions, the one that matters in the middle. */
function sourceFile(count: number, special: string): string {
  const fn = (name: string) => [
    `export function ${name}(input) {`,
    '  const a = 1',
    '  const b = 2',
    '  return a',
    '}',
  ];
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push(...fn(i === Math.floor(count / 2) ? special : `helper${i}`), '');
  return out.join('\n');
}

describe('trimming by relevance', () => {
  it('finds the block a line belongs to by indentation', () => {
    const lines = sourceFile(3, 'parseInvoice').split('\n');
    // Line 8 is `  const b = 2` inside the second function (lines 6–10).
    assert.deepEqual(enclosingBlock(lines, 8), { start: 6, end: 10 });
    assert.deepEqual(enclosingBlock(lines, 6), { start: 6, end: 10 });
    const python = ['class Rates:', '    @staticmethod', '    def total(x):', '        return x', '', 'y = 1'];
    assert.deepEqual(enclosingBlock(python, 3), { start: 1, end: 3 });
  });

  it('keeps the function the question names, not only the head of the file', () => {
    const text = sourceFile(40, 'parseInvoice');
    const code = item('files.named.src/billing.ts', text, { kind: 'code' });
    const matches = termMatcher(questionTerms('what does parseInvoice return?'));
    const byRelevance = trimItem(code, 60, counter, matches).item?.text ?? '';
    assert.match(
      byRelevance,
      /export function parseInvoice\(input\) \{\n {2}const a = 1\n {2}const b = 2\n {2}return a\n\}/,
    );
    assert.match(byRelevance, /^export function helper0/, 'the head still fills what is left');
    const byPosition = trimItem(code, 60, counter).item?.text ?? '';
    assert.doesNotMatch(byPosition, /parseInvoice/, 'by position alone it is cut');
  });

  it('keeps the diff hunk the question names before earlier hunks', () => {
    const hunk = (n: number, line: string) => [`@@ -${n},2 +${n},2 @@`, ` ctx line ${n}`, `-old ${n}`, `+${line}`];
    const diff = [
      'diff --git a/a.ts b/a.ts',
      '--- a/a.ts',
      '+++ b/a.ts',
      ...hunk(1, 'one two three four five six'),
      ...hunk(20, 'seven eight nine ten eleven twelve'),
      ...hunk(40, 'const max_retries = 5'),
    ].join('\n');
    const segments: Segment[] = [
      { kind: 'header', start: 0, end: 2 },
      { kind: 'hunk', start: 3, end: 6 },
      { kind: 'hunk', start: 7, end: 10 },
      { kind: 'hunk', start: 11, end: 14 },
    ];
    const changed = item('git.diff.unstaged', diff, { kind: 'diff', segments });
    const matches = termMatcher(questionTerms('why did max_retries change?'));
    const text = trimItem(changed, 30, counter, matches).item?.text ?? '';
    assert.match(text, /\+const max_retries = 5/);
    assert.doesNotMatch(text, /seven eight/);
    const byPosition = trimItem(changed, 30, counter).item?.text ?? '';
    assert.doesNotMatch(byPosition, /max_retries/);
  });
});

describe('ranking by relevance', () => {
  const entries = plan([
    { items: 'files.named.', weight: 1, cap: 1000 },
    { items: 'files.changed.', weight: 1, cap: 1000 },
  ]);
  const files = [
    item('files.named.src/a.ts', numberedLines(60, 2, 'A'), { kind: 'code', priority: 3 }),
    item('files.named.src/b.ts', numberedLines(60, 2, 'B'), { kind: 'code', priority: 2 }),
    item('files.named.src/billing.ts', `${numberedLines(59, 2, 'C')}\nexport parseInvoice`, {
      kind: 'code',
      priority: 1,
    }),
  ];

  it('serves the item that names the question first, then the rest from what is left', () => {
    const terms = questionTerms('where is parseInvoice?');
    const result = fitContext({ plan: entries, items: files, available: 150, counter, itemOverhead: noFence, terms });
    const kept = new Map(result.items.map((i) => [i.key, i]));
    assert.equal(kept.get('files.named.src/billing.ts')?.truncated, undefined, 'the named item whole');
    assert.deepEqual(
      result.items.map((i) => i.key),
      ['files.named.src/a.ts', 'files.named.src/b.ts', 'files.named.src/billing.ts'].filter((key) => kept.has(key)),
      'the order in the block stays by priority',
    );
    // Without terms the three share the budget equally and the definition is cut.
    const plain = fitContext({ plan: entries, items: files, available: 150, counter, itemOverhead: noFence });
    const billing = plain.items.find((i) => i.key === 'files.named.src/billing.ts');
    assert.doesNotMatch(billing?.text ?? '', /parseInvoice/);
  });

  it('offers the unused budget first to the entry that cut a relevant item', () => {
    const twoEntries = plan([
      { items: 'tree.', weight: 1, cap: 1000 },
      { items: 'files.named.', weight: 1, cap: 1000 },
      { items: 'small.', weight: 2, cap: 10 },
    ]);
    const items = [
      item('tree.root', numberedLines(100, 2, 'T'), { kind: 'text' }),
      item('files.named.src/billing.ts', `${numberedLines(99, 2, 'C')}\nexport parseInvoice`, { kind: 'code' }),
      item('small.one', 'x'),
    ];
    const terms = questionTerms('where is parseInvoice?');
    const ranked = fitContext({ plan: twoEntries, items, available: 200, counter, itemOverhead: noFence, terms });
    const plain = fitContext({ plan: twoEntries, items, available: 200, counter, itemOverhead: noFence });
    const used = (r: typeof ranked, key: string) => r.report.find((e) => e.items === key)?.used ?? 0;
    assert.ok(used(ranked, 'files.named.') > used(plain, 'files.named.'), 'the named file gets the leftover');
    assert.ok(used(ranked, 'tree.') < used(plain, 'tree.'));
  });

  it('changes nothing when the question names nothing', () => {
    const terms = questionTerms('what did I change?');
    const a = fitContext({ plan: entries, items: files, available: 150, counter, terms });
    const b = fitContext({ plan: entries, items: files, available: 150, counter });
    assert.deepEqual(a, b);
  });

  it('budgetRequest reads the terms from the latest user message', () => {
    const plans = loadPlans();
    const messages: ChatMessage[] = [
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 'hi' },
      { role: 'user', content: 'where is parseInvoice?' },
    ];
    const big = (prefix: string) => numberedLines(2000, 2, prefix);
    const items = [
      item('files.named.src/a.ts', big('A'), { kind: 'code', priority: 2 }),
      item('files.named.src/billing.ts', `${big('C')}\nexport function parseInvoice() {\n  return 1\n}`, {
        kind: 'code',
        priority: 1,
      }),
    ];
    const result = budgetRequest({ messages, items, requested: plans.quick, plans, window: 8192, counter });
    const billing = result.items.find((i) => i.key === 'files.named.src/billing.ts');
    assert.match(billing?.text ?? '', /export function parseInvoice\(\) \{\n {2}return 1\n\}/);
  });
});
