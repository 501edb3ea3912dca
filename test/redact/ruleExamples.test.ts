// Every rule on its own examples, through the real scanner with all rules
// loaded: each `secret` example is caught by its rule, each `keep` example is
// not. Rules without examples yet are counted, not failed (src/redact/README.md
// lists them); every example present must pass.

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createRedactor, DEFAULT_RULES_DIR, RuleLoadError } from '../../src/redact/createRedactor.ts';
import { loadRedactionRules } from '../../src/redact/loadRules.ts';

const root = mkdtempSync(join(tmpdir(), 'ctxproxy-examples-'));
after(() => rmSync(root, { recursive: true, force: true }));

test('every shipped rule catches its secret examples and leaves its keep examples alone', async (t) => {
  const rules = loadRedactionRules(DEFAULT_RULES_DIR);
  const full = rules.filter((r) => r.examples.secret.length >= 2 && r.examples.keep.length >= 2);
  const some = rules.filter((r) => r.examples.secret.length + r.examples.keep.length > 0);
  const none = rules.filter((r) => r.examples.secret.length + r.examples.keep.length === 0);
  const examples = rules.reduce((n, r) => n + r.examples.secret.length + r.examples.keep.length, 0);
  t.diagnostic(
    `${rules.length} rules: ${full.length} with at least 2 secret and 2 keep examples, ` +
      `${some.length} with some, ${none.length} with none; ${examples} examples`,
  );
  if (none.length > 0) t.diagnostic(`without examples: ${none.map((r) => r.id).join(', ')}`);
  try {
    await createRedactor({ checkExamples: true, secretlint: false });
  } catch (error) {
    assert.fail(`${(error as Error).message}`);
  }
});

function rulesDir(name: string, rules: unknown[]): string {
  const dir = join(root, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'a.json'), JSON.stringify({ rules }));
  return dir;
}

const demo = {
  id: 'demo-token',
  description: 'demo',
  pattern: 'demo_[a-z0-9]{16}',
  keywords: ['demo_'],
  validators: ['not-placeholder'],
};

test('an example its rule gets wrong fails the load, one line naming the file, the rule and the example', async () => {
  const dir = rulesDir('wrong', [
    {
      ...demo,
      examples: { secret: ['token demo_7f3kq9x2m4vz8w1p', 'token demo_short'], keep: ['demo_xxxxxxxxxxxxxxxx'] },
    },
  ]);
  // At start-up (no checkExamples) and in the tests alike: the rule's own pattern cannot catch it.
  for (const checkExamples of [false, true]) {
    await assert.rejects(createRedactor({ rulesDir: dir, checkExamples, secretlint: false }), (error: Error) => {
      assert.ok(error instanceof RuleLoadError);
      const lines = error.message.split('\n');
      assert.equal(lines.length, 1, error.message);
      assert.match(
        lines[0]!,
        /a\.json: rules\[0\] \(demo-token\)\.examples\.secret\[1\]: the rule's own pattern finds no value its validators accept: "token demo_short"/,
      );
      return true;
    });
  }
  // A secret example without any of the rule's keywords would never be scanned by it.
  const unkeyed = rulesDir('unkeyed', [
    { ...demo, keywords: ['demo-'], examples: { secret: ['demo_7f3kq9x2m4vz8w1p'] } },
  ]);
  await assert.rejects(
    createRedactor({ rulesDir: unkeyed, secretlint: false }),
    /a\.json: rules\[0\] \(demo-token\)\.examples\.secret\[0\]: holds none of the rule's keywords/,
  );
  // A keep example the rule masks fails the full check, which needs every rule (the tests run it).
  const leaky = rulesDir('leaky', [{ ...demo, examples: { keep: ['demo_7f3kq9x2m4vz8w1p'] } }]);
  await createRedactor({ rulesDir: leaky, secretlint: false });
  await assert.rejects(
    createRedactor({ rulesDir: leaky, checkExamples: true, secretlint: false }),
    /a\.json: rules\[0\] \(demo-token\)\.examples\.keep\[0\]: masked as \[REDACTED:demo-token\], must stay/,
  );
  // A rule whose examples are right loads with both checks.
  const good = rulesDir('good', [{ ...demo, examples: { secret: ['token demo_7f3kq9x2m4vz8w1p'] } }]);
  await createRedactor({ rulesDir: good, checkExamples: true, secretlint: false });
  await assert.rejects(
    createRedactor({ rulesDir: rulesDir('shape', [{ ...demo, examples: { secret: [42] } }]), secretlint: false }),
    /a\.json: \[rules\.0\.examples\.secret\.0\]/,
  );
});

test('an example with a path is scanned as that item, for rules limited to some paths', async () => {
  const scoped = { ...demo, paths: ['*.env'] };
  const good = rulesDir('scoped', [
    {
      ...scoped,
      examples: {
        secret: [{ text: 'demo_7f3kq9x2m4vz8w1p', path: 'prod.env' }],
        keep: [{ text: 'demo_7f3kq9x2m4vz8w1p', path: 'app.ts' }],
      },
    },
  ]);
  await createRedactor({ rulesDir: good, checkExamples: true, secretlint: false });
  const bad = rulesDir('scoped-bad', [{ ...scoped, examples: { secret: ['demo_7f3kq9x2m4vz8w1p'] } }]);
  await assert.rejects(createRedactor({ rulesDir: bad, checkExamples: true, secretlint: false }), /secret\[0\]/);
});

test('a keep example that stays only because another rule took the spot fails the check (issue 26 point 4)', async () => {
  const wide = { ...demo, id: 'wide-token', pattern: 'token demo_[a-z0-9]{16}', keywords: ['token demo_'] };
  const hidden = rulesDir('hidden', [
    wide,
    { ...demo, examples: { secret: ['demo_7f3kq9x2m4vz8w1p'], keep: ['token demo_7f3kq9x2m4vz8w1p'] } },
  ]);
  await assert.rejects(
    createRedactor({ rulesDir: hidden, checkExamples: true, secretlint: false }),
    /rules\[1\] \(demo-token\)\.examples\.keep\[0\]: masked as \[REDACTED:demo-token\] when the rule runs alone/,
  );
});
