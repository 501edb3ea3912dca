// Each command loads only what it uses: `--help` prints from a table without zod,
// SQLite, secretlint, the tokenizer or Hono; `audit list` opens the store without the
// redactor or the tokenizer. Checked by logging every module the real CLI process loads.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openAuditStore } from '../../src/audit/store.ts';
import { BIN, cleanEnv } from '../support/ctxproxyProcess.ts';

const REGISTER = fileURLToPath(new URL('../support/moduleLog/register.mjs', import.meta.url));
const scratch = mkdtempSync(path.join(tmpdir(), 'ctxproxy-lazy-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

let runs = 0;
/** Runs the CLI and returns what it printed and every module it loaded. */
function loaded(args: string[], input = ''): { code: number | null; stdout: string; modules: string[] } {
  const log = path.join(scratch, `modules-${++runs}.txt`);
  const result = spawnSync(process.execPath, ['--import', REGISTER, BIN, ...args], {
    cwd: scratch,
    env: cleanEnv({ CTXPROXY_TEST_MODULE_LOG: log }),
    input,
    encoding: 'utf8',
  });
  assert.equal(result.status, 0, result.stderr);
  return { code: result.status, stdout: result.stdout, modules: readFileSync(log, 'utf8').split('\n') };
}

const HEAVY = {
  zod: /[/\\]node_modules[/\\]zod[/\\]/,
  hono: /[/\\]node_modules[/\\](hono|@hono)[/\\]/,
  secretlint: /[/\\]node_modules[/\\]@secretlint[/\\]/,
  tokenizer: /[/\\]node_modules[/\\]gpt-tokenizer[/\\]/,
  sqlite: /[/\\]node_modules[/\\]better-sqlite3[/\\]|[/\\]audit[/\\]store\.[jt]s$/,
  redactor: /[/\\]redact[/\\][^/\\]+\.[jt]s$/,
  ollama: /[/\\]node_modules[/\\]ollama[/\\]/,
};

function heavyLoaded(modules: string[]): string[] {
  return Object.entries(HEAVY)
    .filter(([, pattern]) => modules.some((name) => pattern.test(name)))
    .map(([name]) => name);
}

describe('the CLI loads only what a command uses', () => {
  test('--help and --version load none of the heavy modules', () => {
    const help = loaded(['--help']);
    assert.match(help.stdout, /Usage:/);
    assert.deepEqual(heavyLoaded(help.modules), []);
    const version = loaded(['--version']);
    assert.match(version.stdout, /^ctxproxy \d/);
    assert.deepEqual(heavyLoaded(version.modules), []);
  });

  test('audit list opens SQLite but loads neither the redactor nor the tokenizer', async () => {
    // The audit commands read a log and never create one: this one exists.
    const db = path.join(scratch, 'audit.db');
    await openAuditStore({ path: db }).close();
    const list = loaded(['audit', 'list', '--db', db]);
    const heavy = heavyLoaded(list.modules);
    assert.ok(heavy.includes('sqlite'), `the store was not seen loading: ${heavy}`);
    for (const name of ['secretlint', 'tokenizer', 'redactor', 'hono', 'ollama']) {
      assert.ok(!heavy.includes(name), `audit list loaded ${name}`);
    }
  });

  test('redact loads the redactor, and secretlint only for a text that holds one of its gate anchors', () => {
    const plain = heavyLoaded(loaded(['redact'], 'password = "hunter2-is-not-a-good-one"\n').modules);
    assert.ok(plain.includes('redactor'), `the redactor was not seen: ${plain}`);
    assert.ok(!plain.includes('secretlint'), 'secretlint loaded for a text without any of its gate anchors');
    const redact = loaded(['redact'], `token: ghp_${'a1B2c3D4e5'.repeat(4)}\n`);
    const heavy = heavyLoaded(redact.modules);
    assert.ok(heavy.includes('secretlint') && heavy.includes('redactor'), `the redactor was not seen: ${heavy}`);
    for (const name of ['sqlite', 'tokenizer', 'hono', 'ollama']) {
      assert.ok(!heavy.includes(name), `redact loaded ${name}`);
    }
  });
});
