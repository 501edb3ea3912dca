import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { computeBudget, planWithDowngrade, smallestUsefulContext } from '../../src/budget/index.ts';
import type { ChatMessage } from '../../src/shared/types.ts';
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

/** A conversation that `countMessages` counts at exactly `tokens` (3 + 4 per message + one per word). */
function conversation(tokens: number, turns = 1): ChatMessage[] {
  const perTurn = Math.floor((tokens - 3) / turns) - 4;
  const messages: ChatMessage[] = Array.from({ length: turns }, (_, i) => ({
    role: i % 2 === 0 ? 'user' : 'assistant',
    content: Array(perTurn).fill(`t${i}`).join(' '),
  }));
  const rest = tokens - counter.countMessages(messages);
  const last = messages.at(-1) as ChatMessage;
  last.content = `${last.content} ${Array(rest).fill('x').join(' ')}`;
  assert.equal(counter.countMessages(messages), tokens);
  return messages;
}

describe('planWithDowngrade', () => {
  const base = { plans, items, window, usable, counter };

  it('keeps the requested mode when its smallest useful context fits', () => {
    const messages = conversation(100);
    const choice = planWithDowngrade({ ...base, requested: plans.deep, window: 32768, usable: 23552, messages });
    assert.deepEqual(choice, {
      plan: plans.deep,
      modeUsed: 'deep',
      conversation: { messages, droppedMessages: 0, tokens: 100 },
    });
  });

  it('rung 2: re-plans in quick mode and says why, with the numbers, keeping every turn', () => {
    const choice = planWithDowngrade({ ...base, requested: plans.deep, messages: conversation(100) });
    assert.equal(choice.modeUsed, 'quick');
    assert.equal(choice.plan, plans.quick);
    assert.equal(choice.downgradedFrom, 'deep');
    assert.equal(choice.conversation.droppedMessages, 0);
    assert.equal(
      choice.reason,
      "The conversation (~100 tokens) plus the smallest useful deep context (~5554 tokens) exceeds the 5120-token limit for this model's 8192-token window; re-planned in quick mode.",
    );
  });

  it('rung 3: drops the oldest turns to keep quick, never to keep a heavier mode', () => {
    // 4,000 tokens in 40 turns: git-aware needs 2,554 and quick 1,750, so the oldest turns go until
    // the conversation is within 5,120 − 1,750 = 3,370 tokens, and the mode is quick.
    const messages = conversation(4000, 40);
    const choice = planWithDowngrade({ ...base, requested: plans['git-aware'], messages });
    assert.equal(choice.modeUsed, 'quick');
    assert.equal(choice.downgradedFrom, 'git-aware');
    const { conversation: kept } = choice;
    assert.ok(kept.tokens <= 5120 - 1750, `conversation ${kept.tokens}`);
    assert.ok(kept.tokens > 5120 - 1750 - 110, 'no more turns than needed went');
    assert.equal(kept.messages.at(-1), messages.at(-1), 'the latest turn stays');
    assert.match(String(kept.messages[0]?.content), /^\[ctxproxy: \d+ earlier messages were left out/);
    assert.equal(
      choice.reason,
      `The conversation (~4000 tokens) plus the smallest useful git-aware context (~2554 tokens) exceeds the 5120-token limit for this model's 8192-token window; re-planned in quick mode and the ${kept.droppedMessages} oldest messages left out to keep its ~1750-token context.`,
    );
    assert.deepEqual(choice.droppedForContext, { quickTokens: 1750, limit: 5120 });
  });

  it('rung 3 in quick mode: the oldest turns go, and the mode stays', () => {
    const choice = planWithDowngrade({ ...base, requested: plans.quick, messages: conversation(4000, 40) });
    assert.equal(choice.modeUsed, 'quick');
    assert.equal(choice.downgradedFrom, undefined);
    assert.ok(choice.conversation.droppedMessages > 0);
    assert.match(
      choice.reason ?? '',
      /quick context \(~1750 tokens\).*; the \d+ oldest messages left out to keep it\.$/,
    );
  });

  it('rung 4: off only when the latest turn alone leaves no room for quick', () => {
    // One message of 4,000 tokens: nothing to drop, and 4,000 + 1,750 > 5,120.
    const choice = planWithDowngrade({ ...base, requested: plans['git-aware'], messages: conversation(4000) });
    assert.equal(choice.modeUsed, 'off');
    assert.equal(choice.downgradedFrom, 'git-aware');
    assert.equal(choice.conversation.tokens, 4000);
    assert.equal(
      choice.reason,
      "The conversation (~4000 tokens) plus the smallest useful git-aware context (~2554 tokens) exceeds the 5120-token limit for this model's 8192-token window, and even the latest turn with the smallest quick context (~1750 tokens) does not fit; sending no context (off).",
    );
    const fromQuick = planWithDowngrade({ ...base, requested: plans.quick, messages: conversation(4000) });
    assert.equal(fromQuick.modeUsed, 'off');
    assert.equal(fromQuick.downgradedFrom, 'quick');
  });

  it('with historyOverflow "error" no turn is dropped: off instead', () => {
    const choice = planWithDowngrade({
      ...base,
      requested: plans.deep,
      messages: conversation(4000, 40),
      overflow: 'error',
    });
    assert.equal(choice.modeUsed, 'off');
    assert.equal(choice.conversation.droppedMessages, 0);
    assert.match(choice.reason ?? '', /historyOverflow "error" keeps every turn; sending no context \(off\)\.$/);
  });

  it('counts the block overhead with the smallest context', () => {
    const messages = conversation(5120 - 1750);
    assert.equal(planWithDowngrade({ ...base, requested: plans.quick, messages }).modeUsed, 'quick');
    const framed = planWithDowngrade({ ...base, requested: plans.quick, messages, blockOverhead: 80 });
    assert.equal(framed.modeUsed, 'off', 'one message only: nothing to drop');
    assert.match(framed.reason ?? '', /smallest quick context \(~1830 tokens\)/);
  });

  it('uses 80% of the window as the limit when the usable budget is larger', () => {
    // A safety ratio of 1 and no reserve: usable 8192, so the 80% rule (6553) binds.
    const fits = planWithDowngrade({
      ...base,
      usable: 8192,
      requested: plans.quick,
      messages: conversation(6553 - 1750),
    });
    assert.equal(fits.modeUsed, 'quick');
    const over = planWithDowngrade({
      ...base,
      usable: 8192,
      requested: plans.quick,
      messages: conversation(6554 - 1750),
    });
    assert.equal(over.modeUsed, 'off');
    assert.match(over.reason ?? '', /6553-token limit/);
  });

  it('never downgrades off, and does not downgrade for sources that collected nothing', () => {
    const messages = conversation(5000);
    assert.deepEqual(planWithDowngrade({ ...base, requested: plans.off, messages }), {
      plan: plans.off,
      modeUsed: 'off',
      conversation: { messages, droppedMessages: 0, tokens: 5000 },
    });
    const choice = planWithDowngrade({ ...base, items: [], requested: plans.deep, messages });
    assert.equal(choice.modeUsed, 'deep');
  });
});
