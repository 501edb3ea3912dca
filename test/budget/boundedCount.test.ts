import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countTokens } from 'gpt-tokenizer/encoding/cl100k_base';
import { budgetRequest, createTokenCounter, EXACT_MAX_CHARS, isEstimatedCount } from '../../src/budget/index.ts';
import { loadPlans } from './helpers.ts';

const exact = (text: string) => countTokens(text, { disallowedSpecial: new Set<string>() });

describe('bounded token counts', () => {
  it('estimates 2 MB of one letter (quadratic for the tokenizer) and says it is an estimate', async () => {
    const text = 'x'.repeat(2 * 1024 * 1024);
    assert.ok(isEstimatedCount(text));
    const counter = await createTokenCounter().prepare([text]);
    const tokens = counter.count(text);
    // cl100k spends one token per 8 `x` in a long run: 262,144 exactly; the estimate may only err upwards, a little.
    assert.ok(tokens >= 262_144 && tokens < 262_144 * 1.1, `got ${tokens}`);
    assert.equal(counter.usedEstimate(), true);
  });

  it('counts a run just past the chunk length within 1 % and says so', () => {
    const text = `a sentence, then ${'q'.repeat(3000)} and the end`;
    const counter = createTokenCounter();
    const tokens = counter.count(text);
    const truth = exact(text);
    assert.ok(Math.abs(tokens - truth) <= truth * 0.01 + 2, `${tokens} vs ${truth}`);
    assert.equal(counter.usedEstimate(), true);
  });

  it('counts ordinary long text exactly when prepared (pieces cut at line breaks)', async () => {
    const text = Array.from({ length: 3000 }, (_, i) => `const value${i} = compute(${i}, "label ${i}");`).join('\n');
    assert.ok(text.length > EXACT_MAX_CHARS * 10);
    const counter = await createTokenCounter().prepare([text]);
    assert.equal(counter.count(text), exact(text));
    assert.equal(counter.usedEstimate(), false);
  });

  it('marks the budget report of a request with an unbroken paste as estimated', async () => {
    const paste = 'Z'.repeat(300_000);
    const messages = [{ role: 'user' as const, content: `what is this? ${paste}` }];
    const plans = loadPlans();
    const counter = await createTokenCounter().prepare([`what is this? ${paste}`]);
    const result = budgetRequest({
      messages,
      items: [],
      requested: plans.off,
      plans,
      window: 1_000_000,
      counter,
    });
    assert.equal(result.report.estimated, true);
    assert.ok(result.warnings.some((w) => w.includes('estimate')));
  });

  it('leaves a short ordinary request exact and unmarked', async () => {
    const messages = [{ role: 'user' as const, content: 'hello there, how are you?' }];
    const plans = loadPlans();
    const counter = await createTokenCounter().prepare(['hello there, how are you?']);
    const result = budgetRequest({ messages, items: [], requested: plans.off, plans, window: 8192, counter });
    assert.equal(result.report.estimated, undefined);
    assert.equal(counter.count('hello there, how are you?'), exact('hello there, how are you?'));
  });
});
