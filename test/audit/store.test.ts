import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { openAuditStore } from '../../src/audit/store.ts';
import type { AuditStoreFull } from '../../src/audit/types.ts';
import type { ChatMessage, Snapshot } from '../../src/shared/types.ts';
import { until } from '../support/poll.ts';
import { contextBlock, makeSnapshot, type TempDir, tempDir } from './fixtures.ts';
import { queryRaw } from './rawDatabase.ts';

/** Counts rows with a separate connection: what is really in the file. */
function countRows(path: string, table: string): number {
  return Number(queryRaw(path, `SELECT count(*) AS n FROM ${table}`)[0]?.n);
}

describe('audit store', () => {
  let temp: TempDir;
  let store: AuditStoreFull;
  beforeEach(() => {
    temp = tempDir();
    store = openAuditStore({ path: temp.path() });
  });
  afterEach(async () => {
    await store.close();
    temp.cleanup();
  });

  it('returns a saved snapshot exactly as it was saved, after flush', async () => {
    const snapshot = makeSnapshot();
    store.save(snapshot);
    await store.flush();
    assert.deepStrictEqual(store.get(snapshot.id), snapshot);
  });

  it('round-trips the sparse shape too: no optional fields, an error with a null code, content parts', async () => {
    const sparse: Snapshot = {
      id: 'sparse-1',
      requestId: 'r',
      createdAt: 5,
      model: 'llama3',
      modeAsked: 'off',
      modeUsed: 'off',
      workspace: '/w',
      stream: false,
      forwarded: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'look' },
            { type: 'image_url', image_url: 'data:x' },
          ],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 't1', type: 'function', function: { name: 'f', arguments: '{}' } }],
        },
        { role: 'tool', content: 'ok', tool_call_id: 't1' },
      ],
      sources: [],
      redactions: {},
      reply: { content: '' },
      timings: { totalMs: 3 },
      outcome: 'error',
      error: { status: 502, type: 'upstream_error', code: null, message: 'Ollama is not running' },
      warnings: [],
    };
    store.save(sparse);
    await store.flush();
    assert.deepStrictEqual(store.get(sparse.id), sparse);
  });

  it('puts the context block back inside a message that holds it with other text', async () => {
    const block = contextBlock(2000);
    const snapshot = makeSnapshot({
      contextBlock: block,
      forwarded: [
        { role: 'system', content: `You are helpful.\n\n${block}\n\nAnswer briefly.` },
        {
          role: 'user',
          content: [
            { type: 'text', text: block },
            { type: 'text', text: 'and this?' },
          ],
        },
      ],
    });
    store.save(snapshot);
    await store.flush();
    assert.deepStrictEqual(store.get(snapshot.id), snapshot);
    const [row] = queryRaw(temp.path(), 'SELECT forwarded_json FROM snapshots WHERE id = ?', snapshot.id);
    assert.ok(
      !String(row?.forwarded_json).includes(block),
      'the stored messages refer to the block instead of repeating it',
    );
  });

  it('reads queued snapshots before they are flushed (the id given to the client works at once)', () => {
    const snapshot = makeSnapshot();
    store.save(snapshot);
    assert.equal(store.stats().queued, 1);
    assert.deepStrictEqual(store.get(snapshot.id), snapshot);
  });

  it('writes on its own off the caller path (a moment later), without flush', async () => {
    const snapshot = makeSnapshot();
    store.save(snapshot);
    assert.equal(countRows(temp.path(), 'snapshots'), 0, 'save() itself did not write');
    await until(() => countRows(temp.path(), 'snapshots') === 1, 'the queued snapshot to be written');
  });

  it('close() writes what is queued', async () => {
    const snapshots = [makeSnapshot(), makeSnapshot(), makeSnapshot()];
    for (const snapshot of snapshots) store.save(snapshot);
    await store.close();
    assert.equal(countRows(temp.path(), 'snapshots'), 3);
    store = openAuditStore({ path: temp.path() });
    assert.deepStrictEqual(store.get(snapshots[2]?.id ?? ''), snapshots[2]);
  });

  it('stores a context block repeated over 100 saves once', async () => {
    const block = contextBlock(32_000);
    for (let turn = 0; turn < 100; turn++) store.save(makeSnapshot({ contextBlock: block, conversationId: 'long' }));
    await store.flush();
    assert.equal(countRows(temp.path(), 'snapshots'), 100);
    assert.equal(countRows(temp.path(), 'blobs'), 1);
    store.save(makeSnapshot({ contextBlock: contextBlock(32_000, 'changed') }));
    await store.flush();
    assert.equal(countRows(temp.path(), 'blobs'), 2);
    const [conversation] = store.conversation('long');
    assert.equal(store.conversation('long').length, 100);
    assert.ok(conversation);
  });

  it('stores each message of a growing conversation once, and reads every turn back exactly', async () => {
    const block = contextBlock(8000);
    const history: ChatMessage[] = [];
    const saved: Snapshot[] = [];
    for (let turn = 0; turn < 30; turn++) {
      history.push({ role: 'user', content: `turn ${turn}: short question` });
      const snapshot = makeSnapshot({
        contextBlock: block,
        forwarded: [{ role: 'system', content: block }, ...history],
      });
      saved.push(snapshot);
      store.save(snapshot);
      history.push({ role: 'assistant', content: `answer ${turn} `.repeat(100) });
    }
    // A second conversation with the same system block shares only that first node.
    const other = makeSnapshot({
      contextBlock: block,
      forwarded: [
        { role: 'system', content: block },
        { role: 'user', content: 'new topic' },
      ],
    });
    store.save(other);
    await store.flush();
    assert.equal(countRows(temp.path(), 'blobs'), 1);
    // The block's node, 30 questions, the 29 answers forwarded again, and the other conversation's question.
    assert.equal(countRows(temp.path(), 'message_nodes'), 1 + 30 + 29 + 1);
    for (const snapshot of [...saved, other]) assert.deepStrictEqual(store.get(snapshot.id), snapshot);

    store.prune({ olderThanMs: Date.now() - (saved[9]?.createdAt ?? 0) });
    assert.equal(store.get(saved[0]?.id ?? ''), undefined);
    assert.deepStrictEqual(
      store.get(saved[29]?.id ?? ''),
      saved[29],
      'later turns still read back after earlier ones go',
    );
    store.prune({ olderThanMs: 0 });
    assert.equal(countRows(temp.path(), 'message_nodes'), 0, 'prune drops nodes nothing reaches');
    assert.equal(countRows(temp.path(), 'blobs'), 0);
  });

  it('replaces a snapshot saved twice under the same id', async () => {
    const first = makeSnapshot({ reply: { content: 'partial' } });
    store.save(first);
    await store.flush();
    const second = { ...first, reply: { content: 'complete answer' } };
    store.save(second);
    await store.flush();
    assert.deepStrictEqual(store.get(first.id), second);
    assert.equal(store.list({}).length, 1);
    assert.equal(store.search('partial').length, 0);
    assert.equal(store.search('complete').length, 1);
    assert.equal(store.stats().conversations, 1);
    assert.equal(countRows(temp.path(), 'conversations'), 1);
  });

  it('keeps conversations (first seen, last seen, turns)', async () => {
    store.save(makeSnapshot({ conversationId: 'c', createdAt: 100 }));
    store.save(makeSnapshot({ conversationId: 'c', createdAt: 300 }));
    store.save(makeSnapshot({ conversationId: 'c', createdAt: 200 }));
    await store.flush();
    const [row] = queryRaw(temp.path(), 'SELECT first_seen, last_seen, turns FROM conversations WHERE id = ?', 'c');
    assert.deepEqual(row, { first_seen: 100, last_seen: 300, turns: 3 });
    assert.deepEqual(
      store.conversation('c').map((summary) => summary.createdAt),
      [100, 200, 300],
    );
  });

  it('exports everything since a time, oldest first, across pages', async () => {
    const saved: Snapshot[] = [];
    for (let i = 0; i < 250; i++) {
      const snapshot = makeSnapshot({
        createdAt: 10_000 + i,
        contextBlock: undefined,
        forwarded: [{ role: 'user', content: `q${i}` }],
      });
      saved.push(snapshot);
      store.save(snapshot);
    }
    const all = [...store.export()];
    assert.equal(all.length, 250);
    assert.deepStrictEqual(all[0], saved[0]);
    const recent = [...store.export({ since: 10_200 })];
    assert.deepEqual(
      recent.map((snapshot) => snapshot.createdAt),
      saved.slice(200).map((snapshot) => snapshot.createdAt),
    );
  });

  it('keeps each model’s calibration ratio, the latest value winning', () => {
    assert.equal(store.getCalibration('m'), undefined);
    store.saveCalibration('m', { ratio: 1.1, samples: 1 });
    const second = store.saveCalibration('m', { ratio: 1.2, samples: 2 });
    assert.equal(second.samples, 2);
    assert.deepStrictEqual(store.getCalibration('m'), second);
    assert.equal(store.getCalibration('other'), undefined);
  });

  it('drops only the snapshot that cannot be written, not the rest of its batch', async () => {
    const good = [makeSnapshot(), makeSnapshot()];
    // A snapshot that breaks the schema (a pipeline bug): model is NOT NULL.
    const bad = { ...makeSnapshot(), model: null } as unknown as Snapshot;
    store.save(good[0] as Snapshot);
    store.save(bad);
    store.save(good[1] as Snapshot);
    await store.flush();
    assert.deepStrictEqual(store.get(good[0]?.id ?? ''), good[0]);
    assert.deepStrictEqual(store.get(good[1]?.id ?? ''), good[1]);
    assert.equal(store.get(bad.id), undefined);
    assert.equal(store.stats().queued, 0);
    assert.deepEqual(store.health(), { writable: true, queued: 0, dropped: 1 }, 'the dropped one is counted');
  });

  it('refuses calls after close with a clear error', async () => {
    await store.close();
    assert.throws(() => store.save(makeSnapshot()), /audit store .* is closed/);
    store = openAuditStore({ path: temp.path() });
  });
});
