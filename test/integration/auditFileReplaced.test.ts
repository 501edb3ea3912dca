// The log is never lost silently, through the real server: when the database
// file under the audit path is deleted (with its write-ahead log, or the log
// alone) or replaced while the server runs, the next write notices (one stat
// per batch), warns in the server log, opens the path anew and writes the rows
// there; until that works /healthz says the log is not writable and
// --require-audit answers 503, then recovers on its own.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openAuditStore } from '../../src/audit/store.ts';
import type { LogFields, Logger } from '../../src/shared/ports.ts';
import { queryRaw } from '../audit/rawDatabase.ts';
import { type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { makeDir, makeRepo } from '../support/gitRepo.ts';
import { startProxy } from '../support/proxy.ts';

const MODEL = 'qwen2.5-coder:7b';

let fake: FakeOllama;
before(async () => {
  fake = await startFakeOllama();
});
after(async () => {
  await fake.close();
});

function recordingLogger(): Logger & { lines: { level: string; event: string; fields: LogFields }[]; text(): string } {
  const lines: { level: string; event: string; fields: LogFields }[] = [];
  const at =
    (level: string) =>
    (event: string, fields: LogFields = {}) =>
      lines.push({ level, event, fields });
  return { lines, info: at('info'), warn: at('warn'), error: at('error'), text: () => JSON.stringify(lines) };
}

interface Health {
  status: string;
  audit: { writable: boolean; queued: number; reason: string | null };
}

async function health(url: string): Promise<Health> {
  return (await (await fetch(`${url}/healthz`)).json()) as Health;
}

async function chat(baseURL: string, question: string, stream = false): Promise<Response> {
  const response = await fetch(`${baseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL, stream, messages: [{ role: 'user', content: question }] }),
  });
  await response.clone().text();
  return response;
}

function questionsIn(dbPath: string): string[] {
  return queryRaw(dbPath, 'SELECT question FROM snapshots ORDER BY created_at, seq').map((row) => String(row.question));
}

const removeQuietly = (file: string) => fs.rmSync(file, { force: true });

describe('the database file is deleted or replaced while the server runs', () => {
  const cases: { name: string; change(dbPath: string): void; keepsEarlierRows: boolean }[] = [
    {
      name: 'audit.db and audit.db-wal deleted',
      change(dbPath) {
        removeQuietly(dbPath);
        removeQuietly(`${dbPath}-wal`);
      },
      keepsEarlierRows: false,
    },
    {
      name: 'audit.db alone deleted',
      change: removeQuietly,
      keepsEarlierRows: false,
    },
    {
      name: 'audit.db-wal alone deleted (the rows in it are put back in the database)',
      change: (dbPath) => removeQuietly(`${dbPath}-wal`),
      keepsEarlierRows: true,
    },
    {
      name: 'another ctxproxy database moved over audit.db (a restored backup)',
      change(dbPath) {
        const backup = `${dbPath}.restored`;
        fs.renameSync(backup, dbPath);
      },
      keepsEarlierRows: false,
    },
  ];

  for (const entry of cases) {
    test(`${entry.name}: the next rows are in the file under the path, and the server log says so`, async () => {
      const repo = makeRepo({ files: { 'README.md': '# app\n' } });
      const dbPath = path.join(repo.dir, '.ctxproxy', 'audit.db');
      const logger = recordingLogger();
      const proxy = await startProxy({ upstreamUrl: fake.url, workspace: repo.dir, dbPath, logger });
      try {
        await openAuditStore({ path: `${dbPath}.restored` }).close();
        assert.equal((await chat(proxy.baseURL, 'First question, before anything happened')).status, 200);
        await proxy.store.flush();
        assert.deepEqual(questionsIn(dbPath), ['First question, before anything happened']);

        entry.change(dbPath);
        const questions = ['Second: where is main?', 'Third: and the tests?', 'Fourth: streamed'];
        for (const [i, question] of questions.entries()) {
          const response = await chat(proxy.baseURL, question, i === 2);
          assert.equal(response.status, 200);
          assert.equal(response.headers.get('x-ctx-warning'), null, 'written: nothing to warn the client about');
        }
        await proxy.store.flush();
        const expected = entry.keepsEarlierRows
          ? ['First question, before anything happened', ...questions]
          : questions;
        assert.deepEqual(questionsIn(dbPath), expected, 'every later row is in the file a reader finds at the path');

        const changed = logger.lines.find((line) => line.event === 'audit.db_file_changed');
        assert.ok(changed, `a warning in the server log: ${logger.text()}`);
        assert.equal(changed.level, 'warn');
        assert.ok(logger.lines.some((line) => line.event === 'audit.db_reopened'));
        assert.doesNotMatch(logger.text(), /where is main/, 'the log carries no prompt text');
        assert.equal((await health(proxy.url)).audit.writable, true);
      } finally {
        await proxy.close();
        repo.cleanup();
      }
    });
  }
});

describe('--require-audit while the path cannot be opened anew', () => {
  test('503 with the reason, /healthz not writable, nothing sent to the model; recovers once the path is usable', async () => {
    const repo = makeRepo({ files: { 'README.md': '# app\n' } });
    const home = makeDir({ '.ssh/authorized_keys': 'ssh-ed25519 AAAAUSER user@laptop\n' }, 'ctxproxy-home-');
    const dbPath = path.join(repo.dir, '.ctxproxy', 'audit.db');
    const logger = recordingLogger();
    const proxy = await startProxy({
      upstreamUrl: fake.url,
      workspace: repo.dir,
      dbPath,
      logger,
      settings: { requireAudit: true },
    });
    const target = path.join(home.dir, '.ssh', 'authorized_keys');
    const targetBefore = fs.readFileSync(target, 'utf8');
    const modeBefore = fs.statSync(target).mode;
    try {
      assert.equal((await chat(proxy.baseURL, 'Before')).status, 200);
      await proxy.store.flush();
      removeQuietly(dbPath);
      removeQuietly(`${dbPath}-wal`);
      // What an attacker with write access to the repository would put in its place.
      fs.symlinkSync(target, dbPath);

      const chatsBefore = fake.chats.length;
      for (const stream of [false, true]) {
        const response = await chat(proxy.baseURL, 'Refused while the log is gone', stream);
        assert.equal(response.status, 503);
        const body = (await response.json()) as { error: { code: string; message: string } };
        assert.equal(body.error.code, 'audit_unavailable');
        assert.match(body.error.message, /database file replaced, cannot open it anew \(unsafe-path\)/);
      }
      assert.equal(fake.chats.length, chatsBefore, 'nothing reached the model');
      const down = await health(proxy.url);
      assert.equal(down.status, 'degraded');
      assert.equal(down.audit.writable, false);
      assert.match(down.audit.reason ?? '', /database file replaced/);
      assert.equal(fs.readFileSync(target, 'utf8'), targetBefore, 'the link target is not written');
      assert.equal(fs.statSync(target).mode, modeBefore, 'nor its mode changed');

      fs.rmSync(dbPath);
      const reopened = await health(proxy.url);
      assert.equal(
        reopened.audit.writable,
        true,
        `/healthz opens the path anew: ${JSON.stringify(reopened)} ${logger.text()}`,
      );
      const after = await chat(proxy.baseURL, 'After the path is usable again');
      assert.equal(after.status, 200);
      await proxy.store.flush();
      // The two refusals' snapshots (refused before their question was read) waited in memory, and are written too.
      assert.deepEqual(
        queryRaw(dbPath, 'SELECT question, outcome FROM snapshots ORDER BY created_at, seq').map((row) => ({ ...row })),
        [
          { question: 'Refused while the log is gone', outcome: 'error' },
          { question: 'Refused while the log is gone', outcome: 'error' },
          { question: 'After the path is usable again', outcome: 'ok' },
        ],
      );
      assert.ok(logger.lines.some((line) => line.event === 'audit.db_reopened'));
    } finally {
      await proxy.close();
      repo.cleanup();
      home.cleanup();
    }
  });
});
