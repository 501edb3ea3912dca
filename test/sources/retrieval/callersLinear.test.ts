// The uses rank (callers.ts) on hostile lines: its declaration check is
// linear in the line's length, so a line of 200,000 characters shaped to make
// a backtracking pattern go quadratic (a parameter list that never closes, a
// run of type-like words, a long tail before the `;`) is ranked in well under
// a second; the same check still tells a prototype from a call.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useRank } from '../../../src/sources/retrieval/callers.ts';

describe('the uses rank is linear in the line', () => {
  const rank = useRank(['format']);
  const n = 200_000;
  for (const [shape, line] of [
    ['a parameter list that never closes', `int format(${'a b '.repeat(n / 4)}`],
    ['type-like words before the name', `${'a '.repeat(n / 2)}format(x`],
    ['a tail that never ends in `;`', `int format(const char* f)${' x'.repeat(n / 2)}=`],
    ['spaces inside the parameters', `std::string format(a${' '.repeat(n)}`],
  ] as const) {
    test(`${shape} (${line.length} characters)`, () => {
      const started = performance.now();
      rank(line);
      // Generous for a loaded machine: the quadratic pattern took 150 ms at 12,800 characters, minutes here.
      assert.ok(performance.now() - started < 1_000, `${Math.round(performance.now() - started)} ms`);
    });
  }

  test('prototypes are still not uses; calls and mentions still are', () => {
    for (const line of [
      'std::string format(const char* f);',
      'FMT_API void format(void);',
      'int format();',
      'static inline int format(int a, char *b) const;',
    ]) {
      assert.equal(rank(line), 0, line);
    }
    assert.equal(rank('  auto s = format(x);'), 2);
    assert.equal(rank('  return format(a, b);'), 2);
    assert.equal(rank('  format(x);'), 2);
    assert.equal(rank('  int n = format(x) + 1;'), 2);
    assert.equal(rank('  Fn f = format;'), 1);
  });
});
