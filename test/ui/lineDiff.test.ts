import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { diffStats, foldUnchanged, lineDiff } from '../../src/ui/lineDiff.ts';

const side = (lines: ReturnType<typeof lineDiff>, keep: 'add' | 'remove') =>
  lines
    .filter((line) => line.op === 'same' || line.op === keep)
    .map((line) => line.text)
    .join('\n');

describe('lineDiff', () => {
  it('marks added and removed lines and keeps the common ones', () => {
    const lines = lineDiff('a\nb\nc\nd', 'a\nB\nc\nd\ne');
    assert.deepEqual(lines, [
      { op: 'same', text: 'a' },
      { op: 'remove', text: 'b' },
      { op: 'add', text: 'B' },
      { op: 'same', text: 'c' },
      { op: 'same', text: 'd' },
      { op: 'add', text: 'e' },
    ]);
    assert.deepEqual(diffStats(lines), { added: 2, removed: 1 });
  });

  it('treats empty text as no lines', () => {
    assert.deepEqual(lineDiff('', ''), []);
    assert.deepEqual(lineDiff('', 'x'), [{ op: 'add', text: 'x' }]);
  });

  it('rebuilds both sides from any diff, and finds no change between equal texts', () => {
    const text = fc.array(fc.constantFrom('a', 'b', 'c', 'd', ''), { maxLength: 30 }).map((lines) => lines.join('\n'));
    fc.assert(
      fc.property(text, text, (before, after) => {
        const lines = lineDiff(before, after);
        assert.equal(side(lines, 'remove'), before);
        assert.equal(side(lines, 'add'), after);
        assert.deepEqual(diffStats(lineDiff(before, before)), { added: 0, removed: 0 });
      }),
    );
  });

  it('folds long unchanged runs around the changes', () => {
    const before = Array.from({ length: 20 }, (_, i) => `line ${i}`).join('\n');
    const after = before.replace('line 10', 'line ten');
    const folded = foldUnchanged(lineDiff(before, after), 2);
    assert.deepEqual(folded[0], { op: 'skip', count: 8 });
    assert.deepEqual(folded.at(-1), { op: 'skip', count: 7 });
    assert.equal(folded.filter((line) => line.op === 'same').length, 4);
  });
});
