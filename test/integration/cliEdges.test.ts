// The rough edges of the real command, as a user meets them (the compiled
// `bin/ctxproxy.js`, like every suite that uses ctxproxyProcess.ts):
// one line and exit 2 for every mistake, a quiet end on a closed pipe, a prune
// that asks, a preview that says which window it assumed, a warning at start-up
// when the upstream does not answer.

import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { openAuditStore } from '../../src/audit/store.ts';
import { makeSnapshot } from '../audit/fixtures.ts';
import { BIN, cleanEnv, runCommand } from '../support/ctxproxyProcess.ts';
import { type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { makeDir, makeRepo, type TempDir, type TempRepo } from '../support/gitRepo.ts';

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
}

const oneLine = (text: string) => text.trimEnd().split('\n').length === 1;

let fake: FakeOllama;
let repo: TempRepo;
let plain: TempDir;
before(async () => {
  fake = await startFakeOllama();
  repo = makeRepo({ files: { 'CLAUDE.md': 'Use tabs.\n' } });
  plain = makeDir({ 'a-file.txt': 'not a folder\n' });
});
after(async () => {
  await fake.close();
  repo.cleanup();
  plain.cleanup();
});

describe('one answer per mistake', () => {
  test('serve rejects an unknown flag and an extra argument: one line, exit 2', async () => {
    const flag = await runCommand(['serve', '--prot', '14150'], { cwd: repo.dir });
    assert.equal(flag.code, 2);
    assert.match(flag.stderr, /^ctxproxy: serve: unknown option --prot/);
    assert.ok(oneLine(flag.stderr), flag.stderr);
    assert.equal(flag.stdout, '', 'it did not start');

    const extra = await runCommand(['serve', 'now'], { cwd: repo.dir });
    assert.equal(extra.code, 2);
    assert.match(extra.stderr, /^ctxproxy: serve: unexpected argument "now"/);
    assert.ok(oneLine(extra.stderr), extra.stderr);
  });

  test('a workspace that does not exist or is not a folder stops serve and preview in one line, creating nothing', async () => {
    const missing = path.join(plain.dir, 'nope');
    for (const args of [
      ['serve', '--workspace', missing],
      ['preview', '--workspace', missing, 'hi'],
    ]) {
      const result = await runCommand(args, { cwd: repo.dir });
      assert.equal(result.code, 2, args.join(' '));
      assert.match(result.stderr, /^ctxproxy: the workspace .*nope does not exist/);
      assert.ok(oneLine(result.stderr), result.stderr);
    }
    assert.equal(existsSync(missing), false, 'no .ctxproxy/ was created');
    const file = await runCommand(['serve', '--workspace', path.join(plain.dir, 'a-file.txt')], { cwd: repo.dir });
    assert.equal(file.code, 2);
    assert.match(file.stderr, /a-file\.txt is not a folder/);
  });

  test('audit prune outside a terminal needs --yes, and deletes nothing without it', async () => {
    const db = path.join(plain.dir, 'prune.db');
    const store = openAuditStore({ path: db });
    store.save(makeSnapshot({ createdAt: Date.now() - 86_400_000 }));
    await store.close();
    const refused = await runCommand(['audit', 'prune', '--older-than', '0d', '--db', db], { cwd: repo.dir });
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /add --yes to confirm/);
    const list = await runCommand(['audit', 'list', '--json', '--db', db], { cwd: repo.dir });
    assert.equal(JSON.parse(list.stdout).length, 1, 'nothing was deleted');
    const done = await runCommand(['audit', 'prune', '--older-than', '0d', '--yes', '--db', db], { cwd: repo.dir });
    assert.equal(done.code, 0, done.stderr);
    assert.match(done.stdout, /deleted 1 snapshot/);
  });
});

describe('output and start-up', () => {
  test('audit export into a pipe that closes early ends quietly (no EPIPE crash)', async () => {
    const db = path.join(plain.dir, 'export.db');
    const store = openAuditStore({ path: db });
    for (let i = 0; i < 400; i++) store.save(makeSnapshot({ id: `s_${i}`, conversationId: `c_${i}` }));
    await store.close();
    const child = spawn(process.execPath, [BIN, 'audit', 'export', '--db', db], {
      cwd: repo.dir,
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const lines = createInterface({ input: child.stdout });
    for await (const _line of lines) break; // like `| head -1`
    child.stdout.destroy();
    const code = await exited(child);
    assert.equal(code, 0, stderr);
    assert.doesNotMatch(stderr, /EPIPE|Error/);
  });

  test('preview without --model says which window it assumed', async () => {
    const result = await runCommand(['preview', '--mode', 'quick', '--upstream', fake.url, 'what are the rules?'], {
      cwd: repo.dir,
    });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^model\s+none given: assumed a window of 8192 tokens \(pass --model NAME/m);
    assert.doesNotMatch(result.stdout, /"?preview"? unknown/);
    const named = await runCommand(['preview', '--model', 'qwen2.5-coder:7b', '--upstream', fake.url, 'hi'], {
      cwd: repo.dir,
    });
    assert.match(named.stdout, /^model\s+qwen2\.5-coder:7b$/m);
    assert.match(named.stdout, /window 32768/, "the model's own window");
  });

  test('serve warns after the ready line when the upstream does not answer, with the ollama serve hint', async () => {
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--upstream', 'http://127.0.0.1:9'], {
      cwd: repo.dir,
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const stdout = createInterface({ input: child.stdout });
      for await (const line of stdout) {
        assert.match(line, /^ctxproxy listening on /, 'the ready line comes first');
        break;
      }
      const stderr = createInterface({ input: child.stderr });
      let warning = '';
      for await (const line of stderr) {
        if (line.startsWith('ctxproxy: warning:')) {
          warning = line;
          break;
        }
      }
      assert.match(warning, /127\.0\.0\.1:9.*ollama serve/);
    } finally {
      child.kill('SIGTERM');
      await exited(child);
    }
  });
});
