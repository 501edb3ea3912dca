// Whether a repository is small for the symbols source (a request then waits for
// the running build and the map is ranked on the spot) counts parseable files
// only, and stops counting past the limit; the answer is the same either way.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isSmall } from '../../../src/sources/symbols/source.ts';

test('a listing is small while its parseable files are at most the limit, whatever else it lists', () => {
  const listing = { files: ['a.ts', 'README.md', 'docs/b.md', 'c.py', 'Makefile'] };
  assert.equal(isSmall(listing, 2), true, 'two parseable files of five: small at a limit of 2');
  assert.equal(isSmall(listing, 1), false, 'two parseable files: not small at a limit of 1');
  // The same listing asked with another limit is counted for that limit, not answered from the first.
  assert.equal(isSmall(listing, 3), true);
  const large = { files: [...listing.files, 'd.go', 'e.rs', 'f.java'] };
  assert.equal(isSmall(large, 2), false, 'five parseable files: not small at a limit of 2');
  assert.equal(isSmall(large, 5), true, 'five parseable files: small at a limit of 5');
});

test('no listing (the walk failed) counts as small, as before', () => {
  assert.equal(isSmall(undefined, 0), true);
});
