import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { capHead } from '../../src/sources/cap.ts';

describe('capHead', () => {
  test('keeps whole lines that fit and counts the rest as split would', () => {
    assert.deepEqual(capHead('ab\ncd\nef', 6, 'git diff'), {
      text: 'ab\ncd\n… 1 more lines; run `git diff` to see all',
      truncated: true,
    });
    assert.deepEqual(capHead('ab\ncd\nef\n', 4, 'x').text, 'ab\n… 3 more lines; run `x` to see all');
    assert.deepEqual(capHead('abcdef\nx', 3, 'x').text, '\n… 2 more lines; run `x` to see all');
    assert.deepEqual(capHead('\n\nabc', 2, 'x').text, '\n\n… 1 more lines; run `x` to see all');
    assert.deepEqual(capHead('short', 10, 'x'), { text: 'short', truncated: false });
  });

  test('a diff of a million short lines and one long one', () => {
    const text = `+${'x'.repeat(100_000)}\n${'+a\n'.repeat(1_000_000)}`;
    assert.equal(capHead(text, 20_000, 'git diff').text, '\n… 1000002 more lines; run `git diff` to see all');
    const small = `${'+a\n'.repeat(1_000_000)}`;
    assert.equal(capHead(small, 9, 'd').text, '+a\n+a\n+a\n… 999998 more lines; run `d` to see all');
  });
});
