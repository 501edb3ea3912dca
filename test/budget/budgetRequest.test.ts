import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { budgetRequest, createTokenCounter } from '../../src/budget/index.ts';
import { ContextLengthError } from '../../src/shared/errors.ts';
import type { ChatMessage, ContextItem } from '../../src/shared/types.ts';
import { item, loadPlans, numberedLines, wordCounter } from './helpers.ts';

const plans = loadPlans();
const counter = wordCounter();
const text = (n: number, word = 'w') => Array(n).fill(word).join(' ');
const turns = (count: number, wordsEach: number): ChatMessage[] =>
  Array.from({ length: count }, (_, i) => ({
    role: i % 2 === 0 ? 'user' : 'assistant',
    content: text(wordsEach, `t${i}`),
  }));

const deepItems: ContextItem[] = [
  item('instructions.project', numberedLines(800, 5), { kind: 'text' }),
  item('git.branch', 'main'),
  item('git.status', numberedLines(40, 3), { kind: 'text' }),
  item('files.named.src/a.ts', numberedLines(1500, 6), { kind: 'code' }),
  item('tree.root', numberedLines(1200, 2), { kind: 'tree' }),
  item('files.changed.src/b.ts', numberedLines(1200, 6), { kind: 'code' }),
  item('unwanted.thing', 'nobody asked'),
];

describe('budgetRequest', () => {
  it('downgrades a deep request with a long history on an 8,192 window, and says so', () => {
    // 3 + (4 + 2) + 15 × (4 + 190) = 2919 tokens; deep's smallest useful context is 5629, quick's 1755.
    const messages: ChatMessage[] = [{ role: 'system', content: 'be brief' }, ...turns(15, 190)];
    const result = budgetRequest({ messages, items: deepItems, requested: plans.deep, plans, window: 8192, counter });
    assert.equal(result.modeUsed, 'quick');
    assert.equal(result.plan, plans.quick);
    assert.equal(result.downgrade?.from, 'deep');
    assert.equal(result.downgrade?.to, 'quick');
    assert.match(
      result.downgrade?.reason ?? '',
      /The conversation \(~2919 tokens\) plus the smallest useful deep context/,
    );
    assert.ok(result.warnings.some((w) => w.startsWith('mode deep -> quick: The conversation (~2919 tokens)')));
    assert.equal(result.droppedMessages, 0);
    assert.equal(result.messages, messages);
    // Only quick entries survive, within what the conversation left.
    assert.ok(result.items.every((i) => /^(instructions\.|env\.|git\.branch|files\.named\.)/.test(i.key)));
    const { report } = result;
    assert.equal(report.window, 8192);
    assert.equal(report.usable, 5120);
    assert.equal(report.reserve, 1024);
    assert.equal(report.conversationTokens, 2919);
    assert.ok(report.conversationTokens + report.contextTokens <= report.usable);
    assert.equal(result.estimatedPromptTokens, report.conversationTokens + report.contextTokens);
    // The context uses what is left, to within a line of each trimmed item (5 and 6 words here).
    assert.ok(report.contextTokens > 5120 - 2919 - 11, `context ${report.contextTokens}`);
    assert.equal(result.numCtx, 8192);
    assert.equal(report.numCtx, 8192);
  });

  it('keeps deep mode when the window is large, trimming items to their caps', () => {
    const messages = turns(3, 50);
    const result = budgetRequest({ messages, items: deepItems, requested: plans.deep, plans, window: 131072, counter });
    assert.equal(result.modeUsed, 'deep');
    assert.equal(result.downgrade, undefined);
    const perEntry = new Map(result.report.perEntry.map((e) => [e.items, e]));
    assert.equal(perEntry.get('files.named.')?.budget, 8000);
    assert.ok((perEntry.get('files.named.')?.used ?? 0) <= 8000);
    assert.deepEqual(perEntry.get('files.named.')?.trimmed.length, 1);
    assert.ok(result.warnings.includes('3 context items trimmed or dropped to fit the budget'));
    assert.ok(!result.items.some((i) => i.key === 'unwanted.thing'));
    // Prompt ~25k tokens + 10% + 1024 reserve rounds up to 32768.
    assert.equal(result.numCtx, 32768);
  });

  it('drops the oldest turns with a marker to keep quick mode when the conversation alone does not fit', () => {
    const messages: ChatMessage[] = [{ role: 'system', content: 'be brief' }, ...turns(41, 190)];
    const result = budgetRequest({ messages, items: deepItems, requested: plans.deep, plans, window: 8192, counter });
    assert.ok(result.droppedMessages > 0);
    assert.match(
      String(result.messages[1]?.content),
      /^\[ctxproxy: \d+ earlier messages were left out to fit the model's 8192-token window\]$/,
    );
    assert.equal(result.messages.at(-1), messages.at(-1));
    // Before the ladder, such a conversation filled the budget and the mode fell to off.
    assert.equal(result.modeUsed, 'quick', "turns go to keep quick's essentials, not the context");
    assert.ok(result.items.some((i) => i.key === 'instructions.project'));
    assert.ok(result.items.some((i) => i.key === 'files.named.src/a.ts'));
    assert.ok(
      result.warnings.some((w) =>
        /^\d+ oldest messages dropped to keep quick mode's context \(~1835 tokens\) within the 5120-token limit of the 8192-token window$/.test(
          w,
        ),
      ),
      result.warnings.join('\n'),
    );
    assert.ok(result.report.conversationTokens <= 5120 - 1835);
    assert.ok(result.estimatedPromptTokens <= 5120);
  });

  it("answers with the numbers instead when historyOverflow is 'error'", () => {
    const messages = turns(41, 190);
    assert.throws(
      () =>
        budgetRequest({
          messages,
          items: [],
          requested: plans.quick,
          plans,
          window: 8192,
          counter,
          historyOverflow: 'error',
        }),
      (error: unknown) =>
        error instanceof ContextLengthError &&
        /needs ~\d+ tokens but the model's window allows 5120/.test(error.message),
    );
  });

  it('reports the raw estimate for calibration, and warnings fit in a header', () => {
    const calibrated = counter.withRatio(1.5);
    const result = budgetRequest({
      messages: turns(21, 190),
      items: deepItems,
      requested: plans.deep,
      plans,
      window: 8192,
      maxTokens: 9000,
      counter: calibrated,
    });
    assert.equal(result.rawEstimatedPromptTokens, Math.round(result.estimatedPromptTokens / 1.5));
    assert.ok(
      result.warnings.some((w) => /^max_tokens 9000 lowered to \d+: what the 8192-token context leaves/.test(w)),
    );
    for (const warning of result.warnings) assert.match(warning, /^[\x20-\x7e]+$/);
  });

  it('does not re-tokenize unchanged messages and items on the next request', () => {
    const long: number[] = [];
    const tracking = createTokenCounter({
      estimate: (t) => {
        if (t.length >= 256) long.push(t.length);
        return t.split(/\s+/).filter(Boolean).length;
      },
    });
    const input = {
      messages: turns(9, 190),
      items: deepItems,
      requested: plans.deep,
      plans,
      window: 32768,
      counter: tracking,
    };
    const first = budgetRequest(input);
    assert.ok(long.length > 0);
    long.length = 0;
    const second = budgetRequest(input);
    assert.deepEqual(long, [], 'every long text came from the cache');
    assert.ok(tracking.stats().hits > 0);
    assert.deepEqual(second.report, first.report);
    // Raw counts are cached whatever the ratio: a recalibrated request re-tokenizes only re-trimmed texts.
    const third = budgetRequest({ ...input, counter: tracking.withRatio(1.2) });
    assert.ok(third.report.conversationTokens > first.report.conversationTokens, 'the new ratio applies');
    assert.ok(
      !long.some((length) => input.messages.some((m) => m.content?.length === length)),
      'no message re-tokenized',
    );
  });

  it('never estimates a prompt above the budget or num_ctx below prompt + reserve (real tokenizer)', () => {
    const real = createTokenCounter();
    fc.assert(
      fc.property(
        fc.array(fc.lorem({ maxCount: 400 }), { minLength: 1, maxLength: 30 }),
        fc.constantFrom(4096, 8192, 16384, 40960),
        fc.constantFrom(...(['quick', 'git-aware', 'deep', 'debug'] as const)),
        (contents, window, mode) => {
          const messages: ChatMessage[] = contents.map((content, i) => ({
            role: i % 2 ? 'assistant' : 'user',
            content,
          }));
          try {
            const result = budgetRequest({
              messages,
              items: deepItems,
              requested: plans[mode],
              plans,
              window,
              counter: real,
            });
            const { report } = result;
            return (
              result.estimatedPromptTokens <= report.usable &&
              result.numCtx >= result.estimatedPromptTokens + report.reserve &&
              result.numCtx <= window &&
              real.countMessages(result.messages) === report.conversationTokens
            );
          } catch (error) {
            return error instanceof ContextLengthError;
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});
