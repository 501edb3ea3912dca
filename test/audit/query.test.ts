import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ftsQuery } from '../../src/audit/queries.ts';
import { openAuditStore } from '../../src/audit/store.ts';
import type { AuditStoreFull } from '../../src/audit/types.ts';
import type { ModeName, Outcome } from '../../src/shared/types.ts';
import { makeSnapshot, type TempDir, tempDir } from './fixtures.ts';

const MODELS = ['llama3', 'qwen'] as const;
const MODES: ModeName[] = ['quick', 'git-aware', 'debug'];
const OUTCOMES: Outcome[] = ['ok', 'ok', 'error', 'aborted'];

describe('audit list and search', () => {
  let temp: TempDir;
  let store: AuditStoreFull;
  before(async () => {
    temp = tempDir();
    store = openAuditStore({ path: temp.path() });
    // 24 snapshots, one per second; two share a timestamp to exercise the cursor's tie-break.
    for (let i = 0; i < 24; i++) {
      store.save(
        makeSnapshot({
          id: `s${String(i).padStart(2, '0')}`,
          createdAt: 1000 * (i === 13 ? 12 : i),
          model: MODELS[i % 2] ?? 'llama3',
          modeAsked: i % 5 === 0 ? 'debug' : 'auto',
          modeUsed: MODES[i % 3] ?? 'quick',
          outcome: OUTCOMES[i % 4] ?? 'ok',
          forwarded: [{ role: 'user', content: `question number ${i} about ${i % 2 ? 'parsers' : 'the database'}` }],
          reply: { content: i === 7 ? 'use "NEAR(a b)" AND -flag: with col:value * everywhere' : `reply ${i}` },
        }),
      );
    }
    store.save(
      makeSnapshot({
        id: 'secret-ctx',
        createdAt: 50_000,
        forwarded: [{ role: 'user', content: 'what about café\n<context source="files.x">zebrafish</context>' }],
      }),
    );
    await store.flush();
  });
  after(async () => {
    await store.close();
    temp.cleanup();
  });

  it('lists newest first with a limit', () => {
    const ids = store.list({ limit: 4 }).map((summary) => summary.id);
    assert.deepEqual(ids, ['secret-ctx', 's23', 's22', 's21']);
  });

  it('pages with `before` through every snapshot exactly once, ties included', () => {
    const seen: string[] = [];
    let before: string | undefined;
    for (;;) {
      const page = store.list({ limit: 5, before });
      if (page.length === 0) break;
      seen.push(...page.map((summary) => summary.id));
      before = page.at(-1)?.id;
    }
    assert.equal(seen.length, 25);
    assert.equal(new Set(seen).size, 25);
    // s13 and s12 share created_at; the later insert (s13) comes first.
    assert.ok(seen.indexOf('s13') < seen.indexOf('s12'));
    assert.deepEqual(store.list({ before: 'no-such-id' }), []);
  });

  it('filters by model, mode (used or asked), outcome, since and until', () => {
    const all = store.list({ limit: 100 });
    const byModel = store.list({ model: 'qwen', limit: 100 });
    assert.deepEqual(
      byModel.map((s) => s.id),
      all.filter((s) => s.model === 'qwen').map((s) => s.id),
    );
    assert.ok(byModel.length > 0);
    const debug = store.list({ mode: 'debug', limit: 100 });
    assert.deepEqual(
      debug.map((s) => s.id),
      all.filter((s) => s.modeUsed === 'debug' || s.modeAsked === 'debug').map((s) => s.id),
    );
    const errors = store.list({ outcome: 'error', limit: 100 });
    assert.ok(errors.length > 0 && errors.every((s) => s.outcome === 'error'));
    const window = store.list({ since: 5000, until: 8000, limit: 100 });
    assert.deepEqual(
      window.map((s) => s.id),
      ['s07', 's06', 's05'],
    );
    const combined = store.list({ model: 'llama3', outcome: 'ok', since: 10_000, limit: 100 });
    assert.deepEqual(
      combined.map((s) => s.id),
      all.filter((s) => s.model === 'llama3' && s.outcome === 'ok' && s.createdAt >= 10_000).map((s) => s.id),
    );
  });

  it('filters by text through the full-text index, newest first', () => {
    const ids = store.list({ text: 'parsers', limit: 3 }).map((s) => s.id);
    assert.deepEqual(ids, ['s23', 's21', 's19']);
    assert.deepEqual(
      store.list({ text: 'database reply', model: 'llama3', limit: 2 }).map((s) => s.id),
      ['s22', 's20'],
    );
  });

  it('searches questions and replies, and ignores diacritics', () => {
    assert.deepEqual(
      store.search('number 17').map((s) => s.id),
      ['s17'],
    );
    assert.deepEqual(
      store
        .search('reply 3')
        .map((s) => s.id)
        .sort(),
      ['s03'],
    );
    assert.deepEqual(
      store.search('cafe').map((s) => s.id),
      ['secret-ctx'],
    );
  });

  it('does not index the fenced context attachment as part of the question', () => {
    assert.equal(store.list({ limit: 1 })[0]?.question, 'what about café');
    assert.deepEqual(store.search('zebrafish'), []);
  });

  it('leaves per-turn context-update attachments out of the question', async () => {
    store.save(
      makeSnapshot({
        id: 'with-update',
        createdAt: 60_000,
        forwarded: [
          {
            role: 'user',
            content:
              'why is the build red?\n\nctxproxy: this context changed since the start of the conversation (collected locally, reference data only):\n\n<context-update source="git.diff">\n+ moonwalk\n</context-update>',
          },
        ],
      }),
    );
    assert.equal(store.get('with-update')?.forwarded.length, 1);
    assert.equal(store.list({ limit: 1 })[0]?.question, 'why is the build red?');
    assert.deepEqual(store.search('moonwalk'), []);
  });

  it('never throws on FTS syntax: quotes, operators, stars, columns, parentheses', () => {
    const hostile = [
      '"unclosed',
      'NEAR(a b)',
      'AND',
      'foo OR',
      '-flag',
      'col:value',
      '*',
      '(',
      '"',
      "'; DROP TABLE x",
      'a"b',
    ];
    for (const text of hostile) {
      assert.doesNotThrow(() => store.search(text), text);
      assert.doesNotThrow(() => store.list({ text }), text);
    }
    assert.deepEqual(
      store.search('"NEAR(a b)" AND').map((s) => s.id),
      ['s07'],
      'operators are searched as words',
    );
    assert.deepEqual(
      store.search('col:value').map((s) => s.id),
      ['s07'],
    );
    assert.deepEqual(store.search('*'), [], 'nothing searchable left');
  });

  it('quotes every word for FTS5', () => {
    assert.equal(ftsQuery('say "hi" NEAR'), '"say" """hi""" "NEAR"');
    assert.equal(ftsQuery('  * - ( '), undefined);
  });
});
