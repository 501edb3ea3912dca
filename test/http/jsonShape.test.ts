import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  checkJsonShape,
  defaultJsonShapeLimits,
  MAX_FIELD_CHARS,
  MAX_FIELD_NODES,
  MAX_JSON_DEPTH,
  MAX_MESSAGES,
  MAX_NESTED_ITEMS,
  MAX_STRUCTURED_NODES,
  MAX_TOOLS,
} from '../../src/http/jsonShape.ts';
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
    // Exactly the limit is fine.
    checkJsonShape(`{"model":"m","messages":[${Array.from({ length: MAX_MESSAGES }, () => '{}').join(',')}]}`);
  });

  it("a nested array named like a top-level field is held to the nested limit, not that field's", () => {
    const limits = { ...defaultJsonShapeLimits, fields: { messages: { maxItems: 3 } } };
    checkJsonShape(`{"model":"m","messages":[{}],"x":{"messages":[1,2,3,4,5]}}`, limits);
    assert.throws(() => checkJsonShape(`{"model":"m","messages":[{},{},{},{}]}`, limits), /more than 3 items/);
  });

  const tool = (i: number) => ({
    type: 'function',
    function: { name: `t${i}`, parameters: { type: 'object', properties: { a: { type: 'string' } } } },
  });

  it('refuses more tools than the limit, naming tools; the limit itself passes', () => {
    const tools = (n: number) =>
      JSON.stringify({ model: 'm', messages: [], tools: Array.from({ length: n }, (_, i) => tool(i)) });
    checkJsonShape(tools(MAX_TOOLS));
    const error = refusal(tools(MAX_TOOLS + 1));
    assert.equal(error.code, 'too_many_tools');
    assert.equal(error.param, 'tools');
  });

  it('refuses a long array anywhere inside a field (an enum, examples, stop), naming its path', () => {
    const values = Array.from({ length: MAX_NESTED_ITEMS + 1 }, (_, i) => `v${i}`);
    const schema = { type: 'object', properties: { v: { type: 'string', enum: values } } };
    const error = refusal(
      JSON.stringify({ model: 'm', response_format: { type: 'json_schema', json_schema: { schema } } }),
    );
    assert.equal(error.code, 'too_many_items');
    assert.equal(error.param, 'response_format.json_schema.schema.properties.v.enum');
    // A number array is the same class as a string one, and a top-level field like stop too.
    assert.equal(refusal(JSON.stringify({ model: 'm', metadata: { n: values.map((_, i) => i) } })).param, 'metadata.n');
    assert.equal(refusal(JSON.stringify({ model: 'm', stop: values })).param, 'stop');
    checkJsonShape(JSON.stringify({ model: 'm', stop: values.slice(0, MAX_NESTED_ITEMS) }));
  });

  it('refuses a field with too many strings and containers, however they are spread', () => {
    // Many small objects (no array past the item limit) and many keys of one object: the same class.
    // 512 tools of 60 properties: ~250 strings and containers each, past the limit in all.
    const perTool = 60;
    const wide = Object.fromEntries(Array.from({ length: perTool }, (_, i) => [`p${i}`, { type: 'string' }]));
    const tools = Array.from({ length: MAX_TOOLS }, (_, i) => ({
      type: 'function',
      function: { name: `t${i}`, parameters: { type: 'object', properties: wide } },
    }));
    const byTools = refusal(JSON.stringify({ model: 'm', tools }));
    assert.equal(byTools.code, 'field_too_large');
    assert.equal(byTools.param, 'tools');
    const keys = Object.fromEntries(Array.from({ length: MAX_FIELD_NODES }, (_, i) => [`k${i}`, 1]));
    assert.equal(refusal(JSON.stringify({ model: 'm', metadata: keys })).param, 'metadata');
  });

  it('refuses a structured field longer than its size limit, a string one too; the conversation is exempt', () => {
    const long = 'x'.repeat(MAX_FIELD_CHARS);
    assert.equal(
      refusal(JSON.stringify({ model: 'm', tools: [{ type: 'function', function: { name: long } }] })).param,
      'tools',
    );
    assert.equal(refusal(JSON.stringify({ messages: [], model: long })).param, 'model');
    checkJsonShape(JSON.stringify({ model: 'm', messages: [{ role: 'user', content: long }], prompt: long }));
  });

  it('refuses a body that spreads its strings over many fields, each under its own limit', () => {
    const perField = MAX_FIELD_NODES - 10;
    const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 1]));
    const fields = Math.ceil(MAX_STRUCTURED_NODES / perField) + 1;
    const body = Object.fromEntries(Array.from({ length: fields }, (_, i) => [`field_${i}`, keys(perField)]));
    const error = refusal(JSON.stringify({ model: 'm', messages: [], ...body }));
    assert.equal(error.code, 'fields_too_large');
    // One field at its own limit passes, and the conversation does not count.
    checkJsonShape(
      JSON.stringify({ model: 'm', metadata: keys(perField), messages: [{ role: 'user', content: 'x' }] }),
    );
  });
});
