// The caches that hold request text share one budget (src/shared/textCaches.ts). Each one, built with
// its defaults as the server builds it, stays within its share however large its entries, forgets the
// least recently used first, and keeps the newest entry: a follow-up still finds its conversation, a
// resent message its redaction, a chain its previous response.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConversationCache, type ConversationState } from '../../src/pipeline/conversations.ts';
import { ResponseMemory } from '../../src/pipeline/responseMemory.ts';
import { ResultCache } from '../../src/redact/resultCache.ts';
import { TEXT_CACHE_BUDGET_BYTES, TEXT_CACHE_BYTES } from '../../src/shared/textCaches.ts';

const MB = 1024 * 1024;
/** A distinct text of `chars` characters. */
const text = (label: string, chars: number) => `${label}:`.padEnd(chars, 'x');

const state = (conversationId: string, contextBlock: string): ConversationState => ({
  conversationId,
  blockMode: 'git-aware',
  contextBlock,
  blockSources: [],
  blockOrigin: { turn: 1 },
  carriedKeys: [],
  known: new Map(),
  attachments: [],
  turns: 1,
});

describe('request-text caches share one budget', () => {
  test('the shares add up to the budget, and the budget leaves the server room under 150 MB', () => {
    const shares = Object.values(TEXT_CACHE_BYTES).reduce((sum, bytes) => sum + bytes, 0);
    assert.equal(shares, TEXT_CACHE_BUDGET_BYTES);
    assert.ok(TEXT_CACHE_BUDGET_BYTES <= 32 * MB);
  });

  test('redaction results: 1 MB entries past the share push the oldest out; one larger than the share is not kept', () => {
    const cache = new ResultCache();
    const keys = Array.from({ length: 3 * (TEXT_CACHE_BYTES.redactionResults / MB) }, (_, i) =>
      cache.key(`h${i}`, 'f'),
    );
    const first = keys[0] as string;
    for (const [i, key] of keys.entries()) {
      const body = text(key, MB);
      cache.set(key, { text: body, findings: [] }, body.length);
      // Read on every round: the first stays the most recently used and is never the one to go.
      if (i > 0) assert.ok(cache.get(first), `the entry read on every round is kept (round ${i})`);
    }
    const kept = keys.filter((key) => cache.get(key) !== undefined);
    assert.ok(kept.length * MB <= TEXT_CACHE_BYTES.redactionResults, `${kept.length} MB held`);
    assert.ok(cache.get(keys.at(-1) as string), 'the newest is kept');
    assert.equal(cache.get(keys[1] as string), undefined, 'the least recently used went first');

    const huge = text('huge', TEXT_CACHE_BYTES.redactionResults + 1);
    cache.set('huge', { text: huge, findings: [] }, huge.length);
    assert.equal(cache.get('huge'), undefined);
    assert.ok(cache.get(keys.at(-1) as string), 'refusing an oversized entry does not empty the cache');
  });

  test('conversations: states with 1 MB context blocks stay within the share, the newest still recognised', () => {
    const cache = new ConversationCache();
    const count = 3 * (TEXT_CACHE_BYTES.conversations / MB);
    for (let i = 0; i < count; i++) cache.set(`k${i}`, state(`c${i}`, text(`block ${i}`, MB)));
    const kept = Array.from({ length: count }, (_, i) => cache.get(`k${i}`)).filter(Boolean).length;
    assert.ok(kept >= 1 && kept * MB <= TEXT_CACHE_BYTES.conversations, `${kept} states of 1 MB held`);
    assert.equal(cache.get(`k${count - 1}`)?.conversationId, `c${count - 1}`);
    assert.equal(cache.get('k0'), undefined, 'the oldest went first');
    assert.equal(cache.blocks, kept, 'forgotten states release their blocks');

    cache.set('huge', state('huge', text('huge block', TEXT_CACHE_BYTES.conversations + 1)));
    assert.equal(cache.get('huge'), undefined);
    assert.equal(cache.get(`k${count - 1}`)?.conversationId, `c${count - 1}`);
  });

  test('remembered responses: 1 MB conversations stay within the share, the oldest forgotten first even when read', () => {
    const memory = new ResponseMemory();
    const scope = '/work/repo\u0000';
    const count = 3 * (TEXT_CACHE_BYTES.responses / MB);
    for (let i = 0; i < count; i++) {
      memory.remember(`resp_${i}`, { history: [{ role: 'user', content: text(`turn ${i}`, MB) }] }, [], scope);
      // Reading does not make a response younger: a chain's start is forgotten before its end.
      memory.response('resp_0', scope);
    }
    const kept = Array.from({ length: count }, (_, i) => memory.response(`resp_${i}`, scope)).filter(Boolean).length;
    assert.ok(kept >= 1 && kept * MB <= TEXT_CACHE_BYTES.responses, `${kept} responses of 1 MB held`);
    assert.equal(memory.response('resp_0', scope), undefined);
    assert.ok(memory.response(`resp_${count - 1}`, scope), 'the newest is kept: previous_response_id still works');

    memory.remember(
      'huge',
      { history: [{ role: 'user', content: text('huge', TEXT_CACHE_BYTES.responses) }] },
      [],
      scope,
    );
    assert.equal(memory.response('huge', scope), undefined);
    assert.ok(memory.response(`resp_${count - 1}`, scope));
  });
});
