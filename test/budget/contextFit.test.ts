import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fitContext } from '../../src/budget/index.ts';
import type { Plan } from '../../src/shared/types.ts';
import { FENCE, item, loadPlans, numberedLines, wordCounter, words } from './helpers.ts';

const counter = wordCounter();
const noFence = () => 0;
const plan = (entries: Plan['entries']): Plan => ({ mode: 'deep', description: 'test', entries });

describe('fitContext', () => {
  it('splits by weight, caps each entry, and passes what an entry leaves to the next ones', () => {
    const result = fitContext({
      plan: plan([
        { items: 'a.', weight: 1, cap: 100 },
        { items: 'b.', weight: 1, cap: 100 },
      ]),
      items: [item('a.one', numberedLines(3)), item('b.one', numberedLines(50))],
      available: 40,
      counter,
      itemOverhead: noFence,
    });
    // Shares 20 / 20: a uses 6, so b is offered 34 and keeps 15 lines (30) + the marker (4).
    assert.deepEqual(result.report, [
      { items: 'a.', budget: 20, used: 6, trimmed: [] },
      { items: 'b.', budget: 34, used: 34, trimmed: ['b.one (35 lines trimmed)'] },
    ]);
    assert.equal(result.contextTokens, 40);
  });

  it('honours caps, and offers what is left at the end to entries that had to cut', () => {
    const result = fitContext({
      plan: plan([
        { items: 'a.', weight: 1, cap: 100 },
        { items: 'b.', weight: 1, cap: 100 },
        { items: 'c.', weight: 2, cap: 30 },
      ]),
      items: [item('a.one', numberedLines(50)), item('c.one', numberedLines(40))],
      available: 100,
      counter,
      itemOverhead: noFence,
    });
    // Pass 1: a gets 25 (uses 24), b none (passes 26 on), c is offered 76 but capped at 30.
    // Pass 2: the 46 left go back to a, which used 24: 24 + 46 = 70 → 33 lines + marker = 70.
    assert.deepEqual(result.report, [
      { items: 'a.', budget: 70, used: 70, trimmed: ['a.one (17 lines trimmed)'] },
      { items: 'b.', budget: 26, used: 0, trimmed: [] },
      { items: 'c.', budget: 30, used: 30, trimmed: ['c.one (27 lines trimmed)'] },
    ]);
    assert.equal(result.contextTokens, 100);
    assert.ok(result.report.every((entry, i) => entry.used <= [100, 100, 30][i]!));
  });

  it('drops items no entry asked for, and returns items in plan order', () => {
    const result = fitContext({
      plan: plan([
        { items: 'git.status', weight: 1, cap: 100 },
        { items: 'git.diff.', weight: 1, cap: 100 },
        { items: 'instructions.', weight: 1, cap: 100 },
      ]),
      items: [
        item('instructions.project', 'be nice'),
        item('git.diffstat', 'one file changed'),
        item('git.diff.a', 'diff a', { priority: 1 }),
        item('git.diff.b', 'diff b', { priority: 5 }),
        item('git.status', 'M a.ts'),
        item('git.statusbar', 'not me'),
      ],
      available: 300,
      counter,
    });
    assert.deepEqual(
      result.items.map((i) => i.key),
      ['git.status', 'git.diff.b', 'git.diff.a', 'instructions.project'],
    );
    assert.deepEqual(result.unmatched.sort(), ['git.diffstat', 'git.statusbar']);
    // Every item's fence is paid for: 4 items × 4 + their words.
    assert.equal(result.contextTokens, 4 * FENCE + 2 + 2 + 2 + 2);
  });

  it('keeps the higher-priority item when two claim the same key', () => {
    const result = fitContext({
      plan: plan([{ items: 'files.named.', weight: 1, cap: 100 }]),
      items: [item('files.named.a', 'old', { priority: 1 }), item('files.named.a', 'new', { priority: 2 })],
      available: 100,
      counter,
    });
    assert.deepEqual(
      result.items.map((i) => i.text),
      ['new'],
    );
  });

  it('shares an entry max-min fair: small items whole, large ones trimmed to equal shares', () => {
    const result = fitContext({
      plan: plan([{ items: 'files.', weight: 1, cap: 1000 }]),
      items: [
        item('files.big1', numberedLines(25), { priority: 3 }),
        item('files.small', numberedLines(5), { priority: 2 }),
        item('files.big2', numberedLines(25), { priority: 1 }),
      ],
      available: 80,
      counter,
      itemOverhead: noFence,
    });
    // small takes 10; the other 70 split 35 / 35: 15 lines + marker = 34 each.
    assert.deepEqual(
      result.items.map((i) => [i.key, words(i.text)]),
      [
        ['files.big1', 34],
        ['files.small', 10],
        ['files.big2', 34],
      ],
    );
  });

  it('drops the lowest-priority item first when shares get too thin', () => {
    const result = fitContext({
      plan: plan([{ items: 'files.', weight: 1, cap: 1000 }]),
      items: [
        item('files.low', numberedLines(40), { priority: 1 }),
        item('files.high', numberedLines(40), { priority: 9 }),
      ],
      available: 50,
      counter,
      itemOverhead: noFence,
    });
    // Two shares of 25 are below the 32-token minimum: the low-priority file goes, the other gets 50.
    assert.deepEqual(
      result.items.map((i) => i.key),
      ['files.high'],
    );
    assert.equal(result.contextTokens, 50);
    assert.deepEqual(result.report[0]?.trimmed, [
      'files.high (17 lines trimmed)',
      'files.low (dropped: needs ~80 tokens)',
    ]);
  });

  it('stays within the available tokens and every cap with the real deep plan', () => {
    const deep = loadPlans().deep;
    const items = deep.entries.flatMap((entry, i) => [
      item(`${entry.items.replace(/\.$/, '')}.x${i}`, numberedLines(900 + i * 50, 6), { kind: 'code' }),
      item(`${entry.items.replace(/\.$/, '')}.y${i}`, numberedLines(20, 3), { kind: 'log' }),
    ]);
    for (const available of [0, 500, 3000, 12000, 60000]) {
      const result = fitContext({ plan: deep, items, available, counter });
      assert.ok(result.contextTokens <= available, `${result.contextTokens} <= ${available}`);
      result.report.forEach((entry, i) => {
        assert.ok(entry.used <= deep.entries[i]!.cap, `${entry.items} under its cap`);
        assert.ok(entry.used <= entry.budget);
      });
    }
  });
});
