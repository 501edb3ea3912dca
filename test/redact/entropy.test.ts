// Shannon entropy in bits per character, the figure entropy-gated rules compare
// with their threshold. Checked against values worked out by hand and against
// properties any entropy has, not against a copy of the code.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { shannonEntropy } from '../../src/redact/validators.ts';

const close = (actual: number, expected: number) =>
  assert.ok(Math.abs(actual - expected) < 1e-12, `${actual} ≠ ${expected}`);

test('shannonEntropy gives the known values', () => {
  close(shannonEntropy(''), 0);
  close(shannonEntropy('aaaaaaaa'), 0);
  close(shannonEntropy('ab'), 1);
  close(shannonEntropy('aabb'), 1);
  close(shannonEntropy('abcd'), 2);
  close(shannonEntropy('abcdefgh'), 3);
  // p = 2/3, 1/3: -(2/3)log2(2/3) - (1/3)log2(1/3)
  close(shannonEntropy('aab'), 0.9182958340544896);
  // 0123456789abcdef: sixteen symbols once each
  close(shannonEntropy('0123456789abcdef'), 4);
  // Outside ASCII the same definition holds, character by character.
  close(shannonEntropy('éé'), 0);
  close(shannonEntropy('é€'), 1);
  close(shannonEntropy('aé'), 1);
});

test('shannonEntropy does not depend on order, is at most log2 of the distinct characters, and reaches it when all differ', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 60 }), fc.nat(), (s, seed) => {
      const chars = [...s];
      // A rotation by a seed-chosen amount: a different order, the same counts.
      const k = seed % chars.length;
      const rotated = [...chars.slice(k), ...chars.slice(0, k)].join('');
      const h = shannonEntropy(s);
      const distinct = new Set(chars).size;
      return Math.abs(h - shannonEntropy(rotated)) < 1e-9 && h >= 0 && h <= Math.log2(distinct) + 1e-9;
    }),
    { numRuns: 2000 },
  );
  fc.assert(
    fc.property(fc.uniqueArray(fc.integer({ min: 33, max: 126 }), { minLength: 1, maxLength: 90 }), (codes) => {
      const s = String.fromCharCode(...codes);
      return Math.abs(shannonEntropy(s) - Math.log2(codes.length)) < 1e-9;
    }),
    { numRuns: 500 },
  );
});

test('shannonEntropy gives the same value on repeated calls (its counting table is reset)', () => {
  const values = ['abcabc', 'zzzz', 'AKIAIOSFODNN7EXAMPLE', 'abcabc'];
  const first = values.map(shannonEntropy);
  assert.deepEqual(values.map(shannonEntropy), first);
  assert.equal(first[0], first[3]);
});
