// Context once (pipeline/repeats.ts): what the client already sent, and what
// another item of the same file already holds, is left out before the budget;
// diffs and stack-frame excerpts are never a file's repeat.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { withoutRepeats } from '../../src/pipeline/repeats.ts';
import type { ContextItem } from '../../src/shared/types.ts';

const FILE = [
  'export function computeRate(amount, region) {',
  '  const table = { eu: 0.19 };',
  '  return amount * table[region];',
  '}',
];
const item = (key: string, text: string, extra: Partial<ContextItem> = {}): ContextItem => ({
  key,
  source: key.split('.')[0] as string,
  title: key,
  text,
  priority: 50,
  kind: 'code',
  ...extra,
});

describe('withoutRepeats', () => {
  test("an item the client's messages already carry is left out, with the reason", () => {
    const agents = item(
      'instructions.project.AGENTS.md',
      'Always run the linter before committing.\nPrefer small pull requests.',
    );
    const other = item('git.status', 'M src/app.ts (modified)');
    const system = `You are an agent.\n<agents>\nAlways run the linter before committing.\nPrefer small pull requests.\n</agents>`;
    const { items, repeats } = withoutRepeats([agents, other], [{ role: 'system', content: system }]);
    assert.deepEqual(
      items.map((i) => i.key),
      ['git.status'],
    );
    assert.deepEqual(repeats, [
      { key: agents.key, source: 'instructions', reason: "already in the client's messages" },
    ]);
  });

  test('a whole file leaves out the other items of that path, but not its diff or a stack frame', () => {
    const whole = item('files.named.src/rates.js', FILE.join('\n'), { path: 'src/rates.js', priority: 90 });
    const outline = item('symbols.outline.src/rates.js', 'L1-4 function computeRate', {
      path: 'src/rates.js',
      kind: 'text',
    });
    const region = item('retrieval.code.src/rates.js', `@@ 1 @@\n${FILE[0]}`, { path: 'src/rates.js', priority: 80 });
    const diff = item('git.diff.unstaged', '+  return amount', { path: 'src/rates.js', kind: 'diff' });
    const frame = item('stacktrace.1', `> 3 | ${FILE[2]}`, { path: 'src/rates.js' });
    const { items } = withoutRepeats([whole, outline, region, diff, frame], []);
    assert.deepEqual(
      items.map((i) => i.key),
      ['files.named.src/rates.js', 'git.diff.unstaged', 'stacktrace.1'],
    );
  });

  test('of a retrieval item, only the regions another item of the file holds are left out', () => {
    const def = item('symbols.def.src/rates.js#computeRate', FILE.join('\n'), {
      path: 'src/rates.js',
      priority: 85,
      truncated: true,
    });
    const regions = item(
      'retrieval.code.src/rates.js',
      `@@ 1 @@\n${FILE.join('\n')}\n@@ 40 @@\nconst euShare = computeRate(100, 'eu');`,
      { path: 'src/rates.js', priority: 70 },
    );
    const { items } = withoutRepeats([def, regions], []);
    assert.equal(items.length, 2);
    assert.equal(items[1]?.text, "@@ 40 @@\nconst euShare = computeRate(100, 'eu');");
  });
});
