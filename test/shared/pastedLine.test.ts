import assert from 'node:assert/strict';
import { test } from 'node:test';
import { historyOfPastedLines, pastedLines } from '../../src/shared/pastedLine.ts';
import { analyseText } from '../../src/shared/question.ts';

test('a pasted line is a backticked span with a space; a name or a path in backticks is not one', () => {
  assert.deepEqual(pastedLines('see `total = compute_rate(a, d)` and `compute_rate` in `src/rates.py`'), [
    'total = compute_rate(a, d)',
  ]);
});

test('only a history question is about its pasted lines', () => {
  const line = '`return value.split(",")  # see rfc/8288`';
  assert.deepEqual(historyOfPastedLines(analyseText(`Which commit introduced this line in src/links.py? ${line}`)), [
    'return value.split(",")  # see rfc/8288',
  ]);
  assert.deepEqual(historyOfPastedLines(analyseText(`What does this line in src/links.py do? ${line}`)), []);
});
