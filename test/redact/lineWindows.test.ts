import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { lineWindows } from '../../src/redact/lineWindows.ts';

describe('lineWindows', () => {
  const filler = 'short line\n'.repeat(1000);
  const long = 'Q'.repeat(5000);

  test('a hit far into a long line: the window is that whole line', () => {
    const text = `${filler}${long}\n${filler}`;
    const lineStart = filler.length;
    const hit = lineStart + 4000;
    assert.deepEqual(lineWindows(text, [hit], true), [{ start: lineStart, end: lineStart + long.length }]);
    assert.deepEqual(lineWindows(text, [hit], false), [
      { start: lineStart - 'short line\n'.length, end: lineStart + long.length + 'short line'.length + 1 },
    ]);
  });

  test('a long first line, hits near and far from its start', () => {
    const text = `${long}\n${filler}${filler}`;
    for (const hit of [3, 255, 256, 257, 258, 4999])
      assert.deepEqual(lineWindows(text, [hit], true), [{ start: 0, end: 5000 }]);
  });

  test('a text without line breaks is one window: the whole text', () => {
    assert.equal(lineWindows('b'.repeat(10_000), [100, 9000], true), undefined);
  });
});
