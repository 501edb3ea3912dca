// The real command, `bin/ctxproxy.js`, as a user runs it.

import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { BIN, cleanEnv, runCommand } from '../support/ctxproxyProcess.ts';
import { type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { makeRepo, type TempRepo } from '../support/gitRepo.ts';

const MODEL = 'qwen2.5-coder:7b';

/** Environment without the developer's own ctxproxy or Ollama settings. */
async function serve(args: string[], cwd: string, env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], {
    cwd,
    env: cleanEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines = createInterface({ input: child.stdout });
  const ready: string[] = [];
  for await (const line of lines) {
    ready.push(line);
    if (ready.length === 4) break;
  }
  const url = /^ctxproxy listening on (http:\/\/127\.0\.0\.1:\d+)\/v1$/.exec(ready[0] ?? '')?.[1];
  assert.ok(url, `unexpected first line: ${ready[0]}`);
  return { child, url, ready };
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

let fake: FakeOllama;
let repo: TempRepo;
before(async () => {
  fake = await startFakeOllama();
  repo = makeRepo({ files: { 'CLAUDE.md': 'Use tabs.\n', 'index.js': 'console.log(1);\n' } });
});
after(async () => {
  await fake.close();
  repo.cleanup();
});

describe('ctxproxy serve', () => {
  test('prints the ready line, serves a real client, writes the audit log, and stops cleanly on SIGTERM', async () => {
    const { child, url, ready } = await serve([], repo.dir, { OLLAMA_HOST: fake.url });
    try {
      assert.match(ready[1] ?? '', new RegExp(`upstream\\s+${fake.url}`));
      assert.match(ready[2] ?? '', new RegExp(`workspace\\s+${repo.dir}`));
      const db = path.join(repo.dir, '.ctxproxy', 'audit.db');
      assert.match(ready[3] ?? '', new RegExp(`audit\\s+${db}`));
      const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'x', maxRetries: 0 });
      const { response } = await client.chat.completions
        .create({ model: MODEL, messages: [{ role: 'user', content: 'What are the rules?' }] })
        .withResponse();
      const id = response.headers.get('x-ctx-snapshot-id') as string;
      assert.equal(await stop(child), 0);
      assert.equal(statSync(db).mode & 0o777, 0o600, 'the audit database is private to the user');

      const list = await runCommand(['audit', 'list', '--json'], { cwd: repo.dir });
      assert.equal(list.code, 0, list.stderr);
      const rows = JSON.parse(list.stdout) as { id: string }[];
      assert.ok(
        rows.some((row) => row.id === id),
        'the snapshot was flushed before exit',
      );
      const show = await runCommand(['audit', 'show', id], { cwd: repo.dir });
      assert.equal(show.code, 0, show.stderr);
      assert.match(show.stdout, /Use tabs\./);
      assert.match(show.stdout, /What are the rules\?/);
    } finally {
      if (child.exitCode === null) await stop(child);
    }
  });

  test('a wrong value gets one line naming the option, and exit 2', async () => {
    const result = await runCommand(['serve', '--port', 'eighty'], { cwd: repo.dir });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /^ctxproxy: --port: .*"eighty".*--port/m);
    const env = await runCommand(['serve'], { cwd: repo.dir, env: { CTXPROXY_MODE: 'fast' } });
    assert.equal(env.code, 2);
    assert.match(env.stderr, /--mode: .*CTXPROXY_MODE/);
  });

  test('a corrupt audit database is one clear error at start-up', async () => {
    repo.write('broken.db', 'this is not a database, just text that is long enough to have a header');
    const result = await runCommand(['serve', '--db', 'broken.db'], { cwd: repo.dir });
    assert.equal(result.code, 1);
    const human = result.stderr.split('\n').filter((line) => line.startsWith('ctxproxy: '));
    assert.equal(human.length, 1, result.stderr);
    assert.match(human[0] ?? '', /broken\.db is not a readable SQLite database.*mv /);
    assert.doesNotMatch(result.stderr, /^\s+at /m, 'no stack trace');
  });

  test('a remote upstream is refused unless allowed', async () => {
    const result = await runCommand(['serve', '--upstream', 'http://10.1.2.3:11434'], { cwd: repo.dir });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /--allow-remote-upstream/);
  });

  test('--help lists every option', async () => {
    const result = await runCommand(['--help']);
    assert.equal(result.code, 0);
    for (const flag of [
      '--host',
      '--port',
      '--workspace',
      '--upstream',
      '--upstream-kind',
      '--db',
      '--mode',
      '--auth-token',
      '--config',
    ]) {
      assert.ok(result.stdout.includes(flag), `${flag} missing from --help`);
    }
  });

  test('settings come from ctxproxy.config.json, and a bad key there is named', async () => {
    repo.write('ctxproxy.config.json', JSON.stringify({ mode: 'sideways' }));
    try {
      const result = await runCommand(['serve'], { cwd: repo.dir });
      assert.equal(result.code, 2);
      assert.match(result.stderr, /--mode: .*config file .*ctxproxy\.config\.json/);
    } finally {
      repo.write('ctxproxy.config.json', '{}');
    }
  });
});

describe('ctxproxy preview and redact', () => {
  test('preview prints the forwarded messages and the source report without calling a model', async () => {
    const before = fake.chats.length;
    const result = await runCommand(['preview', '--mode', 'quick', '--upstream', fake.url, 'what are the rules?'], {
      cwd: repo.dir,
    });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /mode\s+quick/);
    assert.match(result.stdout, /Use tabs\./);
    assert.match(result.stdout, /what are the rules\?/);
    assert.match(result.stdout, /instructions\s+ok/);
    assert.equal(fake.chats.length, before, 'no chat was sent');
  });

  test('redact masks a secret from standard input and keeps the line', async () => {
    const token = `ghp_${'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'.slice(0, 36)}`;
    const result = await runCommand(['redact'], { input: `export GITHUB_TOKEN=${token}\nplain line\n` });
    assert.equal(result.code, 0, result.stderr);
    assert.doesNotMatch(result.stdout, new RegExp(token));
    assert.match(result.stdout, /^export GITHUB_TOKEN=\[REDACTED:[\w-]+\]$/m);
    assert.match(result.stdout, /^plain line$/m);
  });
});
