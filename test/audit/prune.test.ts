import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { openAuditStore } from '../../src/audit/store.ts';
import type { AuditStoreFull } from '../../src/audit/types.ts';
import { contextBlock, makeSnapshot, type TempDir, tempDir } from './fixtures.ts';

const DAY = 86_400_000;
const NOW = 1_800_000_000_000;

describe('audit prune', () => {
  let temp: TempDir;
  let store: AuditStoreFull;
  beforeEach(() => {
    temp = tempDir();
    store = openAuditStore({ path: temp.path(), now: () => NOW });
  });
  afterEach(async () => {
    await store.close();
    temp.cleanup();
  });

  /** 40 old snapshots (each with its own 32 KB block) and 10 recent ones sharing one block. */
  async function fill(): Promise<void> {
    for (let i = 0; i < 40; i++) {
      store.save(
        makeSnapshot({
          id: `old-${i}`,
          createdAt: NOW - 60 * DAY + i,
          contextBlock: contextBlock(32_000, `old ${i}`),
          conversationId: 'old',
        }),
      );
    }
    const shared = contextBlock(32_000, 'recent');
    for (let i = 0; i < 10; i++) {
      store.save(
        makeSnapshot({ id: `new-${i}`, createdAt: NOW - DAY + i, contextBlock: shared, conversationId: 'new' }),
      );
    }
    await store.flush();
  }

  it('deletes snapshots older than the cutoff, their blocks and conversations, then shrinks the file', async () => {
    await fill();
    assert.equal(store.stats().blobs, 41);
    const result = store.prune({ olderThanMs: 30 * DAY });
    assert.equal(result.deleted, 40);
    const stats = store.stats();
    assert.equal(stats.snapshots, 10);
    assert.equal(stats.blobs, 1, 'only the block still referenced is kept');
    assert.equal(stats.conversations, 1);
    assert.equal(store.get('old-0'), undefined);
    assert.equal(store.get('new-0')?.contextBlock, contextBlock(32_000, 'recent'));
    const found = store.search('module').map((s) => s.id);
    assert.equal(found.length, 10, 'the search index lost the deleted rows');
    assert.ok(found.every((id) => id.startsWith('new-')));
    assert.ok(result.bytesBefore > 1_000_000, `before: ${result.bytesBefore}`);
    assert.ok(result.bytesAfter < result.bytesBefore / 4, `VACUUM shrank the file: ${result.bytesAfter}`);
    assert.equal(stats.fileBytes, result.bytesAfter);
  });

  it('deletes the oldest until the database is under a size cap', async () => {
    await fill();
    const cap = 600_000;
    const result = store.prune({ maxBytes: cap });
    assert.ok(result.deleted > 0 && result.deleted < 50, `deleted ${result.deleted}`);
    assert.ok(result.bytesAfter <= cap, `after: ${result.bytesAfter}`);
    const remaining = store.list({ limit: 100 }).map((s) => s.id);
    assert.equal(remaining.length, 50 - result.deleted);
    assert.ok(remaining.includes('new-0'), 'the newest are kept');
    assert.ok(!remaining.includes('old-0'), 'the oldest go first');
  });

  it('keeps everything when nothing is old enough', async () => {
    await fill();
    const result = store.prune({ olderThanMs: 90 * DAY });
    assert.equal(result.deleted, 0);
    assert.equal(store.stats().snapshots, 50);
  });
});
