// The keyword pre-filter: which keywords occur, and where, for the rules
// that need positions. Keywords whose positions no rule needs are handled
// once per scan; every scan must still report them afresh.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KeywordIndex, type ScanPlan } from '../../src/redact/keywordIndex.ts';

/** A plan where keyword `token` lists its hit ends (window group 0) and `ghp_` its starts (start group 0). */
function indexAndPlan() {
  const index = new KeywordIndex(['token', 'ghp_', '-', 'pass']);
  const plan: ScanPlan = {
    windowGroups: [[0], undefined, undefined, undefined],
    windowGroupCount: 1,
    startGroups: [undefined, [0], undefined, undefined],
    startGroupCount: 1,
  };
  return { index, plan, id: (keyword: string) => index.idOf(keyword) };
}

test('finds keywords case-insensitively and lists the positions the plan asks for', () => {
  const { index, plan, id } = indexAndPlan();
  const text = 'TOKEN=ghp_abc\nx-y token ghp_def';
  const scan = index.scan(text, plan);
  assert.equal(scan.found[id('token')], 1);
  assert.equal(scan.found[id('-')], 1);
  assert.equal(scan.found[id('pass')], 0);
  assert.deepEqual(scan.ends[0], [5, 23]);
  assert.deepEqual(scan.starts[0], [6, 24]);
});

test('a keyword whose positions no rule needs is reported in every scan that holds it, and only there', () => {
  const { index, plan, id } = indexAndPlan();
  // Many hits of `-` in one scan, then a scan without it, then one with it again.
  assert.equal(index.scan('a-b-c-d-e-f', plan).found[id('-')], 1);
  assert.equal(index.scan('no dash here', plan).found[id('-')], 0);
  const again = index.scan('one - and a token', plan);
  assert.equal(again.found[id('-')], 1);
  assert.equal(again.found[id('token')], 1);
  assert.deepEqual(again.ends[0], [17]);
});

test('keywords that end at the same place as a quiet one keep their positions', () => {
  // `pass` ends where `ss` would: with `-` quiet, `pass` still lists (here as a start group).
  const index = new KeywordIndex(['pass', 'ss', '-']);
  const plan: ScanPlan = {
    windowGroups: [],
    windowGroupCount: 0,
    startGroups: [[0], undefined, undefined],
    startGroupCount: 1,
  };
  const scan = index.scan('-pass-pass-', plan);
  assert.deepEqual(scan.starts[0], [1, 6]);
  assert.equal(scan.found[index.idOf('ss')], 1);
  assert.equal(scan.found[index.idOf('-')], 1);
});
