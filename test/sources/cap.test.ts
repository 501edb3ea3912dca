import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { capHead, headLines, tailLines } from '../../src/sources/cap.ts';

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

describe('headLines and tailLines', () => {
  // What splitting into lines gives, the definition both keep to without building the array.
  const bySplit = {
    head(text: string, maxLines: number, hint: string) {
      const lines = text.split('\n');
      if (lines.length <= maxLines) return { text, truncated: false };
      const rest = lines.length - maxLines;
      return { text: `${lines.slice(0, maxLines).join('\n')}\n… ${rest} more lines (${hint})`, truncated: true };
    },
    tail(text: string, maxLines: number, hint: string) {
      const lines = text.split('\n');
      if (lines.length <= maxLines) return { text, truncated: false };
      const cut = lines.length - maxLines;
      return { text: `… ${cut} earlier lines (${hint})\n${lines.slice(cut).join('\n')}`, truncated: true };
    },
  };

  test('keep the lines and count the rest as splitting would, on every edge of lines', () => {
    const texts = [
      '',
      '\n',
      '\n\n\n',
      'one',
      'one\n',
      '\none',
      'a\nb\nc',
      'a\nb\nc\n',
      '\n\na\n\nb\n\n',
      'x\n'.repeat(50),
    ];
    for (const text of texts)
      for (const maxLines of [0, 1, 2, 3, 4, 10, 60]) {
        const label = `${JSON.stringify(text)} at ${maxLines}`;
        assert.deepEqual(headLines(text, maxLines, 'h'), bySplit.head(text, maxLines, 'h'), `head ${label}`);
        assert.deepEqual(tailLines(text, maxLines, 'h'), bySplit.tail(text, maxLines, 'h'), `tail ${label}`);
      }
  });

  test('a log of a million short lines keeps its last lines and says how many went', () => {
    const text = 'a\n'.repeat(1_000_000);
    const tail = tailLines(text, 3, 'see the file');
    assert.equal(tail.text, `… 999998 earlier lines (see the file)\na\na\n`);
    assert.equal(headLines(text, 2, 'h').text, 'a\na\n… 999999 more lines (h)');
  });
});
