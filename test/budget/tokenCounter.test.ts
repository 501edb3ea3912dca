import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTokenCounter, estimateCl100k, warmTokenizer } from '../../src/budget/index.ts';
import type { ChatMessage } from '../../src/shared/types.ts';
import { words } from './helpers.ts';

describe('createTokenCounter', () => {
  it('counts with cl100k by default, and counts special-token text as text', () => {
    const counter = createTokenCounter();
    assert.equal(counter.count(''), 0);
    assert.equal(counter.count('hello world'), 2);
    assert.ok(counter.count('<|endoftext|> is just text here') > 3);
  });

  it('applies the calibration ratio', () => {
    const counter = createTokenCounter({ estimate: words });
    assert.equal(counter.count('a b c d e f g h i j'), 10);
    assert.equal(counter.withRatio(1.25).count('a b c d e f g h i j'), 13);
    assert.equal(counter.withRatio(0.5).countMessages([{ role: 'user', content: 'a b c d e f' }]), 7); // (3 + 4 + 6) / 2
    assert.throws(() => counter.withRatio(0), RangeError);
  });

  it('counts the whole request: overhead, parts, names, tool calls and tool schemas', () => {
    const counter = createTokenCounter({ estimate: words });
    const messages: ChatMessage[] = [
      { role: 'system', content: 'be brief' }, // 4 + 2
      {
        role: 'user',
        name: 'ann',
        content: [
          { type: 'text', text: 'look at' },
          { type: 'image_url', image_url: 'x' },
        ],
      }, // 4 + 1 + 1 + 2 + 768
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read', arguments: '{"path": "a.ts"}' } }],
      }, // 4 + (4 + 1 + 2)
      { role: 'tool', content: 'file body', tool_call_id: 'c1' }, // 4 + 2
    ];
    assert.equal(counter.countMessages(messages), 3 + 6 + 776 + 11 + 6);
    const tools = [{ type: 'function' as const, function: { name: 'read', parameters: { type: 'object' } } }];
    assert.equal(counter.countMessages(messages, tools), 3 + 6 + 776 + 11 + 6 + 10 + words(JSON.stringify(tools)));
  });

  it('tokenizes an unchanged long text once, for every ratio', () => {
    let calls = 0;
    const counter = createTokenCounter({
      estimate: (text) => {
        calls++;
        return words(text);
      },
    });
    const long = 'word '.repeat(200);
    assert.equal(counter.count(long), 200);
    assert.equal(counter.withRatio(2).count(long), 400);
    assert.equal(counter.countMessages([{ role: 'user', content: long }]), 207);
    assert.equal(calls, 1);
    assert.deepEqual(counter.stats(), { hits: 2, misses: 1, entries: 1 });
  });

  it('is a bounded LRU', () => {
    let calls = 0;
    const counter = createTokenCounter({
      maxCacheEntries: 2,
      estimate: (text) => {
        calls++;
        return words(text);
      },
    });
    const texts = ['a ', 'b ', 'c '].map((w) => w.repeat(200));
    counter.count(texts[0]!);
    counter.count(texts[1]!);
    counter.count(texts[0]!); // hit: a is now the most recent
    counter.count(texts[2]!); // evicts b
    assert.equal(calls, 3);
    counter.count(texts[0]!);
    assert.equal(calls, 3, 'a survived');
    counter.count(texts[1]!);
    assert.equal(calls, 4, 'b was evicted');
    assert.equal(counter.stats().entries, 2);
  });
});

describe('warmTokenizer', () => {
  it('compiles ahead and changes no count (one-byte, two-byte, long runs)', () => {
    const texts = ['plain words here', 'naïve café … “quoted” 𝒳', `${'z'.repeat(300)} …`];
    const before = texts.map(estimateCl100k);
    warmTokenizer();
    assert.deepEqual(texts.map(estimateCl100k), before);
    assert.ok(before.every((n) => n > 0));
  });
});
