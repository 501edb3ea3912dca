import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import {
  findState,
  historyKeys,
  historyKeysOffLoop,
  keyAfterReply,
  POOL_ABOVE_CHARS,
} from '../../src/pipeline/conversationPrefix.ts';
import { ConversationCache, type ConversationState } from '../../src/pipeline/conversations.ts';
import { CpuPool, defaultCpuWorkerUrl } from '../../src/shared/cpuPool.ts';
import type { ChatMessage } from '../../src/shared/types.ts';

const state = (conversationId: string): ConversationState => ({
  conversationId,
  blockMode: 'git-aware',
  contextBlock: 'BLOCK',
  blockSources: [],
  blockOrigin: { turn: 1 },
  carriedKeys: [],
  known: new Map(),
  attachments: [],
  turns: 1,
});
const user = (content: string): ChatMessage => ({ role: 'user', content });
const assistant = (content: string): ChatMessage => ({ role: 'assistant', content });

describe('conversation keys', () => {
  test('a key is the sha256 chain of the messages, for large texts and a surrogate pair at a MiB edge too', () => {
    // Quotes, breaks and control characters need escaping; the pair straddles where a sliced hasher would cut.
    const big = `${'a'.repeat((1 << 20) - 1)}😀"\\\n\u0001${'é'.repeat(1 << 20)}`;
    const messages: ChatMessage[] = [user(big), { role: 'user', content: [{ type: 'text', text: big }] }];
    const workspaceKey = createHash('sha256').update('ctxproxy-conversation\0').update('/w').digest('hex');
    const first = createHash('sha256')
      .update(workspaceKey)
      .update('\n')
      .update(JSON.stringify(['user', big, []]))
      .digest('hex');
    const second = createHash('sha256')
      .update(first)
      .update('\n')
      .update(JSON.stringify(['user', big, []]))
      .digest('hex');
    assert.deepEqual(historyKeys('/w', messages), [workspaceKey, first, second]);
  });

  test('a long history hashed in the CPU pool has the keys hashed inline', async () => {
    // Surrogate pairs, quotes, breaks and control characters: the worker's copy of the text must escape alike.
    const big = `${'a'.repeat((1 << 20) - 1)}😀"\\\n\u0001${'é'.repeat(1 << 20)}`;
    const messages: ChatMessage[] = [
      user(big),
      {
        role: 'assistant',
        content: big,
        tool_calls: [{ id: 'x', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
      },
      { role: 'user', content: [{ type: 'text', text: big }] },
      ...Array.from({ length: 5000 }, (_, i) => (i % 2 === 0 ? user(`q ${i}`) : assistant(`a ${i}`))),
    ];
    assert.ok(big.length * 3 > POOL_ABOVE_CHARS, 'above the pool threshold');
    const pool = new CpuPool({ workerUrl: defaultCpuWorkerUrl, idleMs: 60_000, size: 1 });
    try {
      assert.deepEqual(await historyKeysOffLoop('/w', messages, pool), historyKeys('/w', messages));
      assert.equal(pool.started, 1, 'hashed in the pool');
    } finally {
      pool.close();
    }
  });

  test('each key extends the previous one; the workspace is part of every key', () => {
    const a = historyKeys('/w', [user('hi'), assistant('yo'), user('next')]);
    const b = historyKeys('/w', [user('hi'), assistant('yo'), user('other')]);
    const elsewhere = historyKeys('/x', [user('hi')]);
    assert.equal(a.length, 4);
    assert.deepEqual(a.slice(0, 3), b.slice(0, 3));
    assert.notEqual(a[3], b[3]);
    assert.notEqual(elsewhere[1], a[1]);
  });

  test('the next turn finds the state by the reply it echoes, and only by it', () => {
    const cache = new ConversationCache();
    const turn1 = [user('hi')];
    cache.set(keyAfterReply(historyKeys('/w', turn1), { content: 'yo' }), state('c1'));
    const find = (messages: ChatMessage[]) => findState(cache, historyKeys('/w', messages), messages);
    assert.equal(find([user('hi'), assistant('yo'), user('next')])?.length, 2);
    assert.equal(find([user('hi'), assistant('yo!'), user('next')]), undefined, 'another reply is another history');
    assert.equal(find([user('hello'), assistant('yo'), user('next')]), undefined);
    assert.equal(find(turn1), undefined, 'a first turn never continues anything');
  });

  test('a turn without state claims its history: another chat reaching it is not continued', () => {
    const cache = new ConversationCache();
    cache.set('k', state('c1'));
    cache.set('k', undefined);
    assert.equal(cache.get('k'), undefined);
    cache.set('j', undefined);
    cache.set('j', state('c2'));
    assert.equal(cache.get('j'), undefined);
  });

  test('a key two conversations stored under holds neither', () => {
    const cache = new ConversationCache();
    cache.set('k', state('c1'));
    cache.set('k', state('c1'));
    assert.equal(cache.get('k')?.conversationId, 'c1', 'the same conversation may store again');
    cache.set('k', state('c2'));
    assert.equal(cache.get('k'), undefined);
    cache.set('k', state('c1'));
    assert.equal(cache.get('k'), undefined, 'once ambiguous, always');
  });

  test('the cache is bounded, least recently used out', () => {
    const cache = new ConversationCache(2);
    cache.set('a', state('a'));
    cache.set('b', state('b'));
    cache.get('a');
    cache.set('c', state('c'));
    assert.equal(cache.get('b'), undefined);
    assert.ok(cache.get('a') && cache.get('c'));
  });

  test('conversations that planned the same block hold one copy of it, released with the last of them', () => {
    const cache = new ConversationCache(3);
    // Built afresh per request, as the pipeline does: equal text, distinct strings.
    const block = (text: string) => ['<context>', text, '</context>'].join('\n');
    for (const id of ['a', 'b', 'c']) cache.set(id, { ...state(id), contextBlock: block('same repository') });
    assert.equal(cache.blocks, 1);
    assert.equal(cache.get('a')?.contextBlock, block('same repository'));
    cache.set('d', { ...state('d'), contextBlock: block('after an edit') });
    assert.equal(cache.blocks, 2);
    // 'a' went out (least recently used but for the get above: 'b'); the others still hold the first block.
    cache.set('e', { ...state('e'), contextBlock: block('after an edit') });
    cache.set('f', { ...state('f'), contextBlock: block('after an edit') });
    assert.equal(cache.blocks, 1, 'the first block is gone with the last state that held it');
    cache.set('f', state('other conversation'));
    assert.equal(cache.get('f'), undefined);
    assert.equal(cache.blocks, 1);
  });

  test('a state too large to keep holds no block', () => {
    const cache = new ConversationCache(10, 1_000);
    cache.set('big', { ...state('big'), contextBlock: 'x'.repeat(5_000) });
    assert.equal(cache.get('big'), undefined);
    assert.equal(cache.blocks, 0);
  });
});
