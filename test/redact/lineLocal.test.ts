import assert from 'node:assert/strict';
import { test } from 'node:test';
import { staysOnOneLine } from '../../src/redact/lineLocal.ts';

test('staysOnOneLine: patterns that cannot match a line feed', () => {
  assert.equal(staysOnOneLine('token[ \\t]*=[ \\t]*"(?<v>[^"\\\\\\n]{1,100})"', 'dgi'), true);
  assert.equal(staysOnOneLine('(?<bare>[^\\s"\'`]{4,})', 'dg'), true);
  assert.equal(staysOnOneLine('key-.+', 'dg'), true);
  assert.equal(staysOnOneLine('^password=(?<v>\\S+)$', 'dgm'), true);
  // "line start or a character that may be the line feed" reads the same in a line window.
  assert.equal(staysOnOneLine('(?<=(?:^|[^A-Za-z0-9_])[A-Z_]{0,80})=\\S+', 'dg'), true);
});

test('staysOnOneLine: anything that may cross or see a line break keeps the wide window', () => {
  assert.equal(staysOnOneLine('key\\s*=\\s*\\S+', 'dg'), false);
  assert.equal(staysOnOneLine('key=[^"]+', 'dg'), false);
  assert.equal(staysOnOneLine('key=.+', 'dgs'), false);
  assert.equal(staysOnOneLine('key=\\r?\\nvalue', 'dg'), false);
  assert.equal(staysOnOneLine('key=[\\x00-\\x7f]+', 'dg'), false);
  assert.equal(staysOnOneLine('key=[^]+', 'dg'), false);
  assert.equal(staysOnOneLine('key=\\W+', 'dg'), false);
  // Without the m flag, ^ and $ mean the whole text's ends, which a window would move.
  assert.equal(staysOnOneLine('^password=\\S+', 'dg'), false);
  assert.equal(staysOnOneLine('(?:^|[a-z])=\\S+', 'dg'), false);
});
