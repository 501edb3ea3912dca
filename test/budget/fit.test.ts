import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chooseNumCtx, computeBudget, outputLimit } from '../../src/budget/index.ts';

describe('computeBudget', () => {
  it('is floor(window × safety ratio) minus the reply reserve, 1,024 by default', () => {
    assert.deepEqual(computeBudget({ window: 8192 }), { window: 8192, safetyRatio: 0.75, reserve: 1024, usable: 5120 });
    assert.equal(computeBudget({ window: 8192, maxTokens: 500 }).usable, 6144 - 500);
    assert.equal(computeBudget({ window: 8191, safetyRatio: 0.5 }).usable, 4095 - 1024);
    assert.equal(computeBudget({ window: 8192, maxTokens: null }).reserve, 1024);
  });

  it('takes no more than 1,024 tokens from the prompt for a large max_tokens: the ask is a ceiling', () => {
    for (const [window, maxTokens] of [
      [8192, 8192],
      [8192, 32000],
      [32768, 32768],
      [131072, 100000],
    ] as const) {
      const budget = computeBudget({ window, maxTokens });
      assert.equal(budget.reserve, 1024);
      assert.equal(budget.usable, Math.floor(window * 0.75) - 1024);
      assert.equal(budget.asked, maxTokens);
    }
    // A tiny window still keeps half of its safe share for the prompt.
    assert.equal(computeBudget({ window: 1000, maxTokens: 5000 }).reserve, 375);
  });

  it('rejects a nonsensical window or ratio', () => {
    assert.throws(() => computeBudget({ window: 0 }), RangeError);
    assert.throws(() => computeBudget({ window: 8192, safetyRatio: 1.5 }), RangeError);
  });
});

describe('chooseNumCtx', () => {
  it('rounds prompt + 10% + reserve up to a fixed size', () => {
    assert.equal(chooseNumCtx({ promptTokens: 100, reserve: 1024, modelMax: 131072 }), 2048);
    assert.equal(chooseNumCtx({ promptTokens: 930, reserve: 1024, modelMax: 131072 }), 2048); // 1023 + 1024 = 2047
    assert.equal(chooseNumCtx({ promptTokens: 932, reserve: 1024, modelMax: 131072 }), 4096);
    assert.equal(chooseNumCtx({ promptTokens: 5000, reserve: 1024, modelMax: 131072 }), 8192);
    assert.equal(chooseNumCtx({ promptTokens: 20000, reserve: 2000, modelMax: 131072 }), 32768);
    assert.equal(chooseNumCtx({ promptTokens: 3000, reserve: 1000, modelMax: 131072, headroom: 0 }), 4096);
  });

  it("never goes above the model's maximum", () => {
    assert.equal(chooseNumCtx({ promptTokens: 35000, reserve: 1024, modelMax: 40960 }), 40960);
    assert.equal(chooseNumCtx({ promptTokens: 100, reserve: 1024, modelMax: 1500 }), 1500);
  });

  it('is always at least prompt + reserve when the model allows it', () => {
    for (let prompt = 0; prompt < 200000; prompt += 997) {
      const numCtx = chooseNumCtx({ promptTokens: prompt, reserve: 1024, modelMax: 262144 });
      assert.ok(numCtx >= prompt + 1024 && numCtx <= 262144, `prompt ${prompt} -> ${numCtx}`);
    }
  });
});

describe('outputLimit', () => {
  it('is what num_ctx leaves after the prompt and its headroom, never more than asked', () => {
    assert.equal(outputLimit({ asked: undefined, promptTokens: 100, numCtx: 8192 }), undefined);
    assert.equal(outputLimit({ asked: 500, promptTokens: 1000, numCtx: 8192 }), 500);
    assert.equal(outputLimit({ asked: 32768, promptTokens: 15170, numCtx: 32768 }), 32768 - 16687);
    assert.equal(outputLimit({ asked: 32000, promptTokens: 4000, numCtx: 8192 }), 8192 - 4400);
    assert.equal(outputLimit({ asked: 10, promptTokens: 9000, numCtx: 8192 }), 1);
  });
});
