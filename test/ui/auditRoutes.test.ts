import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { memoryAuditStore } from '../support/memoryAuditStore.ts';
import { conversationOf, makeSnapshot } from './snapshotFixtures.ts';
import { testApp } from './testApp.ts';

function fixtureStore() {
  return memoryAuditStore([
    makeSnapshot({ id: 'a1', model: 'llama3.2:3b', modeUsed: 'quick', modeAsked: 'quick' }),
    makeSnapshot({
      id: 'a2',
      outcome: 'error',
      error: { status: 502, type: 'upstream_error', code: 'upstream_unavailable', message: 'Ollama is not running.' },
      reply: { content: '' },
    }),
    makeSnapshot({
      id: 'a3',
      modeAsked: 'deep',
      modeUsed: 'quick',
      downgradeReason: 'conversation plus context exceeded 80% of the window',
      forwarded: [{ role: 'user', content: 'Explain the flaky websocket test' }],
    }),
  ]);
}

describe('GET /audit', () => {
  it('lists the newest first with every column', async () => {
    const app = testApp({ store: fixtureStore() });
    const response = await app.request('/audit');
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /text\/html/);
    const page = await response.text();
    assert.match(page, /^<!doctype html>/);
    const order = ['a3', 'a2', 'a1'].map((id) => page.indexOf(`href="/audit/${id}"`));
    assert.ok(
      order.every((index) => index > 0),
      'every row links to its detail',
    );
    assert.deepEqual(
      [...order].sort((x, y) => x - y),
      order,
      'newest first',
    );
    assert.match(page, /deep → quick/);
    assert.match(page, /8,200 \/ 140/);
    assert.match(page, /2\.35 s/);
    assert.match(page, /class="badge error"/);
    assert.match(page, /Explain the flaky websocket test/);
  });

  it('filters by model, mode, outcome and text through plain GET parameters', async () => {
    const app = testApp({ store: fixtureStore() });
    const rows = async (query: string) => {
      const page = await (await app.request(`/audit?${query}`)).text();
      return [...page.matchAll(/<tr data-href="\/audit\/([^"]+)"/g)].map((match) => match[1]);
    };
    assert.deepEqual(await rows('model=llama3.2%3A3b'), ['a1']);
    assert.deepEqual(await rows('mode=deep'), ['a3']);
    assert.deepEqual(await rows('outcome=error'), ['a2']);
    assert.deepEqual(await rows('text=websocket'), ['a3']);
    assert.deepEqual(await rows('mode=quick&outcome=ok'), ['a3', 'a1']);
    assert.deepEqual(await rows('from=2000-01-01&to=2000-01-02'), []);
  });

  it('keeps the filter values in the form and says which parameters it ignored', async () => {
    const app = testApp({ store: fixtureStore() });
    const page = await (await app.request('/audit?mode=turbo&text=websocket&from=yesterday')).text();
    assert.match(page, /Ignored: mode must be one of auto, off, quick, git-aware, deep, debug; from must be a date/);
    assert.match(page, /name="text" value="websocket"/);
  });

  it('pages with a `before` cursor and keeps the filters in the links', async () => {
    const store = memoryAuditStore(Array.from({ length: 5 }, (_, i) => makeSnapshot({ id: `p${i}` })));
    const app = testApp({ store });
    const first = await (await app.request('/audit?limit=2&outcome=ok')).text();
    assert.match(first, /href="\/audit\?outcome=ok&amp;limit=2&amp;before=p3" rel="next"/);
    const second = await (await app.request('/audit?limit=2&outcome=ok&before=p3')).text();
    assert.deepEqual(
      [...second.matchAll(/<tr data-href="\/audit\/([^"]+)"/g)].map((match) => match[1]),
      ['p2', 'p1'],
    );
    assert.match(second, /« Newest/);
    const last = await (await app.request('/audit?limit=2&before=p1')).text();
    assert.doesNotMatch(last, /rel="next"/);
  });

  it('redirects /audit/ to /audit', async () => {
    const response = await testApp({ store: fixtureStore() }).request('/audit/');
    assert.equal(response.status, 301);
    assert.equal(response.headers.get('location'), '/audit');
  });

  it('says so when the log is empty', async () => {
    const page = await (await testApp({ store: memoryAuditStore() }).request('/audit')).text();
    assert.match(page, /No requests yet/);
  });

  it('sends a CSP that allows only its own script, and no caching', async () => {
    const response = await testApp({ store: fixtureStore() }).request('/audit');
    const csp = response.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'sha256-[A-Za-z0-9+/=]+'/);
    assert.equal(response.headers.get('cache-control'), 'no-store');
  });
});

describe('GET /audit/:id', () => {
  it('shows the reply limit that was forwarded when the client asked for one', async () => {
    const base = makeSnapshot({ id: 'd2' });
    const snapshot = { ...base, budget: { ...(base.budget as NonNullable<typeof base.budget>), outputLimit: 16081 } };
    const page = await (await testApp({ store: memoryAuditStore([snapshot]) }).request('/audit/d2')).text();
    assert.match(page, /Reply limit 16,081/);
    assert.doesNotMatch(page, /Reply reserve/);
  });

  it('shows each forwarded message in order, the context folded per source, and the report', async () => {
    const snapshot = makeSnapshot({ id: 'd1', warnings: ['git.diff trimmed to 3000 tokens'] });
    const page = await (await testApp({ store: memoryAuditStore([snapshot]) }).request('/audit/d1')).text();
    const roles = [...page.matchAll(/<section class="msg" data-role="([a-z]+)" data-index="(\d+)"/g)];
    assert.deepEqual(
      roles.map((match) => match[1]),
      ['system', 'system', 'user'],
    );
    const sources = [...page.matchAll(/<details class="ctx" data-source="([^"]+)"/g)].map((match) => match[1]);
    assert.deepEqual(sources, ['instructions.project', 'git.status', 'files.src/config.ts']);
    assert.match(page, /source git: 2 items, 1,200 chars, 310 tokens/);
    assert.match(
      page,
      /<mark class="redacted" title="Masked by rule aws-access-key-id">\[REDACTED:aws-access-key-id\]<\/mark>/,
    );
    assert.match(page, /trimmed: git\.diff/);
    assert.match(page, /skipped <span class="mono">\.env<\/span>: never-read/);
    assert.match(page, /class="seg-context" style="width:19\.53%"/);
    assert.match(page, /Reply reserve 4,096/);
    assert.match(page, /Move the call below `loadConfig\(\)`/);
    assert.match(page, /Finish reason: stop/);
    assert.match(page, /first token 420 ms/);
    assert.match(page, /git\.diff trimmed to 3000 tokens/);
  });

  it('shows the downgrade, the error and the outcome of a failed request', async () => {
    const page = await (await testApp({ store: fixtureStore() }).request('/audit/a3')).text();
    assert.match(page, /deep → <strong>quick<\/strong>/);
    assert.match(page, /Downgraded: conversation plus context exceeded 80% of the window/);
    const failed = await (await testApp({ store: fixtureStore() }).request('/audit/a2')).text();
    assert.match(failed, /Error 502 upstream_error \(upstream_unavailable\):<\/strong> Ollama is not running\./);
  });

  it('answers an unknown id with a 404 page', async () => {
    const response = await testApp({ store: fixtureStore() }).request('/audit/nope');
    assert.equal(response.status, 404);
    assert.match(await response.text(), /There is no request with id nope\./);
  });
});

describe('/api/audit', () => {
  it('lists summaries with a cursor', async () => {
    const store = memoryAuditStore(Array.from({ length: 3 }, (_, i) => makeSnapshot({ id: `j${i}` })));
    const app = testApp({ store });
    const first = (await (await app.request('/api/audit/snapshots?limit=2')).json()) as {
      data: { id: string }[];
      next_cursor: string | null;
    };
    assert.deepEqual(
      first.data.map((row) => row.id),
      ['j2', 'j1'],
    );
    assert.equal(first.next_cursor, 'j1');
    const second = (await (await app.request('/api/audit/snapshots?limit=2&before=j1')).json()) as typeof first;
    assert.deepEqual(
      second.data.map((row) => row.id),
      ['j0'],
    );
    assert.equal(second.next_cursor, null);
  });

  it('filters by since/until as epoch ms or ISO dates', async () => {
    const early = makeSnapshot({ id: 't-early', createdAt: Date.UTC(2026, 0, 1) });
    const late = makeSnapshot({ id: 't-late', createdAt: Date.UTC(2026, 5, 1) });
    const app = testApp({ store: memoryAuditStore([early, late]) });
    const ids = async (query: string) =>
      ((await (await app.request(`/api/audit/snapshots?${query}`)).json()) as { data: { id: string }[] }).data.map(
        (row) => row.id,
      );
    assert.deepEqual(await ids(`since=${Date.UTC(2026, 2, 1)}`), ['t-late']);
    assert.deepEqual(await ids('until=2026-03-01T00:00:00Z'), ['t-early']);
    assert.deepEqual(await ids('text=crash&outcome=ok'), ['t-late', 't-early']);
  });

  it('rejects a bad filter with 400 in OpenAI’s error shape', async () => {
    const response = await testApp({ store: fixtureStore() }).request('/api/audit/snapshots?limit=0&since=soon');
    assert.equal(response.status, 400);
    const body = (await response.json()) as { error: { type: string; code: string; message: string } };
    assert.equal(body.error.type, 'invalid_request_error');
    assert.equal(body.error.code, 'invalid_filter');
    assert.match(body.error.message, /limit must be an integer from 1 to 200; since must be/);
  });

  it('returns one snapshot as JSON, and 404 snapshot_not_found for an unknown id', async () => {
    const snapshot = makeSnapshot({ id: 'x1' });
    const app = testApp({ store: memoryAuditStore([snapshot]) });
    const found = await app.request('/api/audit/snapshots/x1');
    assert.equal(found.status, 200);
    assert.deepEqual(await found.json(), snapshot);
    const missing = await app.request('/api/audit/snapshots/x2');
    assert.equal(missing.status, 404);
    const body = (await missing.json()) as { error: { code: string; type: string } };
    assert.equal(body.error.code, 'snapshot_not_found');
  });
});

describe('GET /audit/conversations/:id', () => {
  it('steps through the turns and shows what changed in the context and the messages', async () => {
    const store = memoryAuditStore(conversationOf('conv-1', 4));
    const app = testApp({ store, conversation: store.conversation });
    const second = await (await app.request('/audit/conversations/conv-1?turn=2')).text();
    assert.match(second, /Turn 2 of 4/);
    assert.match(second, /rel="prev"/);
    assert.match(second, /href="\/audit\/conversations\/conv-1\?turn=3" rel="next"/);
    assert.match(second, /Context block <span class="small muted">unchanged/);
    assert.match(second, /<div class="add">\+ Turn 2: what next\?<\/div>/);

    const third = await (await app.request('/audit/conversations/conv-1?turn=3')).text();
    assert.match(third, /Context block <span class="small muted">\+1 −1 lines/);
    assert.match(third, /<div class="remove">- M src\/stable\.ts<\/div>/);
    assert.match(third, /<div class="add">\+ M src\/changed\.ts<\/div>/);

    const first = await (await app.request('/audit/conversations/conv-1')).text();
    assert.match(first, /Turn 1 of 4/);
    assert.match(first, /nothing to compare with/);
    assert.doesNotMatch(first, /rel="prev"/);
  });

  it('finds the turns by scanning the log when the store offers no conversation index', async () => {
    const turns = conversationOf('conv-2', 3);
    const store = memoryAuditStore([...turns, makeSnapshot({ id: 'other', conversationId: 'conv-9' })]);
    const app = testApp({ store });
    const page = await (await app.request(`/audit/conversations/conv-2?at=${turns[2]?.id}`)).text();
    assert.match(page, /Turn 3 of 3/);
    assert.ok(store.gets >= 4, 'each snapshot was read to learn its conversation');
  });

  it('answers an unknown conversation with a 404 page', async () => {
    const response = await testApp({ store: fixtureStore() }).request('/audit/conversations/none');
    assert.equal(response.status, 404);
  });

  it('is linked from a snapshot that belongs to a conversation', async () => {
    const [turn] = conversationOf('conv-3', 1);
    const page = await (await testApp({ store: memoryAuditStore([turn!]) }).request(`/audit/${turn?.id}`)).text();
    assert.match(page, new RegExp(`href="/audit/conversations/conv-3\\?at=${turn?.id}"`));
  });
});

describe('GET /audit/:id, why this context', () => {
  it('a snapshot written before items were recorded one by one still lists its items, saying so', async () => {
    const old = makeSnapshot({ id: 'old1' });
    old.budget = {
      window: 8192,
      usable: 5120,
      reserve: 1024,
      conversationTokens: 30,
      contextTokens: 60,
      perEntry: [],
      parts: [
        {
          kind: 'block',
          message: 1,
          carried: false,
          fromTurn: 1,
          chars: 200,
          tokens: 60,
          sources: [{ source: 'git', keys: ['git.status', 'git.log'], chars: 150, tokens: 50 }],
        },
      ],
    };
    const page = await (await testApp({ store: memoryAuditStore([old]) }).request('/audit/old1')).text();
    assert.match(page, /Why this context/);
    for (const key of ['git.status', 'git.log']) {
      const row = page.slice(page.indexOf(`data-item="${key}"`));
      assert.match(row.slice(0, 800), /not recorded: this snapshot is older than the why column/);
    }
    assert.doesNotMatch(page, /No context items/);
  });
});
