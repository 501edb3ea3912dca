// The default git client (spawnGit): the stdout of a command whole (larger than
// a pipe's buffer too), a failing command rejected with git's own message, an
// aborted one rejected and its process gone.

import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { GitCommandError, spawnGit } from '../../src/sources/gitRunner.ts';
import { makeRepo } from '../support/gitRepo.ts';

const big = Array.from({ length: 20_000 }, (_, i) => `line ${i} ${'x'.repeat(40)}`).join('\n');
const repo = makeRepo({ files: { 'a.txt': 'one\n', 'big.txt': `${big}\n` } });
after(() => repo.cleanup());

test('stdout whole, as git prints it', async () => {
  const git = spawnGit(repo.dir);
  assert.equal(await git.raw(['rev-parse', '--abbrev-ref', 'HEAD']), 'main\n');
  // About 1 MB: many chunks, no maxBuffer limit.
  assert.equal(await git.raw(['show', 'HEAD:big.txt']), `${big}\n`);
});

test("a failing command rejects with git's message and exit code", async () => {
  await assert.rejects(spawnGit(repo.dir).raw(['show', 'HEAD:missing.txt']), (error: unknown) => {
    assert.ok(error instanceof GitCommandError);
    assert.match(error.message, /missing\.txt/);
    assert.equal(error.exitCode, 128);
    return true;
  });
  // Not started at all: a folder that is not there.
  await assert.rejects(spawnGit(`${repo.dir}/nope`).raw(['status']));
});

test('an abort kills the process and rejects; an already aborted signal starts nothing', async () => {
  const controller = new AbortController();
  // Aborted right after the spawn, before the process can have closed its pipes.
  const running = spawnGit(repo.dir, controller.signal).raw(['log', '-p', '--all', '--', '.']);
  controller.abort();
  await assert.rejects(running, /aborted/);
  await assert.rejects(spawnGit(repo.dir, controller.signal).raw(['status']), /aborted/);
});
