import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { runRedactCommand } from '../../src/cli/redactCommand.ts';
import { createRedactor } from '../../src/redact/createRedactor.ts';
import type { Redactor } from '../../src/shared/types.ts';
import { githubToken, password, seededRng } from './secretGen.ts';

const redactor = await createRedactor();
const rng = seededRng(99);

async function run(args: string[], input: string, using: Redactor = redactor) {
  let out = '';
  let err = '';
  const code = await runRedactCommand(args, {
    redactor: using,
    stdin: Readable.from([Buffer.from(input)]),
    out: (s) => {
      out += s;
    },
    err: (s) => {
      err += s;
    },
  });
  return { code, out, err };
}

test('stdin to stdout, masked; the summary names rule ids and counts, never the secret', async () => {
  const token = githubToken(rng, 'ghp');
  const secret = password(rng);
  const result = await run([], `GITHUB_TOKEN=${token}\nDB_PASSWORD=${secret}\nPORT=3000\n`);
  assert.equal(result.code, 0);
  assert.ok(!result.out.includes(token) && !result.out.includes(secret));
  assert.ok(result.out.endsWith('PORT=3000\n'));
  assert.match(result.err, /2 secret\(s\) masked \(.*: \d/);
  assert.ok(!result.err.includes(token) && !result.err.includes(secret));
});

test('--path lets path-aware rules apply', async () => {
  const secret = password(rng);
  // An unusual port: lines on the Postgres ports are masked anywhere (pgpass-line).
  const input = `db:7000:app:app:${secret}\n`;
  assert.ok((await run([], input)).out.includes(secret));
  assert.ok(!(await run(['--path', '.pgpass'], input)).out.includes(secret));
  assert.ok(!(await run(['--path=.pgpass'], input)).out.includes(secret));
});

test('clean input comes out unchanged, exit 0', async () => {
  const input = 'hello world\nnothing to see\n';
  const result = await run([], input);
  assert.deepEqual([result.code, result.out, result.err], [0, input, 'redact: no secrets found\n']);
});

test('a bad argument is a usage error (exit 2)', async () => {
  const result = await run(['--nope'], '');
  assert.equal(result.code, 2);
  assert.match(result.err, /unknown argument: --nope/);
  assert.equal((await run(['--path'], '')).code, 2);
});

test('a failing scan prints nothing of the input (fail closed)', async () => {
  // A stand-in redactor: the real one does not throw on demand, and this path is the command's, not the redactor's.
  const failing: Redactor = {
    redact: async () => {
      throw new Error('boom');
    },
    isNeverRead: () => false,
  };
  const result = await run([], 'secret stuff', failing);
  assert.equal(result.code, 1);
  assert.equal(result.out, '');
  assert.ok(!result.err.includes('secret stuff'));
});
