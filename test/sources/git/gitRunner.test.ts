// The default git client (spawnGit): the stdout of a command whole (larger than
// a pipe's buffer and the spawner's window too), a byte limit that stops reading and stops git, a failing
// command rejected with a fixed sentence (never git's stderr, which quotes the
// repository), an aborted one rejected and its process gone.

import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import {
  GitCommandError,
  GitOutputTooLarge,
  gitErrorReason,
  prefixKeeper,
  readPrefix,
  readWhole,
  spawnGit,
} from '../../../src/sources/git/gitRunner.ts';
import { makeRepo } from '../../support/gitRepo.ts';
import { countingGit } from '../input.ts';

const big = Array.from({ length: 60_000 }, (_, i) => `line ${i} ${'x'.repeat(40)}`).join('\n');
const repo = makeRepo({ files: { 'a.txt': 'one\n', 'big.txt': `${big}\n` } });
after(() => repo.cleanup());

test('stdout whole, as git prints it', async () => {
  const git = spawnGit(repo.dir);
  assert.equal(await git.raw(['rev-parse', '--abbrev-ref', 'HEAD']), 'main\n');
  // About 3 MB: many chunks, no maxBuffer limit, more than the spawner's 1 MB window (its pipe paused and resumed).
  assert.equal(await git.raw(['show', 'HEAD:big.txt']), `${big}\n`);
});

test('a limit stops reading and stops git: a first part of whole lines, marked cut', async () => {
  // 40 MB of new lines in the work tree against a one-line committed file: `git diff` would print all of it.
  const huge = makeRepo({ files: { 'gen/output.log': 'start\n' } });
  try {
    const line = `${'y'.repeat(70)}\n`;
    huge.write('gen/output.log', `start\n${line.repeat((40 * 1024 * 1024) / line.length)}`);
    const limit = 256 * 1024;
    const output = await spawnGit(huge.dir).rawKept?.(['diff'], prefixKeeper(limit));
    assert.ok(output);
    assert.equal(output.cut, true);
    assert.ok(Buffer.byteLength(output.text) <= limit, 'no more than the limit is kept');
    // Read no further than the chunk that crossed the limit: git was stopped, not drained.
    assert.ok(output.bytes <= limit + 1024 * 1024, `read ${output.bytes} bytes of about 40 MB`);

    const prefix = await readPrefix(spawnGit(huge.dir), ['diff'], limit);
    assert.equal(prefix.cut, true);
    assert.ok(prefix.text.endsWith(`+${line}`), 'ends after a whole line');
    assert.match(prefix.text, /^diff --git a\/gen\/output\.log/);

    // A caller that needs all of it learns it is too large, in fixed words.
    await assert.rejects(readWhole(spawnGit(huge.dir), ['diff'], limit), (error: unknown) => {
      assert.ok(error instanceof GitOutputTooLarge);
      assert.equal(error.message, 'git diff printed more than 256 KB; not read');
      return true;
    });
  } finally {
    huge.cleanup();
  }
});

test('under the limit the output is whole; a NUL-separated listing is cut after a whole name', async () => {
  const whole = await readPrefix(spawnGit(repo.dir), ['ls-files', '-z'], 1024);
  assert.deepEqual(whole, { text: 'a.txt\0big.txt\0', cut: false });
  const cut = await readPrefix(spawnGit(repo.dir), ['ls-files', '-z'], 8, '\0');
  assert.deepEqual(cut, { text: 'a.txt\0', cut: true });
});

test('a runner with only `raw` (simple-git) gets the same cut, after the fact', async () => {
  const git = countingGit().factory(repo.dir);
  const prefix = await readPrefix(git, ['show', 'HEAD:big.txt'], 100_000);
  assert.equal(prefix.cut, true);
  assert.ok(prefix.text.length <= 100_000 && prefix.text.endsWith('x\n'));
  assert.equal(await readWhole(git, ['rev-parse', '--abbrev-ref', 'HEAD'], 100), 'main\n');
  await assert.rejects(readWhole(git, ['show', 'HEAD:big.txt'], 100_000), GitOutputTooLarge);
});

test('a failing command rejects with a fixed sentence and the exit code, never quoting the repository', async () => {
  await assert.rejects(spawnGit(repo.dir).raw(['show', 'HEAD:private-plans.txt']), (error: unknown) => {
    assert.ok(error instanceof GitCommandError);
    assert.equal(error.message, 'git show failed (exit 128)');
    assert.equal(error.exitCode, 128);
    return true;
  });
  // A known class of failure is named, the revision it was about is not.
  const args = ['-c', 'core.fsmonitor=false', '--no-optional-locks', 'log', 'topsecret-branch'];
  await assert.rejects(spawnGit(repo.dir).raw(args), (error: unknown) => {
    assert.ok(error instanceof GitCommandError);
    assert.equal(error.message, 'git log failed (exit 128): a revision that does not resolve');
    return true;
  });
  // Not started at all: a folder that is not there.
  const notStarted = await spawnGit(`${repo.dir}/nope`)
    .raw(['status'])
    .catch((error: unknown) => error);
  assert.equal(gitErrorReason(notStarted), 'git could not start (ENOENT)');
  // Any other error (simple-git's quote git's stderr): its class only.
  assert.equal(gitErrorReason(new TypeError("fatal: path 'private-plans.txt'")), 'git failed (TypeError)');
});

test('an abort kills the process and rejects; an already aborted signal starts nothing', async () => {
  const controller = new AbortController();
  // Aborted right after the spawn, before the process can have closed its pipes.
  const running = spawnGit(repo.dir, controller.signal).raw(['log', '-p', '--all', '--', '.']);
  controller.abort();
  await assert.rejects(running, /aborted/);
  await assert.rejects(spawnGit(repo.dir, controller.signal).raw(['status']), /aborted/);
});
