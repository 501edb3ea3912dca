// The audit folder is ctxproxy's own, through the real `ctxproxy serve` in a
// repository a stranger wrote, with a fake home folder: a link anywhere on the
// audit path (the folder, the database, SQLite's side files, a folder the user
// named inside the repository) stops the start with one line, and the link's
// target is neither created nor changed, mode included; `.ctxproxy/.gitignore`
// holds `*` whatever was committed; a committed database with a trigger or a
// view ctxproxy did not make, or one another program made, is refused; an
// older ctxproxy's database still opens.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { chooseSqlDriver } from '../../src/audit/defaultDriver.ts';
import { readMigrations, runMigrations } from '../../src/audit/migrate.ts';
import { APPLICATION_ID } from '../../src/audit/ownership.ts';
import { openAuditStore } from '../../src/audit/store.ts';
import { openRaw, queryRaw } from '../audit/rawDatabase.ts';
import { BIN, cleanEnv } from '../support/ctxproxyProcess.ts';
import { type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { makeDir, makeRepo, type TempDir, type TempRepo } from '../support/gitRepo.ts';

const MODEL = 'qwen2.5-coder:7b';
const LOGIN_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIUSERKEY user@laptop\n';

let fake: FakeOllama;
before(async () => {
  fake = await startFakeOllama();
});
after(async () => {
  await fake.close();
});

interface Scene {
  repo: TempRepo;
  home: TempDir;
  audit: string;
  cleanup(): void;
}

/** A cloned repository and the user's home: an SSH login key file (0644) and an empty folder. */
function scene(): Scene {
  const home = makeDir(
    { '.ssh/authorized_keys': LOGIN_KEY, 'outside/.keep': '', '.gitignore_global': '*.swp\n' },
    'ctxproxy-home-',
  );
  fs.chmodSync(path.join(home.dir, '.ssh', 'authorized_keys'), 0o644);
  const repo = makeRepo({ files: { 'README.md': '# app\n', 'src/app.ts': 'export const app = 1;\n' } });
  return {
    repo,
    home,
    audit: path.join(repo.dir, '.ctxproxy'),
    cleanup() {
      repo.cleanup();
      home.cleanup();
    },
  };
}

/** What a test compares before and after: whether it exists, its bytes or entries, its mode and inode. */
function fingerprint(target: string): string {
  let stats: fs.Stats;
  try {
    stats = fs.lstatSync(target);
  } catch {
    return 'missing';
  }
  const body = stats.isDirectory()
    ? fs.readdirSync(target).sort().join(',')
    : fs.readFileSync(target).toString('base64');
  return `${stats.mode.toString(8)} ${stats.ino} ${stats.mtimeMs} ${body}`;
}

interface Outcome {
  /** The ready line was printed (the server was then stopped). */
  started: boolean;
  code: number | null;
  stderr: string;
}

/** `ctxproxy serve` in the repository with the fake home; stopped as soon as it is ready. */
async function serve(s: Scene, args: string[] = []): Promise<Outcome> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--upstream', fake.url, ...args], {
    cwd: s.repo.dir,
    env: cleanEnv({ HOME: s.home.dir, XDG_CONFIG_HOME: path.join(s.home.dir, '.config') }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (data) => {
    stderr += data;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const lines = createInterface({ input: child.stdout });
  const ready = new Promise<string | undefined>((resolve) => {
    lines.once('line', resolve);
    lines.once('close', () => resolve(undefined));
  });
  let url: string | undefined;
  try {
    const first = await Promise.race([ready, exited.then(() => undefined)]);
    url = /^ctxproxy listening on (http:\/\/127\.0\.0\.1:\d+)\/v1$/.exec(first ?? '')?.[1];
    if (url) {
      const response = await fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'What does src/app.ts export?' }] }),
      });
      assert.equal(response.status, 200, await response.text());
    }
  } finally {
    // A started server is stopped also when the assertion above failed: left running, it kept the test
    // process from ever ending. (One that refused to start is exiting by itself: its exit code is the test's.)
    if (url && child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  }
  const code = await exited;
  lines.close();
  return { started: url !== undefined, code, stderr };
}

/** Refused at start: a non-zero exit and one human line (no stack) matching `pattern`. */
function assertRefused(outcome: Outcome, pattern: RegExp): void {
  assert.equal(outcome.started, false, `the server must not start:\n${outcome.stderr}`);
  assert.ok(outcome.code !== 0 && outcome.code !== null, `exit code ${outcome.code}`);
  const human = outcome.stderr.split('\n').filter((line) => line.startsWith('ctxproxy: '));
  assert.equal(human.length, 1, outcome.stderr);
  assert.match(human[0] ?? '', pattern);
  assert.doesNotMatch(outcome.stderr, /^\s+at /m, 'no stack trace');
}

/** A real ctxproxy audit database at `file`, closed. */
async function ctxproxyDatabase(file: string): Promise<void> {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  await openAuditStore({ path: file }).close();
}

function exec(file: string, sql: string): void {
  const db = openRaw(file);
  try {
    db.exec(sql);
  } finally {
    db.close();
  }
}

describe('a link on the audit path is refused, and its target is left as it was', () => {
  const cases: { name: string; plant(s: Scene): string; args?: (s: Scene) => string[] }[] = [
    {
      name: '.ctxproxy/audit.db -> ~/.ssh/authorized_keys (exists, 0644)',
      plant(s) {
        const target = path.join(s.home.dir, '.ssh', 'authorized_keys');
        fs.mkdirSync(s.audit);
        fs.symlinkSync(target, path.join(s.audit, 'audit.db'));
        return target;
      },
    },
    {
      name: '.ctxproxy/audit.db -> ~/.ssh/authorized_keys2 (missing: would be created)',
      plant(s) {
        const target = path.join(s.home.dir, '.ssh', 'authorized_keys2');
        fs.mkdirSync(s.audit);
        fs.symlinkSync(target, path.join(s.audit, 'audit.db'));
        return target;
      },
    },
    {
      name: '.ctxproxy -> ~/outside (a folder outside the workspace)',
      plant(s) {
        const target = path.join(s.home.dir, 'outside');
        fs.symlinkSync(target, s.audit);
        return target;
      },
    },
    {
      name: '.ctxproxy -> ~/.config/ctxproxy (missing)',
      plant(s) {
        const target = path.join(s.home.dir, '.config', 'ctxproxy');
        fs.symlinkSync(target, s.audit);
        return target;
      },
    },
    {
      name: '--db logs/audit.db where the committed logs -> ~/outside',
      plant(s) {
        const target = path.join(s.home.dir, 'outside');
        fs.symlinkSync(target, path.join(s.repo.dir, 'logs'));
        return target;
      },
      args: () => ['--db', 'logs/audit.db'],
    },
  ];
  for (const suffix of ['-wal', '-shm', '-journal']) {
    cases.push({
      name: `.ctxproxy/audit.db${suffix} -> ~/.ssh/authorized_keys, next to a ctxproxy database`,
      plant(s) {
        return path.join(s.home.dir, '.ssh', 'authorized_keys');
      },
    });
  }

  for (const entry of cases) {
    test(entry.name, async () => {
      const s = scene();
      try {
        const target = entry.plant(s);
        const suffix = /audit\.db(-wal|-shm|-journal)/.exec(entry.name)?.[1];
        if (suffix) {
          // The database is ctxproxy's own; only its side file is a link.
          await ctxproxyDatabase(path.join(s.audit, 'audit.db'));
          fs.symlinkSync(target, path.join(s.audit, `audit.db${suffix}`));
        }
        const before = fingerprint(target);
        const sshFolder = fingerprint(path.join(s.home.dir, '.ssh'));
        const outcome = await serve(s, entry.args?.(s) ?? []);
        assertRefused(outcome, /symlink/);
        assert.equal(fingerprint(target), before, 'the link target is unchanged (existence, mode, bytes)');
        assert.equal(fingerprint(path.join(s.home.dir, '.ssh')), sshFolder, 'nothing new in ~/.ssh');
        assert.doesNotMatch(outcome.stderr, /ssh-ed25519/, 'the target is not echoed');
      } finally {
        s.cleanup();
      }
    });
  }

  test('a planted write-ahead log next to a missing database is removed by name: neither followed nor replayed', async () => {
    const s = scene();
    try {
      const target = path.join(s.home.dir, '.ssh', 'authorized_keys');
      fs.mkdirSync(s.audit);
      fs.symlinkSync(target, path.join(s.audit, 'audit.db-wal'));
      fs.symlinkSync(target, path.join(s.audit, 'audit.db-shm'));
      const before = fingerprint(target);
      const outcome = await serve(s);
      assert.equal(outcome.started, true, outcome.stderr);
      assert.equal(fingerprint(target), before);
      assert.equal(queryRaw(path.join(s.audit, 'audit.db'), 'SELECT count(*) AS n FROM snapshots')[0]?.n, 1);
    } finally {
      s.cleanup();
    }
  });
});

describe('.ctxproxy/.gitignore holds `*` after every start', () => {
  for (const [name, plant] of [
    ['a committed empty .gitignore', (s: Scene) => fs.writeFileSync(path.join(s.audit, '.gitignore'), '')],
    [
      'a committed .gitignore that un-ignores the log',
      (s: Scene) => fs.writeFileSync(path.join(s.audit, '.gitignore'), '*\n!audit.db\n!audit.db-wal\n'),
    ],
    [
      'a committed .gitignore that is a link to ~/.gitignore_global',
      (s: Scene) => fs.symlinkSync(path.join(s.home.dir, '.gitignore_global'), path.join(s.audit, '.gitignore')),
    ],
  ] as const) {
    test(`${name}: git add -A takes no audit file, and the home file is unchanged`, async () => {
      const s = scene();
      try {
        fs.mkdirSync(s.audit);
        plant(s);
        s.repo.git('add', '-f', '.ctxproxy/.gitignore');
        s.repo.git('commit', '-q', '-m', 'tooling');
        const global = fingerprint(path.join(s.home.dir, '.gitignore_global'));
        const outcome = await serve(s);
        assert.equal(outcome.started, true, outcome.stderr);
        assert.ok(fs.existsSync(path.join(s.audit, 'audit.db')));
        assert.equal(fs.lstatSync(path.join(s.audit, '.gitignore')).isFile(), true, 'a file of its own, not a link');
        s.repo.git('add', '-A');
        const staged = s.repo.git('diff', '--cached', '--name-only');
        assert.doesNotMatch(staged, /audit\.db/, `staged: ${staged}`);
        assert.equal(fingerprint(path.join(s.home.dir, '.gitignore_global')), global);
      } finally {
        s.cleanup();
      }
    });
  }
});

describe('a database ctxproxy did not make is not used', () => {
  test('a committed audit.db with a trigger that deletes every new row: refused, even when named with --db', async () => {
    const s = scene();
    try {
      const db = path.join(s.audit, 'audit.db');
      await ctxproxyDatabase(db);
      exec(db, 'CREATE TRIGGER keep_tidy AFTER INSERT ON snapshots BEGIN DELETE FROM snapshots; END');
      const bytes = fs.readFileSync(db).toString('base64');
      assertRefused(await serve(s), /trigger.*"keep_tidy"/);
      assertRefused(await serve(s, ['--db', db]), /trigger.*"keep_tidy"/);
      assert.equal(fs.readFileSync(db).toString('base64'), bytes, 'left untouched');
    } finally {
      s.cleanup();
    }
  });

  test('a trigger on another table, a view, or a changed copy of one of ctxproxy’s own triggers: refused', async () => {
    const statements = [
      "CREATE TRIGGER audit_log_tap AFTER INSERT ON blobs BEGIN UPDATE blobs SET text = '' WHERE sha256 = NEW.sha256; END",
      'CREATE VIEW recent AS SELECT id FROM snapshots',
      'DROP TRIGGER snapshots_fts_insert; CREATE TRIGGER snapshots_fts_insert AFTER INSERT ON snapshots BEGIN DELETE FROM snapshots WHERE id = NEW.id; END',
    ];
    for (const sql of statements) {
      const s = scene();
      try {
        const db = path.join(s.audit, 'audit.db');
        await ctxproxyDatabase(db);
        exec(db, sql);
        assertRefused(await serve(s), /(trigger|view) ctxproxy's migrations did not make/);
      } finally {
        s.cleanup();
      }
    }
  });

  test('a SQLite file without ctxproxy’s mark: refused on the default path, adopted when the user names one elsewhere', async () => {
    const s = scene();
    try {
      const db = path.join(s.audit, 'audit.db');
      fs.mkdirSync(s.audit);
      exec(db, 'CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES (1)');
      assertRefused(await serve(s), /not made by ctxproxy/);
      assert.deepEqual(queryRaw(db, "SELECT name FROM sqlite_master WHERE name = 'snapshots'"), []);
      // Naming the default path changes nothing: the repository still decides what is there.
      assertRefused(await serve(s, ['--db', db]), /not made by ctxproxy/);

      const mine = path.join(s.home.dir, 'audit-log.db');
      fs.copyFileSync(db, mine);
      const outcome = await serve(s, ['--db', mine]);
      assert.equal(outcome.started, true, outcome.stderr);
      assert.match(outcome.stderr, /audit\.db_adopted/);
      assert.equal(queryRaw(mine, 'SELECT count(*) AS n FROM snapshots')[0]?.n, 1);
      assert.equal(queryRaw(mine, 'SELECT count(*) AS n FROM notes')[0]?.n, 1, 'the user’s own rows are kept');
    } finally {
      s.cleanup();
    }
  });

  test('a well-formed ctxproxy audit.db (or its -wal) committed to the repository: refused, left untouched', async () => {
    for (const suffix of ['', '-wal']) {
      const s = scene();
      try {
        const db = path.join(s.audit, 'audit.db');
        await ctxproxyDatabase(db);
        if (suffix) fs.writeFileSync(`${db}${suffix}`, '');
        s.repo.git('add', '-f', `.ctxproxy/audit.db${suffix}`);
        s.repo.git('commit', '-q', '-m', 'tooling');
        const bytes = fs.readFileSync(db).toString('base64');
        assertRefused(await serve(s), new RegExp(`the repository tracks \\.ctxproxy/audit\\.db${suffix}`));
        assert.equal(fs.readFileSync(db).toString('base64'), bytes, 'no row of the user’s written into a tracked file');
      } finally {
        s.cleanup();
      }
    }
  });

  test('a database with another program’s application id: refused, even when named with --db', async () => {
    const s = scene();
    try {
      const db = path.join(s.audit, 'audit.db');
      fs.mkdirSync(s.audit);
      exec(db, 'PRAGMA application_id = 1234; CREATE TABLE notes (body TEXT)');
      assertRefused(await serve(s), /another program/);
      assertRefused(await serve(s, ['--db', db]), /another program/);
    } finally {
      s.cleanup();
    }
  });

  test('an older ctxproxy’s database (no application id) opens, keeps its rows and gets the id', async () => {
    const s = scene();
    try {
      const db = path.join(s.audit, 'audit.db');
      fs.mkdirSync(s.audit);
      const raw = chooseSqlDriver().open(db, { busyTimeoutMs: 100 });
      runMigrations(raw, { migrations: readMigrations().filter((migration) => migration.version <= 6) });
      raw.close();
      assert.deepEqual(queryRaw(db, 'PRAGMA application_id'), [{ application_id: 0 }]);
      const outcome = await serve(s);
      assert.equal(outcome.started, true, outcome.stderr);
      assert.deepEqual(queryRaw(db, 'PRAGMA application_id'), [{ application_id: APPLICATION_ID }]);
      assert.equal(queryRaw(db, 'SELECT count(*) AS n FROM snapshots')[0]?.n, 1);
    } finally {
      s.cleanup();
    }
  });
});
