// The conversation-prefix logic is pure: any map can hold the states, and the
// next turn finds what this turn remembered, whether the client echoes the
// reply exactly or rewrites it.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findState, historyKeys, rememberTurn } from '../../src/pipeline/conversationPrefix.ts';
import type { ConversationState } from '../../src/pipeline/conversations.ts';
import type { ChatMessage } from '../../src/shared/types.ts';

const state: ConversationState = {
  conversationId: 'c1',
  blockMode: 'git-aware',
  contextBlock: 'BLOCK',
  blockSources: [],
  blockOrigin: { turn: 1 },
  carriedKeys: [],
  known: new Map(),
  attachments: [],
  turns: 1,
};

test('a plain Map is enough: the next turn is found by the echoed reply, or by the turn alone', () => {
  const store = new Map<string, ConversationState>();
  const turn1: ChatMessage[] = [{ role: 'user', content: 'hi' }];
  rememberTurn(store, historyKeys('/ws', turn1), { content: 'hello' }, state);
  assert.equal(store.size, 2);

  const echoed = [
    ...turn1,
    { role: 'assistant' as const, content: 'hello' },
    { role: 'user' as const, content: 'more' },
  ];
  assert.deepEqual(findState(store, historyKeys('/ws', echoed)), { state, length: 2 });
  const rewritten = [
    ...turn1,
    { role: 'assistant' as const, content: 'hello!' },
    { role: 'user' as const, content: 'more' },
  ];
  assert.deepEqual(findState(store, historyKeys('/ws', rewritten)), { state, length: 1 });
  // Another workspace is another conversation.
  assert.equal(findState(store, historyKeys('/other', echoed)), undefined);
});
