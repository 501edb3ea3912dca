// The audit log under faults, through the real server: a request that reached
// the model is in the log even when the process is killed mid-answer; another
// process holding the database's lock, or a full disk, never fails a chat (the
// answer says the log was not written, /healthz says the audit is degraded, and
// the rows are written once the database takes them again); --require-audit
// refuses instead; a read-only or full filesystem at start-up is one clear line.

import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import type OpenAI from 'openai';
import { openAuditStore } from '../../src/audit/store.ts';
import { loadSettings } from '../../src/config/loadSettings.ts';
import { queryRaw } from '../audit/rawDatabase.ts';
import { BIN, cleanEnv, runCommand } from '../support/ctxproxyProcess.ts';
import { type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { makeFullDisk, mountTmpfs, unmount } from '../support/fullDisk.ts';
import { holdWriteLock } from '../support/lockHolder.ts';
import { until } from '../support/poll.ts';
import { startProxy } from '../support/proxy.ts';

const MODEL = 'qwen2.5-coder:7b';

let fake: FakeOllama;
const scratch: string[] = [];
before(async () => {
  fake = await startFakeOllama();
});
after(async () => {
  await fake.close();
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'ctxproxy-faults-'));
  scratch.push(dir);
  return dir;
}

/** Environment without the developer's own ctxproxy or Ollama settings. */
async function serveCli(args: string[]): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], {
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const lines = createInterface({ input: child.stdout });
  const [first] = (await once(lines, 'line')) as [string];
  lines.close();
  const url = /^ctxproxy listening on (http:\/\/127\.0\.0\.1:\d+)\/v1$/.exec(first)?.[1];
  assert.ok(url, `unexpected first line: ${first}`);
  return { child, url };
}

interface Answer {
  status: number;
  snapshotId: string;
  warning: string | null;
  content: string;
}

async function ask(client: OpenAI, question: string, stream = false): Promise<Answer> {
  const messages = [{ role: 'user' as const, content: question }];
  if (stream) {
    const { data, response } = await client.chat.completions
      .create({ model: MODEL, messages, stream: true })
      .withResponse();
    let content = '';
    for await (const chunk of data) content += chunk.choices[0]?.delta.content ?? '';
    return answerOf(response, content);
  }
  const { data, response } = await client.chat.completions.create({ model: MODEL, messages }).withResponse();
  return answerOf(response, data.choices[0]?.message.content ?? '');
}

function answerOf(response: Response, content: string): Answer {
  return {
    status: response.status,
    snapshotId: response.headers.get('x-ctx-snapshot-id') ?? '',
    warning: response.headers.get('x-ctx-warning'),
    content,
  };
}

interface Health {
  status: string;
  audit: { writable: boolean; queued: number; dropped: number; reason: string | null };
}

async function health(url: string): Promise<Health> {
  return (await (await fetch(`${url}/healthz`)).json()) as Health;
}

function rowOf(dbPath: string, id: string): { question: string; outcome: string } | undefined {
  const [row] = queryRaw(dbPath, 'SELECT question, outcome FROM snapshots WHERE id = ?', id);
  return row ? { question: String(row.question), outcome: String(row.outcome) } : undefined;
}

describe('a request that reached the model is in the audit log', () => {
  test('SIGKILL mid-stream: after a restart the request is listed as interrupted, with its question', async () => {
    const dir = tempDir();
    const db = path.join(dir, 'audit.db');
    fake.reply(MODEL, { content: 'The parser is in src/parse.ts and it is long.', hangAfterChunks: 1 });
    const { child, url } = await serveCli(['--workspace', dir, '--db', db, '--upstream', fake.url, '--mode', 'off']);
    try {
      const response = await fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: MODEL,
          stream: true,
          messages: [{ role: 'user', content: 'Where is the parser defined?' }],
        }),
      });
      assert.equal(response.status, 200);
      const id = response.headers.get('x-ctx-snapshot-id') ?? '';
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      const first = await reader.read();
      assert.match(new TextDecoder().decode(first.value), /The/, 'the model had started answering');
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
      await reader.cancel().catch(() => {});

      const list = await runCommand(['audit', 'list', '--json', '--workspace', dir, '--db', db]);
      assert.equal(list.code, 0, list.stderr);
      const rows = JSON.parse(list.stdout) as { id: string; outcome: string; question: string }[];
      const row = rows.find((candidate) => candidate.id === id);
      assert.ok(row, `snapshot ${id} is listed`);
      assert.equal(row.outcome, 'interrupted');
      assert.equal(row.question, 'Where is the parser defined?');
      assert.deepEqual(queryRaw(db, 'PRAGMA integrity_check'), [{ integrity_check: 'ok' }]);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      fake.reply(MODEL, {});
    }
  });

  test('a record in flight is left alone while its process runs (a CLI next to the server)', async () => {
    fake.reply(MODEL, { content: 'one two three', hangAfterChunks: 1 });
    const proxy = await startProxy({ upstreamUrl: fake.url });
    const controller = new AbortController();
    try {
      const response = await fetch(`${proxy.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: MODEL, stream: true, messages: [{ role: 'user', content: 'Still going?' }] }),
        signal: controller.signal,
      });
      const id = response.headers.get('x-ctx-snapshot-id') ?? '';
      const cli = openAuditStore({ path: proxy.dbPath });
      assert.equal(cli.get(id)?.outcome, 'in_flight', 'written before the model answered, not marked interrupted');
      await cli.close();
      controller.abort();
      await until(() => proxy.store.get(id)?.outcome === 'aborted', 'the final record', { timeoutMs: 5000 });
    } finally {
      fake.reply(MODEL, {});
      await proxy.close();
    }
  });
});

describe('the audit store never fails a chat', () => {
  test('another process holding the write lock: 200 with a warning, rows written with their question once it lets go', async () => {
    const proxy = await startProxy({ upstreamUrl: fake.url });
    const client = proxy.client();
    const lock = await holdWriteLock(proxy.dbPath);
    try {
      const questions = Array.from({ length: 6 }, (_, i) => `Question ${i}: what does module ${i} do?`);
      const answers: Answer[] = [];
      for (const [i, question] of questions.entries()) answers.push(await ask(client, question, i % 2 === 1));
      for (const answer of answers) {
        assert.equal(answer.status, 200);
        assert.equal(answer.content, 'Hello from the fake Ollama.');
        assert.match(answer.warning ?? '', /audit log not written \(database locked\)/);
      }
      const locked = await health(proxy.url);
      assert.equal(locked.status, 'degraded');
      assert.equal(locked.audit.writable, false);
      assert.equal(locked.audit.reason, 'database locked');
      assert.ok(locked.audit.queued >= answers.length, `queued ${locked.audit.queued}`);

      await lock.release();
      await until(async () => (await health(proxy.url)).audit.queued === 0, 'the queue to drain', {
        timeoutMs: 10_000,
      });
      const recovered = await health(proxy.url);
      assert.deepEqual(recovered.audit, { writable: true, queued: 0, dropped: 0, reason: null });
      assert.equal(recovered.status, 'ok');
      for (const [i, answer] of answers.entries()) {
        assert.deepEqual(rowOf(proxy.dbPath, answer.snapshotId), { question: questions[i], outcome: 'ok' });
      }
      const after = await ask(client, 'And now?');
      // (The scratch workspace is no git repository: that warning stays; the audit's goes.)
      assert.doesNotMatch(after.warning ?? '', /audit log/, 'no audit warning once the log is written again');
    } finally {
      await lock.release();
      await proxy.close();
    }
  });

  test('a full disk: 200 with a warning, /healthz degraded; the queued rows are written when space returns', async (t) => {
    const disk = makeFullDisk();
    t.diagnostic(`full disk simulated with ${disk.kind}`);
    const dbPath = path.join(disk.dir, 'audit.db');
    const proxy = await startProxy({ upstreamUrl: fake.url, dbPath, auditOptions: { driver: disk.driver } });
    const client = proxy.client();
    try {
      const before = await ask(client, 'Before the disk filled up?');
      assert.doesNotMatch(before.warning ?? '', /audit log/);
      disk.fill();
      // Long questions, so each row needs new pages.
      const questions = Array.from({ length: 4 }, (_, i) => `Question ${i}: ${'why is the disk full '.repeat(300)}`);
      const answers: Answer[] = [];
      for (const [i, question] of questions.entries()) answers.push(await ask(client, question, i % 2 === 0));
      for (const answer of answers) {
        assert.equal(answer.status, 200);
        assert.match(answer.warning ?? '', /audit log not written \(disk full\)/);
      }
      const full = await health(proxy.url);
      assert.equal(full.status, 'degraded');
      assert.equal(full.audit.writable, false);
      assert.equal(full.audit.reason, 'disk full');
      assert.ok(full.audit.queued >= answers.length);

      disk.free();
      await until(async () => (await health(proxy.url)).audit.queued === 0, 'the queue to drain', {
        timeoutMs: 10_000,
      });
      assert.equal((await health(proxy.url)).audit.writable, true);
      for (const [i, answer] of answers.entries()) {
        assert.deepEqual(rowOf(dbPath, answer.snapshotId), { question: questions[i]?.trim(), outcome: 'ok' });
      }
    } finally {
      try {
        await proxy.close();
      } finally {
        disk.cleanup();
      }
    }
  });

  test('what the queue cannot hold is counted and reported, never silently lost', async () => {
    const proxy = await startProxy({ upstreamUrl: fake.url, auditOptions: { maxQueuedBytes: 40_000 } });
    const client = proxy.client();
    const lock = await holdWriteLock(proxy.dbPath);
    try {
      for (let i = 0; i < 6; i++) await ask(client, `Question ${i}: ${'x'.repeat(10_000)}`);
      const state = await health(proxy.url);
      assert.ok(state.audit.dropped > 0, `dropped ${state.audit.dropped}`);
      assert.ok(state.audit.queued > 0);
    } finally {
      await lock.release();
      await proxy.close();
    }
  });

  test('--require-audit: a chat the log cannot record is refused with 503 and never reaches the model', async () => {
    const proxy = await startProxy({ upstreamUrl: fake.url, settings: { requireAudit: true } });
    const lock = await holdWriteLock(proxy.dbPath);
    try {
      const chatsBefore = fake.chats.length;
      for (let i = 0; i < 2; i++) {
        const response = await fetch(`${proxy.baseURL}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'Refuse me' }] }),
        });
        assert.equal(response.status, 503);
        const body = (await response.json()) as { error: { message: string; type: string; code: string } };
        assert.equal(body.error.code, 'audit_unavailable');
        assert.equal(body.error.type, 'server_error');
        assert.match(body.error.message, /database locked/);
        assert.match(body.error.message, /--require-audit/);
      }
      assert.equal(fake.chats.length, chatsBefore, 'nothing was sent to the model');
      await lock.release();
      await until(async () => (await health(proxy.url)).audit.writable, 'the store to recover', { timeoutMs: 10_000 });
      assert.equal((await ask(proxy.client(), 'Now?')).status, 200);
    } finally {
      await lock.release();
      await proxy.close();
    }
  });

  test('--require-audit is a flag, an environment variable and a config key', () => {
    const base = { configFlag: undefined, cwd: tempDir() };
    assert.equal(loadSettings({ ...base, flags: {}, env: {} }).requireAudit, false);
    assert.equal(loadSettings({ ...base, flags: { requireAudit: true }, env: {} }).requireAudit, true);
    assert.equal(loadSettings({ ...base, flags: {}, env: { CTXPROXY_REQUIRE_AUDIT: '1' } }).requireAudit, true);
  });
});

describe('a filesystem the audit log cannot be written to at start-up', () => {
  // Needs a real filesystem of each kind, so it mounts two small tmpfs (this suite runs as root).
  test('read-only or full: one clear line, exit 1, no stack', async () => {
    const readOnly = tempDir();
    const full = makeFullDisk(1024 * 1024);
    const canMount = mountTmpfs(readOnly, 1024 * 1024, true);
    try {
      assert.ok(canMount && full.kind === 'tmpfs', 'this test needs to mount a tmpfs (run as root)');
      full.fill();
      for (const [dir, expected] of [
        [readOnly, /filesystem holding it is mounted read-only/],
        [full.dir, /filesystem holding it is full/],
      ] as const) {
        const db = path.join(dir, 'log', 'audit.db');
        const result = await runCommand(['serve', '--port', '0', '--workspace', tempDir(), '--db', db]);
        assert.equal(result.code, 1, result.stderr);
        const human = result.stderr.split('\n').filter((line) => line.startsWith('ctxproxy: '));
        assert.equal(human.length, 1, result.stderr);
        assert.match(human[0] ?? '', expected);
        assert.doesNotMatch(result.stderr, /^\s+at /m, 'no stack trace');
      }
    } finally {
      try {
        if (canMount) unmount(readOnly);
      } finally {
        full.cleanup();
      }
    }
  });
});
