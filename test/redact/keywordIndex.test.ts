// The keyword pre-filter: which keywords occur, and where the keywords of a
// plan's lists start. Every scan must report afresh (its result is reused).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KeywordIndex, type ScanPlan } from '../../src/redact/keywordIndex.ts';

/** A plan where `token` and `ghp_` list their hit starts (list 0 both, list 1 `ghp_` alone). */
function indexAndPlan() {
  const index = new KeywordIndex(['token', 'ghp_', '-', 'pass']);
  const plan: ScanPlan = { starts: [[0], [0, 1], undefined, undefined], listCount: 2 };
  return { index, plan, id: (keyword: string) => index.idOf(keyword) };
}

test('finds keywords case-insensitively and lists the starts the plan asks for', () => {
  const { index, plan, id } = indexAndPlan();
  const text = 'TOKEN=ghp_abc\nx-y token ghp_def é ghp_';
  const scan = index.scan(text, plan);
  assert.equal(scan.found[id('token')], 1);
  assert.equal(scan.found[id('-')], 1);
  assert.equal(scan.found[id('pass')], 0);
  assert.deepEqual(scan.starts[0], [0, 6, 18, 24, 34]);
  assert.deepEqual(scan.starts[1], [6, 24, 34]);
});

test('every scan reports afresh what its own text holds', () => {
  const { index, plan, id } = indexAndPlan();
  assert.equal(index.scan('a-b-c-d-e-f', plan).found[id('-')], 1);
  const none = index.scan('no dash here', plan);
  assert.equal(none.found[id('-')], 0);
  assert.equal(none.starts[0], undefined);
  const again = index.scan('one - and a token', plan);
  assert.equal(again.found[id('-')], 1);
  assert.equal(again.found[id('token')], 1);
  assert.deepEqual(again.starts[0], [12]);
});

test('a longer keyword that starts before a shorter one ending first is listed in start order', () => {
  // `password` and `word` end at the same place; `password` starts first.
  const index = new KeywordIndex(['password', 'word', 'ss']);
  const plan: ScanPlan = { starts: [[0], [0], undefined], listCount: 1 };
  const scan = index.scan('a password, a word', plan);
  assert.deepEqual(scan.starts[0], [2, 6, 14]);
  assert.equal(scan.found[index.idOf('ss')], 1);
});
