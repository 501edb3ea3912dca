import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { contentHash, withText } from '../../src/shared/contentHash.ts';
import type { ContextItem } from '../../src/shared/types.ts';

describe('contentHash', () => {
  test('is the sha256 of the UTF-8 bytes, for multi-megabyte texts with pairs, lone surrogates and NULs', () => {
    for (const text of [`a${'😀'.repeat(1_500_000)}`, 'é'.repeat(2_500_000), `x\ud800y\0z`, '']) {
      assert.equal(contentHash(text), createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex'));
    }
  });

  test('an item given another text gets that text’s hash and loses the old text’s segments', () => {
    const item: ContextItem = {
      key: 'git.diff.unstaged',
      source: 'git',
      title: 'git diff',
      text: 'a\nb',
      priority: 1,
      kind: 'diff',
      hash: contentHash('a\nb'),
      segments: [{ kind: 'hunk', start: 0, end: 1 }],
    };
    const changed = withText(item, 'a');
    assert.equal(changed.hash, contentHash('a'));
    assert.equal(changed.segments, undefined);
  });
});
