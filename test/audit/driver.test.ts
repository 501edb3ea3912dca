// The SqlDriver port, held to the same contract on every driver this runtime
// can load (better-sqlite3 on Node 20; node:sqlite on Deno; both on Node
// 22.5+): result shapes, transactions, pragmas, FTS5, error kinds, and the
// store on top of each. The rest of test/audit runs on the runtime's default.

import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { availableSqlDrivers, chooseSqlDriver, DRIVER_ENV } from '../../src/audit/defaultDriver.ts';
import type { SqlDriver } from '../../src/audit/driver.ts';
import { openAuditStore } from '../../src/audit/store.ts';
import { makeSnapshot, type TempDir, tempDir } from './fixtures.ts';

const onDeno = 'Deno' in globalThis;

describe('choosing the SQLite driver', () => {
  it('uses node:sqlite on Deno and better-sqlite3 on Node, unless told otherwise', () => {
    assert.equal(chooseSqlDriver({ deno: true }).name, 'node:sqlite');
    assert.equal(chooseSqlDriver({ deno: false }).name, 'better-sqlite3');
    assert.equal(chooseSqlDriver({ deno: true, requested: 'better-sqlite3' }).name, 'better-sqlite3');
    assert.equal(chooseSqlDriver({ deno: false, requested: 'node:sqlite' }).name, 'node:sqlite');
    assert.throws(
      () => chooseSqlDriver({ deno: false, requested: 'sqlite3' }),
      new RegExp(`^Error: ${DRIVER_ENV}=sqlite3`),
    );
  });

  it('finds the runtime default among the drivers that really open, and better-sqlite3 only outside Deno', () => {
    const names = availableSqlDrivers().map((driver) => driver.name);
    assert.ok(names.includes(chooseSqlDriver().name), `${chooseSqlDriver().name} in ${names.join(', ')}`);
    assert.equal(names.includes('better-sqlite3'), !onDeno);
  });
});

for (const driver of availableSqlDrivers()) {
  describe(`SqlDriver on ${driver.name}`, () => {
    let temp: TempDir;
    let db: SqlDriver;
    beforeEach(() => {
      temp = tempDir('ctxproxy-driver-');
      db = driver.open(temp.path(), { busyTimeoutMs: 0 });
      db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER, x)');
    });
    afterEach(() => {
      db.close();
      temp.cleanup();
    });
    const count = () => db.prepare('SELECT count(*) AS n FROM t').get()?.n;

    it("caches at most SQLite's own 2 MB of pages (better-sqlite3's build sets 16 MB, held as long as the server runs)", () => {
      // Negative: KiB; positive: pages.
      const size = Number(db.pragma('cache_size'));
      const bytes = size < 0 ? -size * 1024 : size * Number(db.pragma('page_size'));
      assert.ok(bytes > 0 && bytes <= 2 * 1024 * 1024, `cache_size ${size}`);
    });

    it('returns run results, plain rows and values in better-sqlite3 shapes', () => {
      const insert = db.prepare('INSERT INTO t (n, x) VALUES (?, ?)');
      assert.deepStrictEqual(insert.run(7, 'seven'), { changes: 1, lastInsertRowid: 1 });
      assert.deepStrictEqual(insert.run(8n, new Uint8Array([1, 2])), { changes: 1, lastInsertRowid: 2 });
      insert.run(2.5, null);
      const row = db.prepare('SELECT id, n, x, typeof(x) AS kind FROM t WHERE id = ?').get(1);
      assert.equal(Object.getPrototypeOf(row), Object.prototype, 'a plain object, as assert.deepStrictEqual expects');
      assert.deepStrictEqual(row, { id: 1, n: 7, x: 'seven', kind: 'text' });
      const all = db.prepare('SELECT n, typeof(?) AS bound FROM t ORDER BY id').all(3);
      assert.deepStrictEqual(all, [
        { n: 7, bound: 'real' },
        { n: 8, bound: 'real' },
        { n: 2.5, bound: 'real' },
      ]);
      const blob = db.prepare('SELECT x FROM t WHERE id = 2').get()?.x;
      assert.ok(blob instanceof Uint8Array);
      assert.deepEqual([...blob], [1, 2]);
      assert.equal(db.prepare('SELECT * FROM t WHERE id = ?').get(99), undefined);
      assert.deepStrictEqual(db.prepare('UPDATE t SET n = n + 1').run(), { changes: 3, lastInsertRowid: 3 });
    });

    it('does not run a statement that returns no rows when asked for rows', () => {
      const insert = db.prepare('INSERT INTO t (n) VALUES (?)');
      assert.equal(insert.get(1), undefined);
      assert.deepEqual(insert.all(2), []);
      assert.equal(count(), 0);
    });

    it('commits a transaction, rolls back one that throws, and nests as a savepoint', () => {
      assert.equal(
        db.transaction(() => db.prepare('INSERT INTO t (n) VALUES (1)').run().changes),
        1,
      );
      assert.throws(
        () =>
          db.transaction(() => {
            db.prepare('INSERT INTO t (n) VALUES (2)').run();
            throw new Error('abort');
          }),
        /abort/,
      );
      db.transaction(() => {
        db.prepare('INSERT INTO t (n) VALUES (3)').run();
        assert.throws(() =>
          db.transaction(() => {
            db.prepare('INSERT INTO t (n) VALUES (4)').run();
            throw new Error('inner');
          }),
        );
      });
      assert.deepEqual(
        db
          .prepare('SELECT n FROM t ORDER BY n')
          .all()
          .map((row) => row.n),
        [1, 3],
      );
    });

    it('reads and sets pragmas', () => {
      assert.equal(db.pragma('journal_mode', 'WAL'), 'wal');
      assert.equal(db.pragma('busy_timeout', 250), 250);
      assert.equal(db.pragma('busy_timeout'), 250);
      assert.equal(db.pragma('foreign_keys', 'ON'), undefined);
      assert.equal(db.pragma('foreign_keys'), 1);
    });

    it('has FTS5, which the search migration needs', () => {
      db.exec("CREATE VIRTUAL TABLE f USING fts5(body, tokenize = 'unicode61 remove_diacritics 2')");
      db.prepare('INSERT INTO f (body) VALUES (?)').run('the café opens at nine');
      assert.deepEqual(db.prepare('SELECT body FROM f WHERE f MATCH ?').all('"cafe"'), [
        { body: 'the café opens at nine' },
      ]);
    });

    /** Opens and reads the header, closing the connection whatever happens. */
    function openAndRead(path: string): void {
      const connection = driver.open(path, { busyTimeoutMs: 0 });
      try {
        connection.pragma('journal_mode', 'WAL');
      } finally {
        connection.close();
      }
    }

    it('names its errors: not a database, locked, cannot open, read-only, other', () => {
      const junk = temp.path('junk.db');
      writeFileSync(junk, 'not a database '.repeat(400));
      assert.throws(
        () => openAndRead(junk),
        (error) => driver.errorKind(error) === 'corrupt',
      );

      db.pragma('journal_mode', 'WAL');
      const other = driver.open(temp.path(), { busyTimeoutMs: 0 });
      db.exec('BEGIN IMMEDIATE');
      try {
        assert.throws(
          () => other.exec('BEGIN IMMEDIATE'),
          (error) => driver.errorKind(error) === 'busy',
        );
      } finally {
        db.exec('ROLLBACK');
        other.close();
      }

      const folder = join(temp.dir, 'folder.db');
      mkdirSync(folder);
      assert.throws(
        () => openAndRead(folder),
        (error) => driver.errorKind(error) === 'cannot-open',
      );

      const reader = driver.open(temp.path(), { busyTimeoutMs: 0, readOnly: true });
      try {
        assert.equal(reader.prepare('SELECT count(*) AS n FROM t').get()?.n, 0, 'reads work');
        assert.throws(
          () => reader.prepare('INSERT INTO t (n) VALUES (1)').run(),
          (error) => driver.errorKind(error) === 'read-only',
        );
      } finally {
        reader.close();
      }

      assert.throws(
        () => db.exec('SELEKT 1'),
        (error) => driver.errorKind(error) === 'other',
      );
      assert.equal(driver.errorKind(new Error('database is locked')), 'other', 'only SQLite errors are classified');
    });

    it('carries the audit store: save, read back, search, prune', async () => {
      const store = openAuditStore({ path: temp.path('store.db'), driver, now: () => 2_000_000_000_000 });
      try {
        const snapshot = makeSnapshot({
          reply: { content: 'The parser lives in src/parse.ts.', finishReason: 'stop' },
        });
        store.save(snapshot);
        await store.flush();
        assert.deepStrictEqual(store.get(snapshot.id), snapshot);
        assert.deepEqual(
          store.search('parser').map((summary) => summary.id),
          [snapshot.id],
        );
        assert.equal(store.prune({ olderThanMs: 1 }).deleted, 1);
        assert.equal(store.stats().snapshots, 0);
      } finally {
        await store.close();
      }
    });
  });
}
