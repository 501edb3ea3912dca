import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { shannonEntropy } from '../../src/redact/validators.ts';

/** The straightforward definition; the validator's ASCII fast path must give the very same number. */
function referenceEntropy(value: string): number {
  if (value.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const ch of value) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / value.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

test('shannonEntropy equals the reference bit for bit, ASCII and not', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary-ascii', maxLength: 80 }), (s) => shannonEntropy(s) === referenceEntropy(s)),
    { numRuns: 3000 },
  );
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), (s) => shannonEntropy(s) === referenceEntropy(s)),
    { numRuns: 1000 },
  );
  assert.equal(shannonEntropy('aabb'), 1);
});
