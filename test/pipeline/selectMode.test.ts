import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { placeContext } from '../../src/pipeline/assemble.ts';
import { selectMode, splitModelSuffix } from '../../src/pipeline/selectMode.ts';
import { BadRequestError } from '../../src/shared/errors.ts';
import type { ChatMessage } from '../../src/shared/types.ts';

const trace = (text: string) => /Error:|Traceback/.test(text);
const user = (content: ChatMessage['content']): ChatMessage => ({ role: 'user', content });

describe('selectMode', () => {
  const base = { model: 'm', messages: [user('hello')], serverMode: 'auto' as const, looksLikeStackTrace: trace };

  test('auto picks debug for a stack trace and git-aware otherwise', () => {
    assert.equal(selectMode(base).mode, 'git-aware');
    assert.equal(selectMode({ ...base, messages: [user('Traceback (most recent call last):')] }).mode, 'debug');
    assert.equal(selectMode(base).origin, 'auto');
  });

  test('precedence: header, then model suffix, then /mode line, then the server', () => {
    const all = { ...base, model: 'm+quick', messages: [user('/mode deep\nq')], serverMode: 'off' as const };
    assert.deepEqual([selectMode({ ...all, headerMode: 'debug' }).mode, selectMode(all).mode], ['debug', 'quick']);
    assert.equal(selectMode({ ...all, model: 'm' }).mode, 'deep');
    assert.equal(selectMode({ ...all, model: 'm', messages: [user('q')] }).mode, 'off');
  });

  test('the suffix and the /mode line are stripped even when a header wins', () => {
    const selection = selectMode({
      ...base,
      model: 'm+deep',
      messages: [user('/mode quick\nthe question')],
      headerMode: 'off',
    });
    assert.equal(selection.model, 'm');
    assert.deepEqual(selection.messages, [user('the question')]);
  });

  test('a /mode line in a content-part message is stripped from its first text part', () => {
    const selection = selectMode({
      ...base,
      messages: [
        user([
          { type: 'text', text: '/mode quick\nwhat is this?' },
          { type: 'image_url', image_url: 'data:x' },
        ]),
      ],
    });
    assert.equal(selection.mode, 'quick');
    assert.deepEqual(selection.messages[0]?.content, [
      { type: 'text', text: 'what is this?' },
      { type: 'image_url', image_url: 'data:x' },
    ]);
  });

  test('`/mode NAME question` on one line picks the mode and keeps the question', () => {
    const selection = selectMode({ ...base, messages: [user('/mode off what did I change?')] });
    assert.equal(selection.mode, 'off');
    assert.deepEqual(selection.messages, [user('what did I change?')]);
  });

  test('earlier user messages lose their /mode line too, so the history forwarded stays as it was', () => {
    const messages = [user('/mode deep\nfirst'), { role: 'assistant' as const, content: 'a' }, user('second')];
    const selection = selectMode({ ...base, messages });
    assert.equal(selection.mode, 'git-aware', 'only the last message picks the mode');
    assert.deepEqual(selection.messages[0], user('first'));
    assert.deepEqual(selection.messages[2], user('second'));
  });

  test('an unknown mode is a 400 naming the modes, wherever it is given', () => {
    const invalid = (error: unknown) =>
      error instanceof BadRequestError &&
      error.code === 'invalid_mode' &&
      /off, quick, git-aware, deep, debug, auto/.test(error.message) &&
      !/ollama pull/.test(error.message);
    assert.throws(() => selectMode({ ...base, headerMode: 'turbo' }), invalid);
    assert.throws(() => selectMode({ ...base, model: 'qwen2.5-coder:7b+turbo' }), invalid);
    assert.throws(
      () => selectMode({ ...base, messages: [{ role: 'user', content: '/mode turbo\nwhat changed?' }] }),
      invalid,
    );
    assert.deepEqual(splitModelSuffix('weird+name'), { model: 'weird+name', invalidSuffix: 'name' });
    assert.deepEqual(splitModelSuffix('qwen2.5-coder:7b+DEBUG'), { model: 'qwen2.5-coder:7b', suffixMode: 'debug' });
  });

  test('only the last user message is read for /mode', () => {
    const messages = [user('/mode off\nfirst'), { role: 'assistant', content: 'ok' } as ChatMessage, user('second')];
    assert.equal(selectMode({ ...base, messages }).mode, 'git-aware');
  });
});

describe('placeContext', () => {
  test('the block goes after the client’s leading system messages, and attachments follow the user’s words', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'sys' },
      { role: 'developer', content: 'dev' },
      user('one'),
      { role: 'assistant', content: 'a' },
      user([{ type: 'text', text: 'two' }]),
    ];
    const placed = placeContext(messages, { contextBlock: 'BLOCK', attachments: new Map([[4, 'ATTACHED']]) });
    assert.deepEqual(
      placed.map((m) => m.role),
      ['system', 'developer', 'system', 'user', 'assistant', 'user'],
    );
    assert.equal(placed[2]?.content, 'BLOCK');
    assert.deepEqual(placed[5]?.content, [
      { type: 'text', text: 'two' },
      { type: 'text', text: 'ATTACHED' },
    ]);
    assert.deepEqual(messages[4]?.content, [{ type: 'text', text: 'two' }], 'the input is not mutated');
  });

  test('with no block nothing is added', () => {
    const messages = [user('x')];
    assert.deepEqual(placeContext(messages, { contextBlock: '', attachments: new Map() }), messages);
  });
});
