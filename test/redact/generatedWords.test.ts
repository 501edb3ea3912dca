// Issue 26, ninth round: whether words after a secret's noun are a generated passphrase is a test of the
// value (validators.ts isGeneratedWords), not a pattern per example: random letters make consonant runs
// that English does not write, in two different words; a sentence's words do not.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isGeneratedWords } from '../../src/redact/validators.ts';
import { LOWER, pick, seededRng } from './secretGen.ts';

test('random lower-case words are generated; sentences, acronyms among words and one odd word are not', () => {
  for (const value of ['nzzh slzlmdk embkt eblpu frotf', 'hnwqm ucufl pdrjzbxb eayl', 'lbtm egofcs uwirhr voawiy']) {
    assert.ok(isGeneratedWords(value), value);
  }
  for (const value of [
    // English runs of consonants (ngth, ssw, xtr), in two different words or in one.
    'policy enables advanced password strength metering',
    'containing extra env vars',
    // An acronym of four consonants and a three-letter one: the run of three needs a word of four letters.
    'grpc server tls support',
    // One word with a long run is not enough: it has to be two different words.
    'mlflow nodes read here',
    'lets the service read',
  ]) {
    assert.ok(!isGeneratedWords(value), value);
  }
});

test('generated passphrases of four to six random words are recognised nineteen times in twenty', () => {
  const rng = seededRng(9);
  let found = 0;
  const n = 2000;
  for (let i = 0; i < n; i++) {
    const words = Array.from({ length: 4 + Math.floor(rng() * 3) }, () => pick(rng, LOWER, 4 + Math.floor(rng() * 5)));
    if (isGeneratedWords(words.join(' '))) found++;
  }
  // The rest are left to the rules of other contexts; the regex this replaced caught 0.949 of them.
  assert.ok(found / n >= 0.94, `${found} of ${n}`);
});
