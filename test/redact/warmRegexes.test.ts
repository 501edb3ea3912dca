import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createRedactor, DEFAULT_RULES_DIR } from '../../src/redact/createRedactor.ts';
import { loadRedactionRules } from '../../src/redact/loadRules.ts';
import { createScanner } from '../../src/redact/scanner.ts';
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

describe('what the warm-up compiles', () => {
  test('one regex per rule, and every regex a scan searches with is among them', () => {
    const rules = loadRedactionRules(DEFAULT_RULES_DIR);
    const scanner = createScanner(rules);
    const warmed = new Set(scanner.searchRegexes);
    assert.equal(warmed.size, rules.length);
    const searched = new Set<RegExp>();
    for (const rule of rules) {
      for (const regex of [rule.regex, rule.sticky]) {
        const exec = regex.exec.bind(regex);
        regex.exec = (subject: string) => {
          searched.add(regex);
          return exec(subject);
        };
      }
    }
    const text = [
      'AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      'token ghp_0123456789abcdefghijABCDEFGHIJ012345',
      'password: "Tr0ub4dor&3xQ9"',
      'postgres://app:s3cr3tP4ssw0rdXy@db.internal:5432/app',
      '-----BEGIN RSA PRIVATE KEY-----',
      'MIIEowIBAAKCAQEAx7Yk2mQ9vL3pR8tW1zB6nC4sD0fG5hJ2kL7mN9pQ3rS6tV8w',
      '-----END RSA PRIVATE KEY-----',
    ].join('\n');
    const findings = scanner.scan(text, 'config/app.env', { check() {} }).findings;
    assert.ok(findings.length >= 3);
    assert.ok(searched.size > 0);
    for (const regex of searched) assert.ok(warmed.has(regex), `searched but not warmed: ${regex.source.slice(0, 60)}`);
  });
});
