import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { chooseSqlDriver } from '../../src/audit/defaultDriver.ts';
import { DEFAULT_MIGRATIONS_DIR, readMigrations, runMigrations } from '../../src/audit/migrate.ts';
import { INSERT_SNAPSHOT, snapshotValues } from '../../src/audit/snapshotRow.ts';
import { openAuditStore } from '../../src/audit/store.ts';
import { AuditStoreOpenError } from '../../src/audit/types.ts';
import type { Snapshot } from '../../src/shared/types.ts';
import { makeSnapshot, type TempDir, tempDir } from './fixtures.ts';
import { openRaw, queryRaw } from './rawDatabase.ts';

function recorded(path: string): { version: number; name: string }[] {
  return queryRaw(path, 'SELECT version, name FROM schema_migrations ORDER BY version') as {
    version: number;
    name: string;
  }[];
}

describe('migrations', () => {
  let temp: TempDir;
  beforeEach(() => {
    temp = tempDir();
  });
  afterEach(() => temp.cleanup());

  it('reads the repository migrations in order', () => {
    const migrations = readMigrations();
    assert.deepEqual(
      migrations.map((m) => `${m.version}_${m.name}`),
      [
        '1_init',
        '2_search',
        '3_calibration',
        '4_message_chains',
        '5_in_flight',
        '6_in_flight_unindexed',
        '7_application_id',
        '8_search_context',
        '9_in_flight_table',
      ],
    );
  });

  it('applies every migration to a fresh database and records each', async () => {
    const store = openAuditStore({ path: temp.path(), now: () => 42 });
    assert.equal(store.stats().schemaVersion, 9);
    await store.close();
    assert.deepEqual(recorded(temp.path()), [
      { version: 1, name: 'init' },
      { version: 2, name: 'search' },
      { version: 3, name: 'calibration' },
      { version: 4, name: 'message_chains' },
      { version: 5, name: 'in_flight' },
      { version: 6, name: 'in_flight_unindexed' },
      { version: 7, name: 'application_id' },
      { version: 8, name: 'search_context' },
      { version: 9, name: 'in_flight_table' },
    ]);
    const again = openAuditStore({ path: temp.path() });
    await again.close();
    assert.equal(recorded(temp.path()).length, 9, 'reopening applies nothing twice');
  });

  it('brings an old database up to date and keeps (and indexes) its rows', async () => {
    // A database written by a ctxproxy that only had 0001: one snapshot inserted by hand.
    const oldDir = join(temp.dir, 'old-migrations');
    mkdirSync(oldDir);
    copyFileSync(join(DEFAULT_MIGRATIONS_DIR, '0001_init.sql'), join(oldDir, '0001_init.sql'));
    const driver = chooseSqlDriver().open(temp.path(), { busyTimeoutMs: 100 });
    assert.deepEqual(runMigrations(driver, { dir: oldDir }), { applied: [1], version: 1 });
    driver.prepare("INSERT INTO blobs (sha256, text, bytes, created_at) VALUES ('k1', 'OLD BLOCK', 9, 1)").run();
    driver
      .prepare(
        `INSERT INTO snapshots (id, request_id, created_at, model, mode_asked, mode_used, workspace, stream, outcome,
          total_ms, question, warnings_json, sources_json, redactions_json, reply_json, forwarded_json, context_sha256)
         VALUES ('old-1', 'r', 1, 'm', 'auto', 'quick', '/w', 0, 'ok', 5, 'legacy question', '[]', '[]', '{}',
          '{"content":"legacy answer"}', '[{"role":"system","content":{"$blob":"k1"}},{"role":"user","content":"legacy question"}]', 'k1')`,
      )
      .run();
    driver.close();

    const store = openAuditStore({ path: temp.path(), now: () => 1000 });
    try {
      assert.equal(store.stats().schemaVersion, 9);
      assert.equal(store.get('old-1')?.reply.content, 'legacy answer');
      assert.equal(store.get('old-1')?.contextBlock, 'OLD BLOCK');
      assert.equal(store.get('old-1')?.forwarded[0]?.content, 'OLD BLOCK');
      store.prune({ olderThanMs: 999 });
      assert.equal(store.stats().blobs, 1, 'the old block is still known to be in use');
      assert.deepEqual(
        store.search('legacy answer').map((s) => s.id),
        ['old-1'],
      );
      store.saveCalibration('m', { ratio: 1.2, samples: 1 });
      store.save(makeSnapshot());
      await store.flush();
      assert.equal(store.stats().snapshots, 2);
    } finally {
      await store.close();
    }
  });

  it('0008 indexes the names of the context items that rows written before it sent', async () => {
    const before8 = join(temp.dir, 'before-0008');
    mkdirSync(before8);
    for (const migration of readMigrations().filter((m) => m.version < 8)) {
      const file = `${String(migration.version).padStart(4, '0')}_${migration.name}.sql`;
      copyFileSync(join(DEFAULT_MIGRATIONS_DIR, file), join(before8, file));
    }
    // Rows as a version before 0008 wrote them (the store itself needs the tables of every migration).
    const old = chooseSqlDriver().open(temp.path(), { busyTimeoutMs: 100 });
    runMigrations(old, { dir: before8 });
    const save = (snapshot: Snapshot) =>
      old.prepare(INSERT_SNAPSHOT).run(
        ...snapshotValues(snapshot, {
          contextKey: undefined,
          chain: undefined,
          forwardedJson: JSON.stringify(snapshot.forwarded),
        }),
      );
    const sent = makeSnapshot({ id: 'sent-config' });
    sent.budget = {
      window: 8192,
      usable: 5120,
      reserve: 1024,
      conversationTokens: 20,
      contextTokens: 40,
      perEntry: [],
      parts: [
        {
          kind: 'block',
          message: 1,
          carried: false,
          fromTurn: 1,
          chars: 160,
          tokens: 40,
          sources: [{ source: 'files', keys: ['files.named.src/config.ts'], chars: 120, tokens: 30 }],
        },
      ],
    };
    save(sent);
    save(makeSnapshot({ id: 'sent-nothing' }));
    old.close();
    assert.equal(recorded(temp.path()).at(-1)?.version, 7);

    const store = openAuditStore({ path: temp.path() });
    try {
      assert.equal(store.stats().schemaVersion, 9);
      assert.deepEqual(
        store.search('config.ts').map((s) => s.id),
        ['sent-config'],
      );
    } finally {
      await store.close();
    }
  });

  it('applies a new numbered file on the next open', async () => {
    const dir = join(temp.dir, 'migrations');
    mkdirSync(dir);
    for (const migration of readMigrations()) {
      const file = `${String(migration.version).padStart(4, '0')}_${migration.name}.sql`;
      copyFileSync(join(DEFAULT_MIGRATIONS_DIR, file), join(dir, file));
    }
    const first = openAuditStore({ path: temp.path(), migrationsDir: dir });
    await first.close();
    writeFileSync(join(dir, '0099_tags.sql'), 'CREATE TABLE tags (snapshot_id TEXT NOT NULL, tag TEXT NOT NULL);');
    writeFileSync(join(dir, 'README.md'), 'not a migration');
    const second = openAuditStore({ path: temp.path(), migrationsDir: dir });
    assert.equal(second.stats().schemaVersion, 99);
    await second.close();
    assert.deepEqual(recorded(temp.path()).at(-1), { version: 99, name: 'tags' });
  });

  it('rolls back a failing migration and reports it', async () => {
    const dir = join(temp.dir, 'broken');
    mkdirSync(dir);
    copyFileSync(join(DEFAULT_MIGRATIONS_DIR, '0001_init.sql'), join(dir, '0001_init.sql'));
    writeFileSync(join(dir, '0002_broken.sql'), 'CREATE TABLE half (x); THIS IS NOT SQL;');
    assert.throws(
      () => openAuditStore({ path: temp.path(), migrationsDir: dir }),
      (error: unknown) => error instanceof AuditStoreOpenError && error.reason === 'migration',
    );
    const [half] = queryRaw(temp.path(), "SELECT count(*) AS n FROM sqlite_master WHERE name = 'half'");
    assert.equal(half?.n, 0, 'the failed step left nothing behind');
    assert.deepEqual(recorded(temp.path()), [{ version: 1, name: 'init' }]);
  });

  it('refuses a database written by a newer ctxproxy, and leaves it untouched', async () => {
    const store = openAuditStore({ path: temp.path() });
    await store.close();
    const db = openRaw(temp.path());
    db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (99, 'future', 0)").run();
    db.close();
    assert.throws(
      () => openAuditStore({ path: temp.path() }),
      (error: unknown) => {
        assert.ok(error instanceof AuditStoreOpenError);
        assert.equal(error.reason, 'newer-schema');
        assert.match(
          error.message,
          new RegExp(
            `^audit database ${temp.path().replaceAll('.', '\\.')} was written by a newer ctxproxy \\(schema 99, this version knows 9\\)`,
          ),
        );
        return true;
      },
    );
    assert.equal(recorded(temp.path()).at(-1)?.version, 99);
  });
});
