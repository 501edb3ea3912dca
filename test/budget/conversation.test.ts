import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { droppedMessagesMarker, fitConversation } from '../../src/budget/index.ts';
import { ContextLengthError } from '../../src/shared/errors.ts';
import type { ChatMessage } from '../../src/shared/types.ts';
import { wordCounter, words } from './helpers.ts';

const counter = wordCounter();
const text = (n: number, word = 'w') => Array(n).fill(word).join(' ');
const msg = (role: ChatMessage['role'], n: number, word = 'w'): ChatMessage => ({ role, content: text(n, word) });

// With the word counter: 3 for the reply priming, 4 per message, plus its words.
const system = msg('system', 5, 's'); // 9
const history = [
  msg('user', 10, 'u1'),
  msg('assistant', 10, 'a1'),
  msg('user', 10, 'u2'),
  msg('assistant', 10, 'a2'),
  msg('user', 10, 'u3'),
  msg('assistant', 10, 'a3'),
]; // 14 each
const latest = msg('user', 10, 'now'); // 14
const conversation = [system, ...history, latest]; // 3 + 9 + 7 × 14 = 110

describe('fitConversation', () => {
  it('counts the conversation and returns it unchanged when it fits', () => {
    const result = fitConversation({ messages: conversation, usable: 110, counter, overflow: 'error' });
    assert.equal(result.messages, conversation);
    assert.equal(result.tokens, 110);
    assert.equal(result.droppedMessages, 0);
  });

  it('drops the oldest turns and puts one marker where they were', () => {
    const result = fitConversation({
      messages: conversation,
      usable: 80,
      counter,
      overflow: 'drop-oldest',
      window: 8192,
    });
    const marker = "[ctxproxy: 4 earlier messages were left out to fit the model's 8192-token window]";
    assert.equal(words(marker), 13);
    assert.deepEqual(result.messages, [system, { role: 'system', content: marker }, ...history.slice(4), latest]);
    assert.equal(result.droppedMessages, 4);
    // 110 − 4 × 14 + (13 + 4) for the marker.
    assert.equal(result.tokens, 71);
  });

  it('keeps system messages wherever they are, and the latest turn with its tool loop', () => {
    const midSystem = msg('system', 3, 'rule');
    const call: ChatMessage = {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c9', type: 'function', function: { name: 'read', arguments: '{"p":1}' } }],
    };
    const toolResult: ChatMessage = { role: 'tool', content: text(5, 'r'), tool_call_id: 'c9' };
    const messages = [system, history[0]!, midSystem, history[1]!, history[3]!, latest, call, toolResult];
    const result = fitConversation({ messages, usable: 68, counter, overflow: 'drop-oldest' });
    assert.deepEqual(result.messages, [
      system,
      { role: 'system', content: droppedMessagesMarker(3, undefined) },
      midSystem,
      latest,
      call,
      toolResult,
    ]);
    assert.equal(result.droppedMessages, 3);
    assert.equal(result.tokens, 68);
  });

  it('drops an assistant tool call together with its results', () => {
    const call: ChatMessage = {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'read', arguments: 'a' } },
        { id: 'c2', type: 'function', function: { name: 'grep', arguments: 'b' } },
      ],
    }; // 4 + 2 × (4 + 1 + 1) = 16
    const r1: ChatMessage = { role: 'tool', content: 'result one', tool_call_id: 'c1' }; // 6
    const r2: ChatMessage = { role: 'tool', content: 'result two', tool_call_id: 'c2' }; // 6
    const after = msg('assistant', 1, 'done'); // 5
    const messages = [system, history[0]!, call, r1, r2, after, latest]; // 3 + 9 + 14 + 28 + 5 + 14 = 73
    assert.equal(counter.countMessages(messages), 73);
    // Dropping the first user message is not enough (59 + marker 17 = 76); the call goes with both results.
    const result = fitConversation({ messages, usable: 50, counter, overflow: 'drop-oldest', window: 4096 });
    assert.equal(result.droppedMessages, 4);
    assert.deepEqual(result.messages.slice(2), [after, latest]);
    assert.ok(!result.messages.some((m) => m.role === 'tool'), 'no tool result without its call');
    assert.equal(result.tokens, 48);
  });

  it('drops a tool result with its call even when a message sits between them', () => {
    const call: ChatMessage = {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read', arguments: text(10, 'arg') } }],
    }; // 4 + 4 + 1 + 10 = 19
    const note = msg('user', 1, 'hm'); // 5
    const result1: ChatMessage = { role: 'tool', content: 'result one', tool_call_id: 'c1' }; // 6
    const messages = [system, call, note, result1, history[1]!, latest]; // 3 + 9 + 19 + 5 + 6 + 14 + 14 = 70
    assert.equal(counter.countMessages(messages), 70);
    // The oldest group is the call with its result (25): 70 − 25 + the marker (16) = 61.
    const result = fitConversation({ messages, usable: 61, counter, overflow: 'drop-oldest' });
    assert.deepEqual(result.messages.slice(2), [note, history[1]!, latest]);
    assert.equal(result.droppedMessages, 2);
    assert.equal(result.tokens, 61);
  });

  it("with overflow 'error' throws ContextLengthError with the numbers", () => {
    assert.throws(
      () => fitConversation({ messages: conversation, usable: 80, counter, overflow: 'error', window: 8192 }),
      (error: unknown) => {
        assert.ok(error instanceof ContextLengthError);
        assert.equal(error.status, 400);
        assert.equal(error.code, 'context_length_exceeded');
        assert.match(error.message, /needs ~110 tokens but the model's window allows 80 \(8192-token window/);
        return true;
      },
    );
  });

  it('always throws when even the system messages and the latest turn cannot fit', () => {
    const big = msg('user', 200, 'big');
    for (const overflow of ['drop-oldest', 'error'] as const) {
      assert.throws(
        () => fitConversation({ messages: [system, ...history, big], usable: 150, counter, overflow }),
        (error: unknown) =>
          error instanceof ContextLengthError &&
          // 3 + 204 for the message; with the system message (9) and the marker for the history (16), 232.
          /Your latest message \(~207 tokens\)/.test(error.message) &&
          /needs ~232 tokens, and the token budget allows 150/.test(error.message) &&
          /Shorten it by at least ~82 tokens/.test(error.message),
      );
    }
  });

  it('keeps every user message since the last answer: a paste sent apart from its question is never dropped', () => {
    const paste = msg('user', 200, 'log');
    const question = msg('user', 5, 'why');
    const messages = [system, ...history, paste, question];
    assert.throws(
      () => fitConversation({ messages, usable: 150, counter, overflow: 'drop-oldest' }),
      (error: unknown) =>
        error instanceof ContextLengthError && /Your latest message \(~\d+ tokens\)/.test(error.message),
    );
    // Room for both: the history goes, the paste and the question stay.
    const fitted = fitConversation({ messages, usable: 260, counter, overflow: 'drop-oldest' });
    assert.deepEqual(fitted.messages.slice(-2), [paste, question]);
    assert.ok(fitted.droppedMessages > 0);
  });

  it('counts tool schemas as part of the request', () => {
    const tools = [{ type: 'function' as const, function: { name: 'read', description: 'reads a file' } }];
    const withTools = fitConversation({ messages: conversation, tools, usable: 1000, counter, overflow: 'error' });
    // 10 for the tools preamble plus the JSON schema's words.
    assert.equal(withTools.tokens, 110 + 10 + words(JSON.stringify(tools)));
  });
});
