// The audit commands tell where they look (issue 27, point 5), through the real
// command: each names the database it reads on standard error, a missing one
// is an error that creates nothing, and the help names --workspace and --db.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openAuditStore } from '../../src/audit/store.ts';
import { makeSnapshot } from '../audit/fixtures.ts';
import { runCommand } from '../support/ctxproxyProcess.ts';
import { makeDir, type TempDir } from '../support/gitRepo.ts';

let home: TempDir;
let other: TempDir;
before(() => {
  home = makeDir({ 'README.md': 'a workspace with a log\n' });
  other = makeDir({ 'README.md': 'a workspace without one\n' });
});
after(() => {
  home.cleanup();
  other.cleanup();
});

describe('ctxproxy audit names its database and never creates one', () => {
  test('every command says on stderr which file it reads, in one line', async () => {
    const db = path.join(home.dir, '.ctxproxy', 'audit.db');
    const store = openAuditStore({ path: db, workspace: home.dir });
    store.save(makeSnapshot({ id: 's_one', forwarded: [{ role: 'user', content: 'where is the config read?' }] }));
    await store.close();
    for (const args of [['list'], ['show', 's_one'], ['search', 'config'], ['export']]) {
      const result = await runCommand(['audit', ...args], { cwd: home.dir });
      assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
      assert.equal(result.stderr, `audit: reading ${db}\n`, args.join(' '));
    }
    const elsewhere = await runCommand(['audit', 'list', '--workspace', home.dir], { cwd: other.dir });
    assert.equal(elsewhere.code, 0, elsewhere.stderr);
    assert.equal(elsewhere.stderr, `audit: reading ${db}\n`, '--workspace picks the log');
    assert.match(elsewhere.stdout, /s_one/);
  });

  test('a missing database is a clear error, exit 1, and nothing is created', async () => {
    for (const [args, missing] of [
      [['audit', 'list'], path.join(other.dir, '.ctxproxy', 'audit.db')],
      [['audit', 'search', 'x', '--db', path.join(other.dir, 'typo.db')], path.join(other.dir, 'typo.db')],
      [['audit', 'prune', '--older-than', '30d', '--yes'], path.join(other.dir, '.ctxproxy', 'audit.db')],
    ] as const) {
      const result = await runCommand([...args], { cwd: other.dir });
      assert.equal(result.code, 1, args.join(' '));
      assert.equal(result.stdout, '');
      assert.equal(result.stderr.trimEnd().split('\n').length, 1, result.stderr);
      assert.ok(result.stderr.includes(`no audit log at ${missing}`), result.stderr);
      assert.match(result.stderr, /--workspace DIR or --db PATH/);
      assert.equal(existsSync(missing), false, `${args.join(' ')} created ${missing}`);
    }
    assert.equal(existsSync(path.join(other.dir, '.ctxproxy')), false, 'no .ctxproxy/ folder either');
  });

  test('the help of every audit command names --workspace and --db, and needs no database', async () => {
    for (const args of [
      ['audit', '--help'],
      ['audit', 'list', '--help'],
      ['audit', 'prune', '-h'],
      ['audit', 'help'],
    ]) {
      const result = await runCommand(args, { cwd: other.dir });
      assert.equal(result.code, 0, args.join(' '));
      assert.match(result.stdout, /--workspace DIR/);
      assert.match(result.stdout, /--db PATH/);
      assert.match(result.stdout, /6mo/);
    }
    assert.equal(existsSync(path.join(other.dir, '.ctxproxy')), false);
  });
});
