import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BadRequestError } from '../../src/shared/errors.ts';
import type { UpstreamRequest } from '../../src/shared/ports.ts';
import type { ChatMessage } from '../../src/shared/types.ts';
import { toOllamaChatRequest, toOllamaThink } from '../../src/upstream/ollamaMapping.ts';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

function request(overrides: Partial<UpstreamRequest> = {}): UpstreamRequest {
  return {
    model: 'qwen2.5-coder:7b',
    messages: [{ role: 'user', content: 'hi' }],
    params: {},
    ...overrides,
  };
}

function badRequest(param: string, message?: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof BadRequestError, `expected BadRequestError, got ${String(error)}`);
    assert.equal(error.status, 400);
    assert.equal(error.param, param);
    if (message) assert.match(error.message, message);
    return true;
  };
}

describe('toOllamaChatRequest: messages', () => {
  test('string content passes through; developer becomes system', () => {
    const body = toOllamaChatRequest(
      request({
        messages: [
          { role: 'developer', content: 'be terse' },
          { role: 'system', content: 'sys' },
          { role: 'user', content: 'hello' },
        ],
      }),
    );
    assert.deepEqual(body.messages, [
      { role: 'system', content: 'be terse' },
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'hello' },
    ]);
  });

  test('content parts: text joined with newlines, data-URL images (object or bare string) become base64 images', () => {
    const body = toOllamaChatRequest(
      request({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'first' },
              { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}`, detail: 'low' } },
              { type: 'text', text: 'second' },
              { type: 'image_url', image_url: `data:image/jpeg;base64,${PNG}` },
            ],
          },
        ],
      }),
    );
    assert.deepEqual(body.messages, [{ role: 'user', content: 'first\nsecond', images: [PNG, PNG] }]);
  });

  test('an http(s) image URL is a 400 on messages saying only base64 data URLs work', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/cat.png' } }] },
    ];
    assert.throws(() => toOllamaChatRequest(request({ messages })), badRequest('messages', /base64 data URLs/));
  });

  test('a data URL whose payload is not base64 is a 400', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: [{ type: 'image_url', image_url: 'data:image/png;base64,not base64!' }] },
    ];
    assert.throws(() => toOllamaChatRequest(request({ messages })), badRequest('messages'));
  });

  test('assistant tool_calls become Ollama tool_calls with parsed arguments; tool results get tool_name', () => {
    const body = toOllamaChatRequest(
      request({
        messages: [
          { role: 'user', content: 'weather?' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
              { id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call_b', content: '12:00' },
          { role: 'tool', tool_call_id: 'call_a', content: 'sunny' },
        ],
      }),
    );
    assert.deepEqual(body.messages.slice(1), [
      {
        role: 'assistant',
        content: '',
        tool_calls: [
          { function: { name: 'get_weather', arguments: { city: 'Paris' } } },
          { function: { name: 'get_time', arguments: {} } },
        ],
      },
      { role: 'tool', content: '12:00', tool_name: 'get_time' },
      { role: 'tool', content: 'sunny', tool_name: 'get_weather' },
    ]);
  });

  test('tool call arguments that are not a JSON object are a 400', () => {
    for (const args of ['{not json', '[1,2]']) {
      const messages: ChatMessage[] = [
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: args } }],
        },
      ];
      assert.throws(() => toOllamaChatRequest(request({ messages })), badRequest('messages', /c1/));
    }
  });
});

describe('toOllamaChatRequest: options and fields', () => {
  test('sends nothing the client did not set: no options, format, think, tools or truncate', () => {
    const body = toOllamaChatRequest(request({ params: { temperature: null, top_p: null, stop: null } }));
    assert.deepEqual(body, { model: 'qwen2.5-coder:7b', messages: [{ role: 'user', content: 'hi' }], stream: true });
  });

  test('maps every sampling field the client set, and num_ctx with truncate false', () => {
    const body = toOllamaChatRequest(
      request({
        numCtx: 16384,
        params: {
          temperature: 0.2,
          top_p: 0.9,
          seed: 7,
          presence_penalty: 0.5,
          frequency_penalty: 0.25,
          max_completion_tokens: 300,
          max_tokens: 100,
          stop: 'END',
        },
      }),
    );
    assert.deepEqual(body.options, {
      temperature: 0.2,
      top_p: 0.9,
      seed: 7,
      presence_penalty: 0.5,
      frequency_penalty: 0.25,
      num_predict: 300,
      stop: ['END'],
      num_ctx: 16384,
    });
    assert.equal(body.truncate, false);
    assert.equal(body.stream, true);
  });

  test('max_tokens alone becomes num_predict; a stop array stays an array; temperature 0 is kept', () => {
    const body = toOllamaChatRequest(request({ params: { max_tokens: 50, stop: ['a', 'b'], temperature: 0 } }));
    assert.deepEqual(body.options, { num_predict: 50, stop: ['a', 'b'], temperature: 0 });
    assert.equal('truncate' in body, false);
  });

  test('stream is always true, whatever the client asked', () => {
    assert.equal(toOllamaChatRequest(request({ params: { stream: false } })).stream, true);
  });

  test('response_format: json_object → "json", json_schema → the schema, text → nothing, other → 400', () => {
    const schema = { type: 'object', properties: { age: { type: 'integer' } }, required: ['age'] };
    assert.equal(toOllamaChatRequest(request({ params: { response_format: { type: 'json_object' } } })).format, 'json');
    assert.deepEqual(
      toOllamaChatRequest(
        request({ params: { response_format: { type: 'json_schema', json_schema: { name: 'x', schema } } } }),
      ).format,
      schema,
    );
    assert.equal('format' in toOllamaChatRequest(request({ params: { response_format: { type: 'text' } } })), false);
    assert.throws(
      () => toOllamaChatRequest(request({ params: { response_format: { type: 'grammar' } } })),
      badRequest('response_format', /grammar/),
    );
    assert.throws(
      () => toOllamaChatRequest(request({ params: { response_format: { type: 'json_schema' } } })),
      badRequest('response_format'),
    );
  });

  test('n > 1 is a 400 on n; n = 1 is fine', () => {
    assert.throws(() => toOllamaChatRequest(request({ params: { n: 2 } })), badRequest('n'));
    assert.doesNotThrow(() => toOllamaChatRequest(request({ params: { n: 1 } })));
  });

  test('tools pass through as Ollama tools; tool_choice "none" withholds them', () => {
    const tools = [
      {
        type: 'function' as const,
        function: {
          name: 'get_weather',
          description: 'Weather for a city',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          strict: true,
        },
      },
    ];
    const body = toOllamaChatRequest(request({ tools }));
    assert.deepEqual(body.tools, [
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'Weather for a city',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      },
    ]);
    assert.equal('tools' in toOllamaChatRequest(request({ tools, params: { tool_choice: 'none' } })), false);
  });
});

describe('reasoning_effort → think', () => {
  test('"none" turns thinking off; levels become true, or the level itself for gpt-oss', () => {
    assert.equal(toOllamaThink('none', 'qwen3:8b'), false);
    assert.equal(toOllamaThink('high', 'qwen3:8b'), true);
    assert.equal(toOllamaThink('low', 'deepseek-r1:7b'), true);
    assert.equal(toOllamaThink('high', 'gpt-oss:20b'), 'high');
    assert.equal(toOllamaThink('medium', 'gpt-oss:20b'), 'medium');
    assert.equal(toOllamaThink('minimal', 'gpt-oss:20b'), 'low');
    // The deepest settings agents send (Codex: xhigh; Ollama's own OpenAI layer: max).
    assert.equal(toOllamaThink('xhigh', 'gpt-oss:20b'), 'high');
    assert.equal(toOllamaThink('max', 'gpt-oss:20b'), 'high');
    assert.equal(toOllamaThink('xhigh', 'qwen3:8b'), true);
    assert.equal(toOllamaThink(undefined, 'gpt-oss:20b'), undefined);
    assert.equal(toOllamaThink(null, 'qwen3:8b'), undefined);
  });

  test('an unknown effort is a 400 on reasoning_effort', () => {
    assert.throws(() => toOllamaThink('extreme', 'qwen3:8b'), badRequest('reasoning_effort'));
  });

  test('request.think === false forces think false over any effort', () => {
    const body = toOllamaChatRequest(
      request({ model: 'gpt-oss:20b', think: false, params: { reasoning_effort: 'high' } }),
    );
    assert.equal(body.think, false);
    assert.equal(toOllamaChatRequest(request({ think: false })).think, false);
  });
});
