import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkJsonShape, MAX_JSON_DEPTH, MAX_MESSAGES } from '../../src/http/jsonShape.ts';
import { BadRequestError } from '../../src/shared/errors.ts';

const nestedArray = (depth: number) => `${'['.repeat(depth)}1${']'.repeat(depth)}`;

function refusal(text: string): BadRequestError {
  try {
    checkJsonShape(text);
  } catch (error) {
    assert.ok(error instanceof BadRequestError);
    return error;
  }
  assert.fail('expected a 400');
}

describe('checkJsonShape', () => {
  it('accepts ordinary bodies, however long their strings', () => {
    checkJsonShape(JSON.stringify({ model: 'm', messages: [{ role: 'user', content: '[{'.repeat(100_000) }] }));
    checkJsonShape(`{"a":${nestedArray(MAX_JSON_DEPTH - 1)}}`);
  });

  it('refuses nesting past the limit with the field that nests', () => {
    const error = refusal(
      `{"model":"m","tools":[{"type":"function","function":{"name":"f","parameters":${nestedArray(100_000)}}}]}`,
    );
    assert.equal(error.status, 400);
    assert.equal(error.code, 'json_too_deep');
    assert.ok(error.param?.startsWith('tools.0.function.parameters'), error.param ?? '');
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    const tricky = JSON.stringify({ a: `\\"${'['.repeat(500)}\\\\`, b: '"{{{{' });
    checkJsonShape(`{"x":${tricky},"y":[${tricky}]}`);
  });

  it('refuses more messages than the limit, naming messages', () => {
    const messages = Array.from({ length: MAX_MESSAGES + 1 }, () => '{"role":"user","content":"hi"}').join(',');
    const error = refusal(`{"model":"m","messages":[${messages}]}`);
    assert.equal(error.code, 'too_many_messages');
    assert.equal(error.param, 'messages');
    // Exactly the limit is fine, and a nested array named messages is not the conversation.
    checkJsonShape(
      `{"model":"m","messages":[${Array.from({ length: MAX_MESSAGES }, () => '{}').join(',')}],"x":{"messages":[${Array.from({ length: MAX_MESSAGES + 5 }, () => '1').join(',')}]}}`,
    );
  });
});
