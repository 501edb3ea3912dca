import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import picomatch from 'picomatch';
import { DEFAULT_NEVER_READ_FILE } from '../../src/redact/createRedactor.ts';
import { loadNeverRead } from '../../src/redact/loadRules.ts';

// The never-read list matches globs without a slash against the path's last
// segment with one regex; its verdicts must stay picomatch's basename mode's.
test('the shipped never-read list judges paths exactly as picomatch does (basename mode for globs without a slash)', () => {
  const spec = JSON.parse(readFileSync(DEFAULT_NEVER_READ_FILE, 'utf8')) as {
    patterns: string[];
    exceptions: string[];
  };
  const matcher = (globs: string[]) => {
    const withSlash = picomatch(
      globs.filter((g) => g.includes('/')),
      { dot: true },
    );
    const basename = picomatch(
      globs.filter((g) => !g.includes('/')),
      { dot: true, basename: true },
    );
    return (p: string) => basename(p) || withSlash(p);
  };
  const blocked = matcher(spec.patterns);
  const allowed = matcher(spec.exceptions);
  const expected = (p: string) => blocked(p) && !allowed(p);
  const isNeverRead = loadNeverRead(DEFAULT_NEVER_READ_FILE);

  // Each glob, and names made from it: stars filled in or dropped, inside folders, with a trailing slash, extended.
  const paths = [...spec.patterns, ...spec.exceptions].flatMap((glob) => {
    const plain = glob.replace(/\*\*\//g, '').replace(/\{([^,}]+),[^}]*\}/g, '$1');
    return [
      glob,
      plain,
      plain.replace(/\*/g, 'x'),
      plain.replace(/\*/g, ''),
      `src/${plain.replace(/\*/g, 'y')}`,
      `a/b/${plain.replace(/\*/g, '')}/`,
      `${plain.replace(/\*/g, 'Z')}.pub`,
      `x/${plain.replace(/\*/g, 'q')}.bak`,
      plain.toUpperCase(),
    ];
  });
  paths.push('/', 'a//', '.env/', 'dir/.env/', 'secrets.json', 'x/secret.env', 'src/app.ts', 'README.md', 'a.env.b');
  let verdicts = 0;
  for (const p of paths) {
    if (p === '') continue;
    assert.equal(isNeverRead(p), expected(p), p);
    if (expected(p)) verdicts++;
  }
  assert.ok(verdicts > 100, `the paths exercise the list (${verdicts} never-read)`);
});
