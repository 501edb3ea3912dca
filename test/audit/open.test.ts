import assert from 'node:assert/strict';
import { chmodSync, existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { openAuditStore } from '../../src/audit/store.ts';
import { AuditStoreOpenError } from '../../src/audit/types.ts';
import type { Logger } from '../../src/shared/ports.ts';
import { until } from '../support/poll.ts';
import { makeSnapshot, type TempDir, tempDir } from './fixtures.ts';
import { openRaw, queryRaw } from './rawDatabase.ts';

const mode = (path: string) => statSync(path).mode & 0o777;

function recordingLogger(): Logger & { events: string[] } {
  const events: string[] = [];
  return {
    events,
    info: (event) => events.push(event),
    warn: (event) => events.push(event),
    error: (event) => events.push(event),
  };
}

describe('opening the audit database', () => {
  let temp: TempDir;
  beforeEach(() => {
    temp = tempDir();
  });
  afterEach(() => temp.cleanup());

  it('creates the folder and a file only its owner can read, WAL files included', async () => {
    const path = join(temp.dir, 'nested', '.ctxproxy', 'audit.db');
    const store = openAuditStore({ path });
    store.save(makeSnapshot());
    await store.flush();
    assert.equal(mode(path), 0o600);
    assert.ok(existsSync(`${path}-wal`), 'WAL mode is on');
    assert.equal(mode(`${path}-wal`), 0o600);
    assert.equal(mode(join(temp.dir, 'nested', '.ctxproxy')), 0o700);
    await store.close();
  });

  it('tightens an existing file that others can read', async () => {
    const first = openAuditStore({ path: temp.path() });
    await first.close();
    chmodSync(temp.path(), 0o644);
    const logger = recordingLogger();
    const store = openAuditStore({ path: temp.path(), logger });
    await store.close();
    assert.equal(mode(temp.path()), 0o600);
    assert.ok(logger.events.includes('audit.db_mode_tightened'));
  });

  it('turns a file that is not a database into one clear error at open', () => {
    writeFileSync(temp.path(), 'this is not a database, just some garbage bytes '.repeat(200), { mode: 0o600 });
    const logger = recordingLogger();
    assert.throws(
      () => openAuditStore({ path: temp.path(), logger }),
      (error: unknown) => {
        assert.ok(error instanceof AuditStoreOpenError);
        assert.equal(error.reason, 'corrupt');
        assert.ok(error.message.includes(temp.path()), 'names the file');
        assert.match(error.message, /not a readable SQLite database/);
        assert.match(error.message, /Move it aside .* or pass --db/);
        return true;
      },
    );
    assert.deepEqual(logger.events, ['audit.open_failed']);
  });

  it('says so when the path is a folder', () => {
    assert.throws(
      () => openAuditStore({ path: temp.dir }),
      (error: unknown) =>
        error instanceof AuditStoreOpenError &&
        error.reason === 'cannot-open' &&
        error.message.startsWith(`audit database ${temp.dir} cannot be opened`),
    );
  });

  it('turns a database another process holds locked into one clear error at open', () => {
    const setup = openAuditStore({ path: temp.path() });
    void setup.close();
    const holder = openRaw(temp.path());
    holder.pragma('journal_mode', 'WAL');
    holder.exec('BEGIN IMMEDIATE');
    try {
      assert.throws(
        () => openAuditStore({ path: temp.path(), busyTimeoutMs: 50 }),
        (error: unknown) => {
          assert.ok(error instanceof AuditStoreOpenError);
          assert.equal(error.reason, 'locked');
          assert.ok(error.message.includes(temp.path()));
          assert.match(error.message, /locked by another process/);
          return true;
        },
      );
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    const store = openAuditStore({ path: temp.path() });
    void store.close();
  });

  it('keeps snapshots queued while another process holds the lock, and writes them once it lets go', async () => {
    const logger = recordingLogger();
    const store = openAuditStore({ path: temp.path(), logger });
    const holder = openRaw(temp.path());
    holder.exec('BEGIN IMMEDIATE');
    const snapshot = makeSnapshot({ id: 'waited' });
    try {
      store.save(snapshot);
      await until(() => logger.events.includes('audit.degraded'), 'the first try to meet the lock');
      assert.deepEqual(store.health(), { writable: false, queued: 1, dropped: 0, reason: 'database locked' });
      assert.deepStrictEqual(store.get('waited'), snapshot, 'and still readable');
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    await until(() => store.stats().queued === 0, 'the retry to write it');
    assert.ok(logger.events.includes('audit.recovered'));
    assert.equal(store.health().writable, true);
    assert.ok(!logger.events.includes('audit.write_failed'));
    await store.close();
    const [row] = queryRaw(temp.path(), "SELECT count(*) AS n FROM snapshots WHERE id = 'waited'");
    assert.equal(row?.n, 1);
  });

  it('lets a reader (the CLI) open while another connection (the server) is idle', async () => {
    const server = openAuditStore({ path: temp.path() });
    server.save(makeSnapshot({ id: 'from-server' }));
    await server.flush();
    const cli = openAuditStore({ path: temp.path() });
    assert.equal(cli.get('from-server')?.id, 'from-server');
    await cli.close();
    await server.close();
  });
});
