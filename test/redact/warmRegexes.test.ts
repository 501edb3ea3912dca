import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createRedactor } from '../../src/redact/createRedactor.ts';
import { warmRegexes } from '../../src/redact/warmRegexes.ts';

describe('warming the rule regexes', () => {
  test('runs every regex and leaves each ready for a scan (lastIndex 0)', async () => {
    const seen: string[] = [];
    const regexes = [/a+/g, /b/y, /c/dy].map((regex) => {
      const exec = regex.exec.bind(regex);
      regex.exec = (subject: string) => {
        seen.push(`${regex.source}:${subject}`);
        return exec(subject);
      };
      regex.lastIndex = 5;
      return regex;
    });
    await warmRegexes(regexes);
    for (const regex of regexes) {
      assert.equal(regex.lastIndex, 0);
      // A one-byte and a two-byte subject each (V8 compiles them apart), twice (the second tiers up).
      assert.equal(seen.filter((s) => s.startsWith(`${regex.source}:`)).length, 4);
      assert.ok(seen.some((s) => s.startsWith(`${regex.source}:`) && /[^\x00-\xff]/.test(s)));
    }
  });

  test('a redactor warming in the background masks the same as a cold one, during and after', async () => {
    const text =
      'config: AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY and token ghp_0123456789abcdefghijABCDEFGHIJ012345';
    const cold = await createRedactor();
    const warm = await createRedactor({ warm: true });
    const expected = await cold.redact(text);
    assert.ok(expected.findings.length > 0);
    const during = await warm.redact(text);
    await warm.warmedUp;
    const after = await warm.redact(`${text} `);
    assert.deepEqual(during.findings, expected.findings);
    assert.deepEqual(after.findings, expected.findings);
  });
});
