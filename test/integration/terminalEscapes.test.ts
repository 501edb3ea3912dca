// Escape sequences from a repository, a client or the model never reach the
// user's terminal (issue 24, item 7): file names in `preview`, the model name,
// question and reply in `audit list|show|search`, an id echoed in an error. The
// text forms show them as U+FFFD; the JSON forms (--json, `audit export`) keep
// the exact characters as \u escapes. `redact` is a filter and stays byte-exact.
// The real CLI, the real server writing the log, the fake Ollama.

import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runCommand } from '../support/ctxproxyProcess.ts';
import { type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { makeRepo, type TempRepo } from '../support/gitRepo.ts';
import { startProxy } from '../support/proxy.ts';

/** A title change, a screen clear, a one-byte CSI (C1) and a right-to-left override. */
const ATTACKS = ['\u001b]0;owned\u0007', '\u001b[2J', '\u009b31m', '\u202e', '\r'];
const NASTY = `x${ATTACKS.join('y')}z`;
/** None of these may be printed raw: ESC, BEL, CR, C1, bidi controls. */
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const MODEL = 'qwen2.5-coder:7b';

let fake: FakeOllama;
let repo: TempRepo;
let db: string;

before(async () => {
  fake = await startFakeOllama();
  repo = makeRepo({ files: { [`src/${NASTY}.js`]: 'export const x = 1;\n', 'README.md': 'hi\n' } });
  db = path.join(repo.dir, '.ctxproxy', 'audit.db');
  fake.reply(MODEL, { content: `answer ${NASTY}` });
  const proxy = await startProxy({ upstreamUrl: fake.url, workspace: repo.dir, dbPath: db });
  try {
    const response = await fetch(`${proxy.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: `question ${NASTY}` }] }),
    });
    assert.equal(response.status, 200);
    await response.text();
    // An unknown model with escapes in its name: the error is audited with it.
    await (
      await fetch(`${proxy.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: `model-${NASTY}`, messages: [{ role: 'user', content: 'hi' }] }),
      })
    ).text();
    await proxy.store.flush();
  } finally {
    await proxy.close();
  }
});
after(async () => {
  await fake.close();
  repo.cleanup();
});

const cli = (args: string[]) => runCommand(args, { cwd: repo.dir, env: { CTXPROXY_DB: db } });

describe('terminal output', () => {
  test('preview shows file names with escapes as U+FFFD, and --json keeps them exactly', async () => {
    const text = await cli(['preview', '--mode', 'deep', '--upstream', fake.url, `what is in ${NASTY}.js?`]);
    assert.equal(text.code, 0, text.stderr);
    assert.ok(text.stdout.includes('\uFFFD'), 'the escapes were shown as U+FFFD');
    assert.doesNotMatch(text.stdout, RAW);
    const json = await cli(['preview', '--json', '--mode', 'deep', '--upstream', fake.url, `what is ${NASTY}?`]);
    assert.equal(json.code, 0, json.stderr);
    assert.doesNotMatch(json.stdout, RAW);
    assert.ok(JSON.stringify(JSON.parse(json.stdout).messages).includes(JSON.stringify(NASTY).slice(1, -1)));
  });

  test('audit list, search and show print no raw escapes from the model, the client or the reply', async () => {
    for (const args of [
      ['audit', 'list'],
      ['audit', 'search', 'question'],
    ]) {
      const result = await cli(args);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /question x\uFFFD/);
      assert.doesNotMatch(result.stdout, RAW, args.join(' '));
    }
    const listed = await cli(['audit', 'list', '--json']);
    const summaries = JSON.parse(listed.stdout) as { id: string; model: string; question: string }[];
    assert.doesNotMatch(listed.stdout, RAW);
    assert.ok(
      summaries.some((summary) => summary.model === `model-${NASTY}`),
      'the JSON keeps the exact name',
    );
    for (const { id } of summaries) {
      const shown = await cli(['audit', 'show', id]);
      assert.equal(shown.code, 0, shown.stderr);
      assert.doesNotMatch(shown.stdout, RAW);
      const json = await cli(['audit', 'show', id, '--json']);
      assert.doesNotMatch(json.stdout, RAW);
      JSON.parse(json.stdout);
    }
  });

  test('audit export keeps every character, escaped, and an echoed id in an error is sanitized too', async () => {
    const exported = await cli(['audit', 'export']);
    assert.equal(exported.code, 0, exported.stderr);
    assert.doesNotMatch(exported.stdout, RAW);
    const lines = exported.stdout.trim().split('\n');
    const snapshots = lines.map((line) => JSON.parse(line) as { reply: { content: string } });
    assert.ok(snapshots.some((snapshot) => snapshot.reply.content === `answer ${NASTY}`));
    const missing = await cli(['audit', 'show', `nope${NASTY}`]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /no snapshot with id 'nopex\uFFFD/);
    assert.doesNotMatch(missing.stderr, RAW);
  });

  test('redact is a filter: what it does not mask comes back byte for byte', async () => {
    const input = `keep ${NASTY} as is\n`;
    const result = await runCommand(['redact'], { input });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, input);
  });
});
