// The conversation-prefix logic is pure: any map can hold the states, and the
// next turn finds what this turn remembered when it echoes the reply exactly,
// and nothing else does.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { earlierLength, findState, historyKeys, rememberTurn } from '../../src/pipeline/conversationPrefix.ts';
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

const find = (store: Map<string, ConversationState>, workspace: string, messages: ChatMessage[]) =>
  findState(store, historyKeys(workspace, messages), messages);

test('a plain Map is enough: the next turn is found by the reply it echoes, and only by it', () => {
  const store = new Map<string, ConversationState>();
  const turn1: ChatMessage[] = [{ role: 'user', content: 'hi' }];
  rememberTurn(store, historyKeys('/ws', turn1), { content: 'hello' }, state);
  assert.equal(store.size, 1);

  const echoed = [
    ...turn1,
    { role: 'assistant' as const, content: 'hello' },
    { role: 'user' as const, content: 'more' },
  ];
  assert.deepEqual(find(store, '/ws', echoed), { state, length: 2 });
  // Another reply is another history: another chat that opened alike, or one that rewrote what it was told.
  const rewritten = [
    ...turn1,
    { role: 'assistant' as const, content: 'hello!' },
    { role: 'user' as const, content: 'more' },
  ];
  assert.equal(find(store, '/ws', rewritten), undefined);
  // A first turn that begins with turn 1's messages is not its continuation.
  assert.equal(find(store, '/ws', [...turn1, { role: 'user', content: 'and more' }]), undefined);
  // Another workspace is another conversation.
  assert.equal(find(store, '/other', echoed), undefined);
});

test('earlier messages end at the last reply; a prefill at the end is part of the turn', () => {
  const u = (content: string): ChatMessage => ({ role: 'user', content });
  const a = (content: string): ChatMessage => ({ role: 'assistant', content });
  assert.equal(earlierLength([u('q')]), 0);
  assert.equal(earlierLength([{ role: 'system', content: 's' }, u('q'), u('q2')]), 0);
  assert.equal(earlierLength([u('q'), a('r'), u('q2')]), 2);
  assert.equal(earlierLength([u('q'), a('r'), { role: 'tool', content: 'x' }]), 2);
  assert.equal(earlierLength([u('q'), a('r'), u('q2'), a('prefill')]), 2);
  assert.equal(earlierLength([u('q'), a('prefill')]), 0);
});
