// Property: whatever the messages look like (the block alone, inside other
// text, in content parts, twice, unicode, JSON-looking text), a saved snapshot
// reads back exactly, and conversations that share prefixes share nodes.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { openAuditStore } from '../../src/audit/store.ts';
import type { AuditStoreFull } from '../../src/audit/types.ts';
import type { ChatMessage, ContentPart } from '../../src/shared/types.ts';
import { contextBlock, makeSnapshot, type TempDir, tempDir } from './fixtures.ts';

const BLOCKS = [contextBlock(300, 'a'), contextBlock(2000, 'b')];

function textWith(block: string): fc.Arbitrary<string> {
  return fc.oneof(
    // Any UTF-16, lone surrogates included: JSON.stringify escapes them, so they survive SQLite's UTF-8.
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.constant(block),
    fc.tuple(fc.string({ maxLength: 20 }), fc.string({ maxLength: 20 })).map(([a, b]) => `${a}${block}${b}`),
    fc.constant(`{"$blob":"${'0'.repeat(64)}"}`),
    fc.constant(`${block}\n${block}`),
  );
}

function messageWith(block: string): fc.Arbitrary<ChatMessage> {
  const part: fc.Arbitrary<ContentPart> = fc.oneof(
    textWith(block).map((text) => ({ type: 'text' as const, text })),
    fc.constant({ type: 'image_url' as const, image_url: { url: 'data:image/png;base64,AAAA', detail: 'low' } }),
  );
  return fc
    .record({
      role: fc.constantFrom('system' as const, 'user' as const, 'assistant' as const, 'tool' as const),
      content: fc.oneof(textWith(block), fc.array(part, { maxLength: 3 }), fc.constant(null)),
      // fc.record builds null-prototype objects; a request body parses to plain ones.
    })
    .map((message) => ({ ...message }));
}

describe('audit round trip (property)', () => {
  let temp: TempDir;
  let store: AuditStoreFull;
  before(() => {
    temp = tempDir();
    store = openAuditStore({ path: temp.path() });
  });
  after(async () => {
    await store.close();
    temp.cleanup();
  });

  it('reads back every saved snapshot exactly', async () => {
    const input = fc.constantFrom(...BLOCKS).chain((block) =>
      fc.record({
        block: fc.constant(block),
        withBlock: fc.boolean(),
        messages: fc.array(messageWith(block), { maxLength: 6 }),
        prefix: fc.integer({ min: 0, max: 6 }),
      }),
    );
    await fc.assert(
      fc.asyncProperty(input, async ({ block, withBlock, messages, prefix }) => {
        const first = makeSnapshot({ contextBlock: withBlock ? block : undefined, forwarded: messages });
        // The next turn: a prefix of the same messages plus a new one.
        const second = makeSnapshot({
          contextBlock: withBlock ? block : undefined,
          forwarded: [...messages.slice(0, prefix), { role: 'user', content: 'and then?' }],
        });
        store.save(first);
        store.save(second);
        await store.flush();
        assert.deepStrictEqual(store.get(first.id), first);
        assert.deepStrictEqual(store.get(second.id), second);
      }),
      { numRuns: 80 },
    );
  });
});
