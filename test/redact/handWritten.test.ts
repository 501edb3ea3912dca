// Hand-written samples, in contexts the corpus templates do not use: the
// secret kinds of the issue and of common scanners, each in one realistic
// line or file (code, config, logs, shell, prose, diffs, JSON escapes), with
// fresh values per seed. None may survive redaction, whole or in part.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRedactor } from '../../src/redact/createRedactor.ts';
import { bodyLine, samples } from './handWrittenSamples.ts';
import { seededRng } from './secretGen.ts';

/** The secret, or a 12-character piece of a long one (start, middle, end), still in the output. */
function leftOver(output: string, secret: string): string | undefined {
  const pieces = secret.includes('-----BEGIN')
    ? [bodyLine(secret)]
    : secret.length >= 16
      ? [secret.slice(0, 12), secret.slice(-12), secret.slice(secret.length / 2 - 6, secret.length / 2 + 6)]
      : [secret];
  return pieces.find((piece) => output.includes(piece) || output.includes(piece.replaceAll('/', '\\/')));
}

test('166 hand-written samples of secrets in context, three seeds: none survives', async () => {
  const redactor = await createRedactor();
  const leaks: string[] = [];
  let count = 0;
  for (const seed of [1, 2, 3]) {
    for (const sample of samples(seededRng(seed))) {
      count++;
      const output = (await redactor.redact(sample.text, { path: sample.path })).text;
      const piece = leftOver(output, sample.secret);
      if (piece !== undefined)
        leaks.push(`seed ${seed} ${sample.kind} (${sample.path}): ${JSON.stringify(output.slice(0, 200))}`);
    }
  }
  assert.equal(count, 3 * 166);
  assert.deepEqual(leaks, []);
});
