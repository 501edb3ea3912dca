// Snapshot text is whatever the user, their repository and the model wrote.
// None of it may become markup on the audit pages.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { memoryAuditStore } from '../support/memoryAuditStore.ts';
import { HOSTILE, makeSnapshot } from './snapshotFixtures.ts';
import { testApp } from './testApp.ts';

const hostileSnapshot = makeSnapshot({
  id: 'evil"><script>1</script>',
  model: HOSTILE,
  conversationId: `c${HOSTILE}`,
  forwarded: [
    { role: 'system', content: `<context source="x&quot;>${HOSTILE}">\n${HOSTILE}\n</context>` },
    { role: 'user', content: HOSTILE, name: HOSTILE },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: HOSTILE, type: 'function', function: { name: HOSTILE, arguments: HOSTILE } }],
    },
  ],
  contextBlock: HOSTILE,
  reply: { content: HOSTILE, reasoning: HOSTILE, toolCalls: [] },
  warnings: [HOSTILE],
  downgradeReason: HOSTILE,
  userAgent: HOSTILE,
  redactions: { [HOSTILE]: 1 },
  error: { status: 500, type: HOSTILE, code: HOSTILE, message: HOSTILE },
  sources: [{ source: HOSTILE, status: 'failed', ms: 1, items: 0, chars: 0, error: HOSTILE, skipped: [] }],
});

/** Our own markup has exactly one script element (the inline niceties) and no img. */
function assertNoInjectedMarkup(page: string) {
  assert.equal(page.match(/<script/gi)?.length, 1, 'only our own <script>');
  assert.doesNotMatch(page, /<img/i);
  // A tag (quoted attribute values skipped over) with an onerror attribute of its own.
  assert.doesNotMatch(page, /<[a-z][^>"]*(?:"[^"]*"[^>"]*)*\sonerror=/i);
  assert.match(page, /&lt;\/script&gt;&lt;script&gt;window.__pwned = 1&lt;\/script&gt;/);
}

describe('escaping on the audit pages', () => {
  const app = testApp({ store: memoryAuditStore([hostileSnapshot]) });

  it('escapes every snapshot field on the detail page', async () => {
    const response = await app.request(`/audit/${encodeURIComponent(hostileSnapshot.id)}`);
    assert.equal(response.status, 200);
    assertNoInjectedMarkup(await response.text());
  });

  it('escapes the list, the filter values and the conversation view', async () => {
    const list = await (await app.request(`/audit?model=${encodeURIComponent(HOSTILE)}`)).text();
    assertNoInjectedMarkup(list);
    const conversation = await (
      await app.request(`/audit/conversations/${encodeURIComponent(hostileSnapshot.conversationId ?? '')}`)
    ).text();
    assertNoInjectedMarkup(conversation);
  });

  it('escapes ids echoed on 404 pages', async () => {
    const response = await app.request(`/audit/${encodeURIComponent(HOSTILE)}`);
    assert.equal(response.status, 404);
    assertNoInjectedMarkup(await response.text());
  });

  it('keeps the API JSON exact (escaping is the page’s job, not the data’s)', async () => {
    const response = await app.request(`/api/audit/snapshots/${encodeURIComponent(hostileSnapshot.id)}`);
    assert.deepEqual(await response.json(), hostileSnapshot);
  });
});
