// The Anthropic request → chat request mapping, as data: every field the
// schema accepts is in the field table, every mapped field follows a chat
// field's rule, and whole classes (server tools, tool choices, thinking
// configs, unknown fields) map the same way whatever the member.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MESSAGES_REQUEST_FIELDS, REQUEST_FIELDS } from '../../src/pipeline/fieldPolicy.ts';
import { toChatRequest } from '../../src/pipeline/messagesInput.ts';
import {
  countTokensRequestSchema,
  type MessagesRequest,
  messagesRequestSchema,
} from '../../src/shared/messagesRequest.ts';

const base = (extra: Record<string, unknown> = {}): MessagesRequest =>
  messagesRequestSchema.parse({ model: 'm', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }], ...extra });

describe('the field table for /v1/messages', () => {
  test('every field the schemas name is in the table', () => {
    const keys = new Set([...Object.keys(messagesRequestSchema.shape), ...Object.keys(countTokensRequestSchema.shape)]);
    for (const key of keys) assert.ok(Object.hasOwn(MESSAGES_REQUEST_FIELDS, key), key);
  });

  test('a mapped field follows the rule of the chat field it becomes, so its strings meet the same redactor', () => {
    for (const [path, rule] of Object.entries(MESSAGES_REQUEST_FIELDS)) {
      if (rule.mapsTo === undefined) {
        assert.ok(rule.treatment === 'drop' || rule.treatment === 'walk', `${path} is mapped, walked or dropped`);
        continue;
      }
      const chat = REQUEST_FIELDS[rule.mapsTo];
      assert.ok(chat, `${path} → ${rule.mapsTo} is a chat field`);
      assert.equal(rule.treatment, chat.treatment, path);
      assert.equal(rule.forwardToOllama, chat.forwardToOllama, path);
      assert.equal(rule.store, chat.store, path);
    }
  });
});

describe('toChatRequest', () => {
  test('a system turn among the messages (as Claude Code sends its environment) is a system message in its place', () => {
    const { request, warnings } = toChatRequest(
      base({
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'hi' }] },
          {
            role: 'system',
            content: [
              { type: 'text', text: 'Primary working directory: /repo' },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
              { type: 'text', text: 'Platform: linux' },
            ],
          },
        ],
      }),
    );
    assert.deepEqual(request.messages.slice(-1), [
      { role: 'system', content: 'Primary working directory: /repo\nPlatform: linux' },
    ]);
    assert.match(warnings.join('; '), /image block\(s\) in a system turn/);
  });

  test('server tools of every family, dated or not yet known, are left out with a warning; custom tools stay', () => {
    const server = [
      'web_search_20250305',
      'web_fetch_20250910',
      'bash_20250124',
      'text_editor_20250728',
      'computer_20250124',
      'code_execution_20250825',
      'memory_20250818',
      'tool_search_tool_regex_20251119',
      'mcp_toolset',
      'ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8_20990101',
    ];
    const { request, warnings } = toChatRequest(
      base({
        tools: [
          { name: 'read_file', input_schema: { type: 'object' } },
          { type: 'custom', name: 'grep', description: 'search' },
          ...server.map((type) => ({ type, name: type.split('_')[0] })),
        ],
      }),
    );
    assert.deepEqual(
      request.tools?.map((tool) => (tool.type === 'function' ? (tool.function as { name: string }).name : tool.type)),
      ['read_file', 'grep'],
    );
    const text = warnings.join('; ');
    assert.match(text, /left out 1 server tool\(s\) web_search/);
    assert.match(text, /left out 1 server tool\(s\) of another type/);
    assert.doesNotMatch(text, /ghp_/, 'a type ctxproxy does not know is not repeated');
    const total = [...text.matchAll(/left out (\d+) server tool/g)].reduce((sum, m) => sum + Number(m[1]), 0);
    assert.equal(total, server.length);
  });

  test('tool_choice: auto, any, tool and none map to chat; without tools left, none is sent', () => {
    const tools = [{ name: 'f', input_schema: { type: 'object' } }];
    const cases: [Record<string, unknown>, unknown][] = [
      [{ type: 'auto' }, 'auto'],
      [{ type: 'any' }, 'required'],
      [
        { type: 'tool', name: 'f' },
        { type: 'function', function: { name: 'f' } },
      ],
      [{ type: 'none' }, 'none'],
    ];
    for (const [choice, expected] of cases) {
      assert.deepEqual(toChatRequest(base({ tools, tool_choice: choice })).request.tool_choice, expected);
    }
    const parallel = toChatRequest(base({ tools, tool_choice: { type: 'auto', disable_parallel_tool_use: true } }));
    assert.equal(parallel.request.parallel_tool_calls, false);
    const onlyServer = toChatRequest(
      base({ tools: [{ type: 'bash_20250124', name: 'bash' }], tool_choice: { type: 'any' } }),
    );
    assert.equal(onlyServer.request.tools, undefined);
    assert.equal(onlyServer.request.tool_choice, undefined);
  });

  test("thinking: disabled is off, adaptive is the model's default, every other type is on at the effort asked or medium", () => {
    const effort = (extra: Record<string, unknown>) => toChatRequest(base(extra)).request.reasoning_effort;
    assert.equal(effort({}), undefined);
    assert.equal(effort({ thinking: { type: 'disabled' } }), 'none');
    assert.equal(effort({ thinking: { type: 'adaptive' }, output_config: { effort: 'high' } }), undefined);
    for (const type of ['enabled', 'between_tools']) {
      assert.equal(effort({ thinking: { type, budget_tokens: 2048 } }), 'medium', type);
      assert.equal(effort({ thinking: { type }, output_config: { effort: 'low' } }), 'low', type);
    }
    for (const [asked, level] of [
      ['max', 'high'],
      ['xhigh', 'high'],
      ['HIGH', 'high'],
      ['medium', 'medium'],
    ]) {
      assert.equal(effort({ output_config: { effort: asked } }), level, asked);
    }
  });

  test('top-level fields ctxproxy does not know are counted, never named', () => {
    const { warnings } = toChatRequest(base({ ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8: 1, betas: ['x'] }));
    assert.ok(warnings.includes('ignored 2 request field(s) that ctxproxy does not forward'));
    assert.doesNotMatch(warnings.join(), /ghp_|betas/);
  });

  test('blocks of hosted features are left out with a warning; earlier thinking is not sent back', () => {
    const { request, warnings } = toChatRequest(
      base({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'document', source: { type: 'text', data: 'x' } },
              { type: 'text', text: 'q' },
            ],
          },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: 'hmm', signature: 's' },
              { type: 'redacted_thinking', data: 'zz' },
              { type: 'server_tool_use', id: 'srv', name: 'web_search', input: {} },
              { type: 'text', text: 'a' },
            ],
          },
          { role: 'user', content: 'next' },
        ],
      }),
    );
    assert.deepEqual(
      request.messages.map((m) => [m.role, m.content]),
      [
        ['user', 'q'],
        ['assistant', 'a'],
        ['user', 'next'],
      ],
    );
    assert.match(warnings.join('; '), /left out 1 document block\(s\).*left out 1 server_tool_use block\(s\)/);
  });

  test('text blocks of one turn are one message, a line apart; a tool_result with an image keeps it', () => {
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
    const { request } = toChatRequest(
      base({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: '<system-reminder>x</system-reminder>' },
              { type: 'text', text: 'Fix it.' },
            ],
          },
          { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'screenshot', input: {} }] },
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                tool_use_id: 't1',
                is_error: true,
                content: [
                  { type: 'text', text: 'failed' },
                  { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
                ],
              },
            ],
          },
        ],
      }),
    );
    assert.deepEqual(request.messages[0], { role: 'user', content: '<system-reminder>x</system-reminder>\nFix it.' });
    assert.deepEqual(request.messages[1]?.tool_calls?.[0]?.function, { name: 'screenshot', arguments: '{}' });
    assert.equal(request.messages[1]?.content, null);
    assert.deepEqual(request.messages[2], {
      role: 'tool',
      tool_call_id: 't1',
      content: [
        { type: 'text', text: 'Error: ' },
        { type: 'text', text: 'failed' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } },
      ],
    });
  });

  test('output_config.format becomes a json_schema response_format', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    const { request } = toChatRequest(base({ output_config: { format: { type: 'json_schema', schema } } }));
    assert.deepEqual(request.response_format, { type: 'json_schema', json_schema: { name: 'output', schema } });
  });
});
