import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { createTokenCounter, trimItem } from '../../src/budget/index.ts';
import type { Segment } from '../../src/shared/types.ts';
import { item, numberedLines, wordCounter, words } from './helpers.ts';

const counter = wordCounter();

describe('trimItem', () => {
  it('returns an item that fits unchanged', () => {
    const original = item('files.named.a', numberedLines(3), { kind: 'code' });
    const result = trimItem(original, 6, counter);
    assert.equal(result.item, original);
    assert.equal(result.trimmedLines, 0);
    assert.equal(result.tokens, 6);
  });

  it('keeps the head of code, with a marker line', () => {
    const result = trimItem(item('files.named.a', numberedLines(10), { kind: 'code' }), 10, counter);
    assert.equal(result.item?.text, 'L1 x\nL2 x\nL3 x\n… [7 lines trimmed]');
    assert.equal(result.item?.truncated, true);
    assert.equal(result.trimmedLines, 7);
    assert.equal(result.tokens, 10);
  });

  it('keeps the tail of a log', () => {
    const result = trimItem(item('tests.output', numberedLines(10), { kind: 'log' }), 10, counter);
    assert.equal(result.item?.text, '… [7 lines trimmed]\nL8 x\nL9 x\nL10 x');
  });

  it('keeps error lines of a log first, then its tail', () => {
    const lines = numberedLines(20, 2, 'ok').split('\n');
    lines[4] = 'Error: boom';
    const result = trimItem(item('tests.output', lines.join('\n'), { kind: 'log' }), 14, counter);
    assert.equal(result.item?.text, '… [4 lines trimmed]\nError: boom\n… [13 lines trimmed]\nok19 x\nok20 x');
    assert.equal(result.trimmedLines, 17);
    assert.equal(result.tokens, 14);
  });

  it('recognizes the error keywords', () => {
    for (const line of [
      'TypeError: x',
      'an exception',
      'tests failed',
      'panic: oops',
      'Traceback (most',
      'FAIL src/a',
      'fatal: no',
    ]) {
      const lines = numberedLines(12, 2, 'ok').split('\n');
      lines[2] = line;
      const result = trimItem(item('log.x', lines.join('\n'), { kind: 'log' }), 12, counter);
      assert.ok(result.item?.text.includes(line), `${line} kept`);
    }
    const lines = numberedLines(12, 2, 'ok').split('\n');
    lines[2] = 'fail soft';
    const result = trimItem(item('log.x', lines.join('\n'), { kind: 'log' }), 12, counter);
    assert.ok(!result.item?.text.includes('fail soft'), 'lower-case "fail" alone is no error keyword');
  });

  it('keeps error lines of text, then its head', () => {
    const lines = numberedLines(20).split('\n');
    lines[15] = 'fatal: broken';
    const result = trimItem(item('notes.a', lines.join('\n'), { kind: 'text' }), 12, counter);
    assert.equal(result.item?.text, 'L1 x\n… [14 lines trimmed]\nfatal: broken\n… [4 lines trimmed]');
  });

  it('does not treat error words in code as special', () => {
    const lines = numberedLines(20).split('\n');
    lines[15] = 'throw Error';
    const result = trimItem(item('files.named.a', lines.join('\n'), { kind: 'code' }), 10, counter);
    assert.equal(result.item?.text, 'L1 x\nL2 x\nL3 x\n… [17 lines trimmed]');
  });

  it('keeps the failing frame line of a stack-trace excerpt, its header, and the code around it', () => {
    // The stacktrace source's shape: a header line, then `  n | code` with `> n | code` on the failing line.
    const lines = ['node frame #1, handler at src/a.ts:15'];
    for (let n = 5; n <= 24; n++)
      lines.push(n === 15 ? '> 15 | boom' : n === 7 ? '   7 | throw Error' : `  ${n} | a${n}`);
    const segments: Segment[] = [
      { kind: 'header', start: 0, end: 0 },
      { kind: 'frame', start: 11, end: 11 },
    ];
    const excerpt = item('stacktrace.1', lines.join('\n'), { kind: 'code', source: 'stacktrace', segments });
    const result = trimItem(excerpt, 24, counter);
    // frame 4 + header 6 + two markers 8 = 18; then 14 and 16 (3 each) = 24; error words in code do not jump the queue.
    assert.equal(
      result.item?.text,
      [
        'node frame #1, handler at src/a.ts:15',
        '… [9 lines trimmed]',
        '  14 | a14',
        '> 15 | boom',
        '  16 | a16',
        '… [8 lines trimmed]',
      ].join('\n'),
    );
    assert.equal(result.tokens, 24);
  });

  it('keeps error lines of a stack-trace summary', () => {
    const lines = numberedLines(20).split('\n');
    lines[12] = 'TypeError: x is undefined';
    const summary = item('stacktrace.frames', lines.join('\n'), { kind: 'text', source: 'stacktrace' });
    assert.ok(trimItem(summary, 12, counter).item?.text.includes('TypeError: x is undefined'));
  });

  it('drops an item when not even one line and the marker fit', () => {
    const result = trimItem(item('files.named.a', 'one two three four five six\nseven', { kind: 'code' }), 4, counter);
    assert.equal(result.item, null);
    assert.equal(result.tokens, 0);
    assert.equal(result.trimmedLines, 2);
  });

  it("keeps a source's own truncation note", () => {
    const text = `${numberedLines(10)}\n… 90 more lines; run \`cat a\` to see all`;
    const result = trimItem(item('files.named.a', text, { kind: 'code' }), 20, counter);
    // note (9 words) + marker (4) + 3 head lines (6) = 19; a fourth line would make 21.
    assert.equal(result.item?.text, 'L1 x\nL2 x\nL3 x\n… [7 lines trimmed]\n… 90 more lines; run `cat a` to see all');
  });

  it('ignores a trailing newline', () => {
    const result = trimItem(item('files.named.a', `${numberedLines(10)}\n`, { kind: 'code' }), 6, counter);
    assert.equal(result.item?.text, 'L1 x\n… [9 lines trimmed]');
  });
});

const diff = [
  'diff --git a/a.ts b/a.ts', // 4 words
  'index 1..2 100644', // 3
  '--- a/a.ts', // 2
  '+++ b/a.ts', // 2
  '@@ -1,2 +1,2 @@', // 4
  '-old one', // 2
  '+new one', // 2
  '@@ -10,2 +10,2 @@', // 4
  '-old two two two two', // 5
  '+new two two two two', // 5
  'diff --git a/b.ts b/b.ts', // 4
  '--- a/b.ts', // 2
  '+++ b/b.ts', // 2
  '@@ -1 +1 @@', // 4
  '+added', // 1
].join('\n');

/** The files and hunks of `diff` above, as the git source sets them on its item. */
const diffSegments: Segment[] = [
  { kind: 'header', start: 0, end: 3 },
  { kind: 'hunk', start: 4, end: 6 },
  { kind: 'hunk', start: 7, end: 9 },
  { kind: 'header', start: 10, end: 12 },
  { kind: 'hunk', start: 13, end: 14 },
];

describe('trimItem on diffs', () => {
  it('keeps every file header and whole hunks only', () => {
    // headers 11 + 8 = 19; hunks 8, 14 and 5. Budget 19 + 8 + 5 + marker 4 = 36.
    const result = trimItem(item('git.diff.a', diff, { kind: 'diff', segments: diffSegments }), 36, counter);
    assert.equal(
      result.item?.text,
      [...diff.split('\n').slice(0, 7), '… [3 lines trimmed]', ...diff.split('\n').slice(10)].join('\n'),
    );
    assert.equal(result.trimmedLines, 3);
    assert.equal(result.tokens, 36);
  });

  it('never cuts a hunk in the middle', () => {
    for (let budget = 24; budget < words(diff); budget++) {
      const text =
        trimItem(item('git.diff.a', diff, { kind: 'diff', segments: diffSegments }), budget, counter).item?.text ?? '';
      const kept = text.split('\n');
      for (const [first, rest] of [
        ['@@ -1,2 +1,2 @@', ['-old one', '+new one']],
        ['@@ -10,2 +10,2 @@', ['-old two two two two', '+new two two two two']],
      ] as const) {
        for (const line of rest) assert.equal(kept.includes(line), kept.includes(first), `budget ${budget}: ${line}`);
      }
    }
  });

  it('keeps file headers even when no hunk fits', () => {
    const result = trimItem(item('git.diff.a', diff, { kind: 'diff', segments: diffSegments }), 30, counter);
    const text = result.item?.text ?? '';
    assert.ok(text.includes('diff --git a/a.ts b/a.ts') && text.includes('diff --git a/b.ts b/b.ts'));
    assert.ok(text.includes('+added'), 'the small last hunk still fits after the big ones were skipped');
  });
});

const tree = [
  'repo/',
  '├── src/',
  '│   ├── budget/',
  '│   │   ├── fit.ts',
  '│   │   └── trim.ts',
  '│   └── main.ts',
  '├── test/',
  '│   └── fit.test.ts',
  '└── package.json',
].join('\n');

describe('trimItem on trees', () => {
  const treeItem = item('tree.root', tree, { kind: 'tree' });

  it('collapses the deepest level first, with indented markers', () => {
    const whole = words(tree);
    const result = trimItem(treeItem, whole - 1, counter);
    assert.equal(
      result.item?.text,
      [
        'repo/',
        '├── src/',
        '│   ├── budget/',
        '│   │   ├── … [2 lines trimmed]',
        '│   └── main.ts',
        '├── test/',
        '│   └── fit.test.ts',
        '└── package.json',
      ].join('\n'),
    );
    assert.equal(result.trimmedLines, 2);
  });

  it('collapses further levels before cutting', () => {
    // Depth ≤ 1 keeps 7 words of lines plus two markers, priced at the widest prefix (7 words each): 21.
    const result = trimItem(treeItem, 21, counter);
    assert.equal(
      result.item?.text,
      [
        'repo/',
        '├── src/',
        '│   ├── … [4 lines trimmed]',
        '├── test/',
        '│   └── … [1 line trimmed]',
        '└── package.json',
      ].join('\n'),
    );
    assert.equal(result.trimmedLines, 5);
  });

  it('cuts the top level when even that does not fit', () => {
    const result = trimItem(treeItem, 9, counter);
    assert.equal(result.item?.text, 'repo/\n├── … [8 lines trimmed]');
    assert.equal(trimItem(treeItem, 7, counter).item, null);
  });
});

describe('trimItem with the real tokenizer', () => {
  const real = createTokenCounter();
  it('always returns a text within the budget, or drops the item', () => {
    const line = fc.oneof(
      fc.constantFrom(
        'Error: connection refused',
        '    at handler (src/a.ts:10:5)',
        '@@ -1,3 +1,4 @@',
        'diff --git a/x b/x',
      ),
      fc.string({ maxLength: 60 }),
      fc.lorem({ maxCount: 8 }),
    );
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 1, maxLength: 60 }),
        fc.constantFrom('code', 'text', 'log', 'diff', 'tree') as fc.Arbitrary<
          'code' | 'text' | 'log' | 'diff' | 'tree'
        >,
        fc.integer({ min: 0, max: 300 }),
        fc.constantFrom(0.7, 1, 1.35),
        (lines, kind, budget, ratio) => {
          const counter = real.withRatio(ratio);
          const result = trimItem(item('x.y', lines.join('\n'), { kind }), budget, counter);
          if (result.item === null) return true;
          return counter.count(result.item.text) <= budget && result.tokens <= budget;
        },
      ),
      { numRuns: 300 },
    );
  });
});
