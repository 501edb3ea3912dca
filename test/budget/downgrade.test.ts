import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { computeBudget, planWithDowngrade, smallestUsefulContext } from '../../src/budget/index.ts';
import { item, loadPlans, wordCounter } from './helpers.ts';

const counter = wordCounter();
const plans = loadPlans();
const big = Array(3000).fill('w').join(' ');
const items = [
  item('instructions.project', big, { priority: 2 }),
  item('instructions.user', 'short', { priority: 1 }),
  item('files.named.a', big),
  item('tree.root', big, { kind: 'tree' }),
  item('git.status', Array(50).fill('M').join(' ')),
  item('files.changed.a', big),
];
const window = 8192;
const { usable } = computeBudget({ window }); // 6144 − 1024 = 5120

describe('smallestUsefulContext', () => {
  it("takes each matched entry's best item, at most a quarter of the entry's cap", () => {
    // deep: instructions min(3004, 1500) + git.status 54 + files.named min(3004, 2000)
    //       + tree min(3004, 500) + files.changed min(3004, 1500); nothing for env, branch, log, stats.
    assert.equal(smallestUsefulContext(plans.deep, items, counter), 1500 + 54 + 2000 + 500 + 1500);
    // quick: instructions 750 + files.named 1000.
    assert.equal(smallestUsefulContext(plans.quick, items, counter), 1750);
    assert.equal(smallestUsefulContext(plans.off, items, counter), 0);
    assert.equal(smallestUsefulContext(plans.deep, [], counter), 0);
  });
});

describe('planWithDowngrade', () => {
  const base = { plans, items, window, usable, counter };

  it('keeps the requested mode when its smallest useful context fits', () => {
    const choice = planWithDowngrade({
      ...base,
      requested: plans.deep,
      window: 32768,
      usable: 23552,
      conversationTokens: 100,
    });
    assert.deepEqual(choice, { plan: plans.deep, modeUsed: 'deep' });
  });

  it('re-plans in quick mode and says why, with the numbers', () => {
    const choice = planWithDowngrade({ ...base, requested: plans.deep, conversationTokens: 100 });
    assert.equal(choice.modeUsed, 'quick');
    assert.equal(choice.plan, plans.quick);
    assert.equal(choice.downgradedFrom, 'deep');
    assert.equal(
      choice.reason,
      "The conversation (~100 tokens) plus the smallest useful deep context (~5554 tokens) exceeds the 5120-token limit for this model's 8192-token window; re-planned in quick mode.",
    );
  });

  it('goes to off when even quick does not fit', () => {
    const choice = planWithDowngrade({ ...base, requested: plans['git-aware'], conversationTokens: 4000 });
    assert.equal(choice.modeUsed, 'off');
    assert.equal(choice.downgradedFrom, 'git-aware');
    assert.equal(
      choice.reason,
      "The conversation (~4000 tokens) plus the smallest useful git-aware context (~2554 tokens) exceeds the 5120-token limit for this model's 8192-token window, and even the smallest quick context (~1750 tokens) does not fit; sending no context (off).",
    );
  });

  it('goes from quick straight to off', () => {
    const choice = planWithDowngrade({ ...base, requested: plans.quick, conversationTokens: 4000 });
    assert.equal(choice.modeUsed, 'off');
    assert.equal(choice.downgradedFrom, 'quick');
    assert.match(choice.reason ?? '', /smallest useful quick context \(~1750 tokens\).*sending no context \(off\)\.$/);
  });

  it('uses 80% of the window as the limit when the usable budget is larger', () => {
    // A safety ratio of 1 and no reserve: usable 8192, so the 80% rule (6553) binds.
    const fits = planWithDowngrade({ ...base, usable: 8192, requested: plans.quick, conversationTokens: 6553 - 1750 });
    assert.equal(fits.modeUsed, 'quick');
    const over = planWithDowngrade({ ...base, usable: 8192, requested: plans.quick, conversationTokens: 6554 - 1750 });
    assert.equal(over.modeUsed, 'off');
    assert.match(over.reason ?? '', /6553-token limit/);
  });

  it('never downgrades off, and does not downgrade for sources that collected nothing', () => {
    assert.deepEqual(planWithDowngrade({ ...base, requested: plans.off, conversationTokens: 99999 }), {
      plan: plans.off,
      modeUsed: 'off',
    });
    const choice = planWithDowngrade({ ...base, items: [], requested: plans.deep, conversationTokens: 5000 });
    assert.equal(choice.modeUsed, 'deep');
  });
});
