// The placeholder judgements that validators.ts reads character by character
// rather than with a regex per step (a default credential's tail, counting,
// word compounds, the shape and not-a-value pre-checks, outer quotes): the
// same answers the regex forms gave, on values that sit at each edge.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isPlaceholder } from '../../src/redact/validators.ts';

const cases: [string, boolean][] = [
  // A default credential with a short or counting tail: `1234` and up to five digits, else up to three.
  ['netapp123', true],
  ['C1sco12345', true],
  ['Cyberark1!', true],
  ['minioadmin12345', true],
  ['zabbix1234567!!', true],
  ['zabbix12341234', true],
  ['postgres?.#%', true],
  ['netapp1234567890', false],
  ['Jenkins2024!', false],
  // Counting, also interleaved with one repeated letter.
  ['123456abcdefg', true],
  ['a1a2a3a4', true],
  ['K1K2K3K4', true],
  ['b1b2b3b9', false],
  ['x9y8z7w6', false],
  // Words run together by separators, each a known word with up to four digits, or a number.
  ['zabbix-server', true],
  ['dell@force10', true],
  ['test-123456', true],
  ['-admin-', true],
  ['zabbix-Zq8vN3', false],
  // Shapes, quotes, flags and keys.
  ['<token>', true],
  // A long random value whose characters happen to make a bracket is a literal (a WordPress salt); a word in
  // the brackets, or a value opened or closed by one, is still a placeholder.
  ['8(t2h0#O+u(^6bOA~z&#wb)sxkP|vh{BJ?xHt<#>T-5m3YB(1a.EE<vp]y|bE&B6', false],
  ['r{m[#8x=l39Zy.z%4GV~<O<q7De>rURg]9rgRB5zW:XoTCV-Y2U5Rp,04W5?=b%i', false],
  ['Qm8#vL2x[]pT7&kW4!nZ9^rB3@yH6*cF1~jD5+gS0', false],
  ['xK9#mQ2$<redacted>pL7@nR4&wT1!zV8^bY3', true],
  ['Qm8#vL2x[secret]pT7&kW4!nZ9^rB3@yH6*cF1~jD5+gS0', true],
  ['<your-api-token-goes-here-replace-me>', true],
  ['aaaa', true],
  ['abcdef123', true],
  ['"changeme"', true],
  ["'Zq8vN3kX7pL2'", false],
  ['--extra-vars', true],
  ['token=', true],
  ['//cdn.example.com/x', true],
  ['spectacular-password', true],
  ['Zq8vN3kX7pL2', false],
];

test('placeholder judgements at the edges of each character-level check', () => {
  const wrong = cases.filter(([value, expected]) => isPlaceholder(value) !== expected);
  assert.deepEqual(wrong, []);
});
