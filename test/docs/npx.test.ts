// `npx ctxproxy …` from the checkout runs every command without `npm link`, as
// docs/commands.md and the README say: npm runs the bin of the package it is
// started in (it links the checkout into its cache; nothing is downloaded).
// And `node bin/ctxproxy.js …`, the form for anywhere else. Each command is
// started the way a user types it, through npx's own process.

import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import { cleanEnv } from '../support/ctxproxyProcess.ts';
import { type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { makeRepo, type TempRepo } from '../support/gitRepo.ts';
import { ROOT } from './markdown.ts';

const BRANCH = 'feature/npx-check';
const SECRET = 'ghp_Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2';
const NPX = process.platform === 'win32' ? 'npx.cmd' : 'npx';

/** Runs a command from the checkout to its end, as a user would type it. */
function run(
  command: string,
  args: string[],
  input = '',
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, env: cleanEnv(), timeout: 120_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

describe('npx ctxproxy from the checkout, without npm link', () => {
  let fake: FakeOllama;
  let repo: TempRepo;

  before(async () => {
    fake = await startFakeOllama();
    repo = makeRepo({ files: { 'src/app.ts': 'export const answer = 42;\n' }, checkout: BRANCH });
  });
  after(async () => {
    await fake.close();
    repo.cleanup();
  });

  it('--help lists the commands', async () => {
    const { code, stdout, stderr } = await run(NPX, ['ctxproxy', '--help']);
    assert.equal(code, 0, stderr);
    for (const command of ['serve', 'preview', 'redact', 'audit list'])
      assert.match(stdout, new RegExp(`ctxproxy ${command}`));
  });

  it('serve answers a chat, and audit list then shows it', async () => {
    const serving = spawn(
      NPX,
      ['ctxproxy', 'serve', '--port', '0', '--workspace', repo.dir, '--upstream', fake.url],
      // Its own process group: npx runs ctxproxy as a child, and the stop below must reach both.
      { cwd: ROOT, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'], detached: true },
    );
    try {
      const url = await readyUrl(serving);
      const response = await fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'qwen2.5-coder:7b', messages: [{ role: 'user', content: 'Which branch?' }] }),
      });
      assert.equal(response.status, 200);
      await response.json();
      assert.ok(JSON.stringify(fake.chats.at(-1)?.body).includes(BRANCH), 'the model got the branch');
    } finally {
      await stop(serving);
    }
    const { code, stdout, stderr } = await run(NPX, ['ctxproxy', 'audit', 'list', '--workspace', repo.dir]);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /Which branch\?/);
  });

  it('preview prints what would be forwarded', async () => {
    const { code, stdout, stderr } = await run(NPX, [
      'ctxproxy',
      'preview',
      '--workspace',
      repo.dir,
      'what did I change?',
    ]);
    assert.equal(code, 0, stderr);
    assert.ok(stdout.includes(BRANCH), stdout);
  });

  it('redact masks standard input', async () => {
    const { code, stdout, stderr } = await run(NPX, ['ctxproxy', 'redact'], `token=${SECRET}\n`);
    assert.equal(code, 0, stderr);
    assert.equal(stdout, 'token=[REDACTED:github-token]\n');
  });

  it('node bin/ctxproxy.js runs the same command from anywhere', async () => {
    const { code, stdout, stderr } = await run(
      process.execPath,
      [path.join(ROOT, 'bin', 'ctxproxy.js'), 'redact'],
      `token=${SECRET}\n`,
    );
    assert.equal(code, 0, stderr);
    assert.equal(stdout, 'token=[REDACTED:github-token]\n');
  });
});

async function readyUrl(child: ChildProcess): Promise<string> {
  let stderr = '';
  child.stderr?.on('data', (d) => {
    stderr += d;
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  for await (const line of lines) {
    const url = /^ctxproxy listening on (http:\/\/127\.0\.0\.1:\d+)\/v1$/.exec(line)?.[1];
    if (url) return url;
  }
  throw new Error(`serve ended before its ready line:\n${stderr}`);
}

/** SIGTERM to the group npx leads (npx and the ctxproxy it started), then wait for npx to end. */
async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  if (child.pid !== undefined) {
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  await exited;
}
