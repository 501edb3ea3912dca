// The field table decides alone: what it does not list is dropped, what it
// lists goes only where it says, and its strings are redacted at any depth.

import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { cleanRequest } from '../../src/pipeline/cleanRequest.ts';
import { REQUEST_FIELDS } from '../../src/pipeline/fieldPolicy.ts';
import { normalizeImage, storedMessages } from '../../src/pipeline/images.ts';
import { capUtf8 } from '../../src/pipeline/storedText.ts';
import { createRedactor } from '../../src/redact/createRedactor.ts';
import { type ChatRequest, isFunctionTool } from '../../src/shared/chatRequest.ts';
import type { Redactor } from '../../src/shared/types.ts';

const TOKEN = 'ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A';
let redactor: Redactor;
before(async () => {
  redactor = await createRedactor();
});

const base = (extra: Record<string, unknown>): ChatRequest =>
  ({ model: 'm', messages: [{ role: 'user', content: 'hi' }], ...extra }) as ChatRequest;

describe('cleanRequest', () => {
  test('a field the table does not list is dropped, for both upstream kinds, at any level', async () => {
    const request = base({
      not_in_the_table: TOKEN,
      messages: [{ role: 'user', content: 'hi', refusal: TOKEN }],
      tools: [{ type: 'function', function: { name: 'f', secret_note: TOKEN } }],
    });
    for (const kind of ['ollama', 'openai'] as const) {
      const cleaned = await cleanRequest(request, { kind, redactor });
      assert.equal(JSON.stringify(cleaned.request).includes(TOKEN), false, kind);
      assert.equal('not_in_the_table' in cleaned.request, false);
      assert.deepEqual(cleaned.request.messages, [{ role: 'user', content: 'hi' }]);
      assert.equal(cleaned.unknownFields, 3);
    }
  });

  test('user and metadata go to the openai kind only, redacted', async () => {
    const request = base({ user: TOKEN, metadata: { [TOKEN]: TOKEN } });
    const ollama = await cleanRequest(request, { kind: 'ollama', redactor });
    assert.equal('user' in ollama.request || 'metadata' in ollama.request, false);
    const openai = (await cleanRequest(request, { kind: 'openai', redactor })).request as Record<string, unknown>;
    assert.equal(openai.user, '[REDACTED:github-token]');
    assert.deepEqual(openai.metadata, { '[REDACTED:github-token]': '[REDACTED:github-token]' });
  });

  test('every string of a tool schema is redacted, keys included, and counted by rule', async () => {
    const parameters = {
      type: 'object',
      title: TOKEN,
      properties: { [TOKEN]: { type: 'string', default: TOKEN, enum: [TOKEN], examples: [[TOKEN]], const: TOKEN } },
    };
    const cleaned = await cleanRequest(base({ tools: [{ type: 'function', function: { name: 'f', parameters } }] }), {
      kind: 'ollama',
      redactor,
    });
    assert.equal(JSON.stringify(cleaned.request).includes('ghp_'), false);
    assert.equal(cleaned.counts['github-token'], 6);
  });

  test('a schema sent again (every turn) gives the same result and counts its findings again', async () => {
    const tools = [{ type: 'function', function: { name: 'f', parameters: { default: TOKEN, n: 1 } } }];
    const first = await cleanRequest(base({ tools }), { kind: 'ollama', redactor });
    (first.request.tools?.filter(isFunctionTool)[0]?.function.parameters as Record<string, unknown>).n = 2;
    const second = await cleanRequest(base({ tools }), { kind: 'ollama', redactor });
    assert.deepEqual(second.request.tools?.filter(isFunctionTool)[0]?.function.parameters, {
      default: '[REDACTED:github-token]',
      n: 1,
    });
    assert.deepEqual(second.counts, { 'github-token': 1 });
  });

  test('a pass field keeps numbers, booleans and listed strings only', async () => {
    const cleaned = await cleanRequest(base({ temperature: TOKEN, top_p: 0.5, parallel_tool_calls: true }), {
      kind: 'openai',
      redactor,
    });
    assert.equal('temperature' in cleaned.request, false);
    assert.equal(cleaned.request.top_p, 0.5);
    assert.equal((cleaned.request as Record<string, unknown>).parallel_tool_calls, true);
  });

  test('fail closed: a field whose strings cannot be scanned is dropped and named', async () => {
    const failing: Redactor = {
      redact: async (text) => {
        if (text.includes('boom')) throw new Error('scan failed');
        return { text, findings: [] };
      },
      isNeverRead: () => false,
    };
    const cleaned = await cleanRequest(base({ stop: ['ok', 'boom'], user: 'fine' }), {
      kind: 'openai',
      redactor: failing,
    });
    assert.equal('stop' in cleaned.request, false);
    assert.equal((cleaned.request as Record<string, unknown>).user, 'fine');
    assert.deepEqual(cleaned.unscannable, ['stop']);
  });

  test('JSON nested deeper than the walk allows is dropped, not forwarded', async () => {
    let deep: unknown = TOKEN;
    for (let i = 0; i < 100; i++) deep = { a: deep };
    const cleaned = await cleanRequest(base({ response_format: deep }), { kind: 'openai', redactor });
    assert.equal('response_format' in cleaned.request, false);
  });
});

describe('the table', () => {
  test('every nested path hangs under a container entry', () => {
    for (const path of Object.keys(REQUEST_FIELDS)) {
      const parent = path.replace(/(\[\]|\.[^.[\]]+)$/, '');
      if (parent === path) continue;
      const rule = REQUEST_FIELDS[parent];
      assert.ok(rule && (rule.treatment === 'walk' || rule.treatment === 'content'), `${path} has no container`);
    }
  });

  test('only the model and the messages are stored; headers have their own caps', () => {
    for (const [path, rule] of Object.entries(REQUEST_FIELDS)) {
      if (rule.store) assert.match(path, /^(model|messages)\b/, path);
    }
  });
});

describe('images', () => {
  test('the data URL is rebuilt from the bytes; its parameters are gone', () => {
    assert.deepEqual(normalizeImage({ url: `data:text/plain;name=${TOKEN};base64,iVBORw0KGgo=`, detail: TOKEN }), {
      url: 'data:image/png;base64,iVBORw0KGgo=',
    });
    assert.deepEqual(normalizeImage('data:image/jpeg;base64,AAAA'), { url: 'data:image/jpeg;base64,AAAA' });
    assert.deepEqual(normalizeImage(`data:${TOKEN};base64,AAAA`), { url: 'data:application/octet-stream;base64,AAAA' });
    assert.throws(() => normalizeImage({ url: `https://example.test/a.png?token=${TOKEN}` }), /base64 data URL/);
  });

  test('the log keeps type, size and hash', () => {
    const [message] = storedMessages([
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }] },
    ]);
    assert.deepEqual(message?.content, [
      {
        type: 'image_url',
        image_url: {
          url: 'sha256:4c4b6a3be1314ab86138bef4314dde022e600960d8689a2c8f8631802d20dab6',
          media_type: 'image/png',
          bytes: 8,
        },
      },
    ]);
  });
});

test('capUtf8 cuts between characters and marks the cut', () => {
  assert.equal(capUtf8('short', 512), 'short');
  const cut = capUtf8('é'.repeat(400), 512);
  assert.ok(new TextEncoder().encode(cut).length <= 512);
  assert.ok(cut.endsWith('…') && !cut.includes('\uFFFD'));
  // Longer in characters than the cap in bytes: cut the same way, by the text's first characters.
  const long = capUtf8(`${'a'.repeat(300)}${'😀'.repeat(1_000_000)}`, 512);
  assert.equal(long, `${'a'.repeat(300)}${'😀'.repeat(52)}…`);
  assert.ok(new TextEncoder().encode(long).length <= 512);
});

test('capUtf8 sizes every kind of character as UTF-8 does', () => {
  const encoder = new TextEncoder();
  // One, two, three and four bytes, and lone surrogates (encoded as U+FFFD, three bytes).
  const kinds = ['a', 'é', '€', '😀', '\uD800', '\uDC00'];
  for (const first of kinds)
    for (const second of kinds) {
      const text = `${first}${second}`.repeat(50);
      const bytes = encoder.encode(text).length;
      for (const cap of [bytes, bytes - 1, 17, 4, 3]) {
        const cut = capUtf8(text, cap);
        assert.ok(encoder.encode(cut).length <= cap, `${JSON.stringify(first + second)} at ${cap}`);
        if (cap >= bytes) assert.equal(cut, text);
        else {
          assert.ok(cut.endsWith('…'));
          const kept = cut.slice(0, -1);
          assert.ok(text.startsWith(kept));
          // The longest cut: one more character would not fit beside the mark.
          const next = String.fromCodePoint(text.codePointAt(kept.length) as number);
          assert.ok(encoder.encode(`${kept}${next}…`).length > cap);
        }
      }
    }
});
