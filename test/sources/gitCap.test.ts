// Hostile or huge repositories: a file over the big-file size is not diffed (named,
// with its size in the diffstat); a diff of tens of megabytes is read only up to
// its byte limit and shows as truncated; one git command failing costs its own
// part, with a reason in fixed words (git's stderr quotes the repository); a
// status too large to read is a skip, not a failed source.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import type { SourceResult } from '../../src/shared/types.ts';
import { createFilesSource } from '../../src/sources/files.ts';
import { type GitRunner, spawnGit } from '../../src/sources/git/gitRunner.ts';
import { createGitSource, type GitSourceOptions } from '../../src/sources/git.ts';
import { createStatsSource } from '../../src/sources/stats.ts';
import { Workspaces } from '../../src/sources/workspace.ts';
import { makeRepo } from '../support/gitRepo.ts';
import { historyInput as input, signal, testDeps } from './input.ts';

const cleanups: Array<() => void> = [];
after(() => {
  for (const cleanup of cleanups) cleanup();
});

const GIT_PARTS = ['git.branch', 'git.status', 'git.log', 'git.diffstat', 'git.diff.unstaged'];

/** Big files diffed like any other: what the byte limits alone do with a huge change. */
const DIFF_ALL = { diffBigFileBytes: 1024 * 1024 * 1024 };

async function collectGit(
  dir: string,
  deps = testDeps(),
  options: Partial<GitSourceOptions> = {},
): Promise<SourceResult> {
  const source = createGitSource(deps, new Workspaces(deps), options);
  return source.collect(input(dir, { wanted: GIT_PARTS }), signal);
}

/** A real spawnGit that adds up the bytes each command's stdout gave the sources. */
function countingSpawn() {
  const counter = { bytes: 0 };
  const factory = (dir: string, sig?: AbortSignal): GitRunner => {
    const real = spawnGit(dir, sig);
    return {
      raw: real.raw,
      rawKept: async (args, keeper) => {
        const output = await (real.rawKept as NonNullable<GitRunner['rawKept']>)(args, keeper);
        counter.bytes += output.bytes;
        return output;
      },
    };
  };
  return { factory, counter };
}

/** A repository with a 40 MB log rewritten (git orders it before the small edit in src/). */
function hugeChange() {
  const repo = makeRepo({ files: { 'src/app.js': 'run();\n', 'logs/build.log': 'start\n' } });
  cleanups.push(repo.cleanup);
  const line = `${'build step ok '.repeat(5)}\n`;
  repo.write('logs/build.log', `start\n${line.repeat((40 * 1024 * 1024) / line.length)}`);
  repo.write('src/app.js', 'run();\nstop();\n');
  return repo;
}

test('a 40 MB change is not diffed: named with its size, the small edit after it arrives, git barely read', async () => {
  const repo = hugeChange();
  const { factory, counter } = countingSpawn();
  const result = await collectGit(repo.dir, testDeps({ git: factory }));
  assert.deepEqual(result.items.map((item) => item.key).sort(), [...GIT_PARTS].sort());
  const diff = result.items.find((item) => item.key === 'git.diff.unstaged');
  assert.ok(diff);
  assert.match(diff.text, /\+stop\(\);/, 'the small edit after the huge one');
  assert.match(diff.text, /logs\/build\.log/, 'the huge file is named');
  assert.doesNotMatch(diff.text, /build step ok/, 'none of its lines');
  const stat = result.items.find((item) => item.key === 'git.diffstat');
  assert.match(stat?.text ?? '', /logs\/build\.log \| Bin 6 -> \d+ bytes/, 'the diffstat gives its size');
  assert.ok(counter.bytes < 64 * 1024, `read ${counter.bytes} bytes`);
  assert.equal(result.skipped, undefined);
});

test('a 40 MB change diffed (big-file size raised): its first lines are kept, the small edit after it arrives, the item is truncated', async () => {
  const repo = hugeChange();
  const result = await collectGit(repo.dir, testDeps(), DIFF_ALL);
  assert.deepEqual(result.items.map((item) => item.key).sort(), [...GIT_PARTS].sort());
  const diff = result.items.find((item) => item.key === 'git.diff.unstaged');
  assert.ok(diff);
  assert.equal(diff.truncated, true);
  assert.match(diff.text, /\+stop\(\);/, 'the small edit after the huge one');
  assert.match(diff.text, /^\+build step ok/m, 'the huge file shows its first lines');
  assert.match(diff.text, /\n… parts of `git diff` not read \(too large\); run `git diff` to see all$/);
  assert.ok(diff.text.length < 20_000, `the item stays small (${diff.text.length} chars)`);
  assert.equal(result.skipped, undefined);
});

test('past the read limit git is stopped: a few megabytes read, the diff truncated, the other parts there', async () => {
  const repo = hugeChange();
  const { factory, counter } = countingSpawn();
  const deps = testDeps({ git: factory });
  const source = createGitSource(deps, new Workspaces(deps), { ...DIFF_ALL, diffReadBytes: 1024 * 1024 });
  const result = await source.collect(input(repo.dir, { wanted: GIT_PARTS }), signal);
  assert.deepEqual(result.items.map((item) => item.key).sort(), [...GIT_PARTS].sort());
  const diff = result.items.find((item) => item.key === 'git.diff.unstaged');
  assert.equal(diff?.truncated, true);
  assert.match(diff?.text ?? '', /^\+build step ok/m);
  // Every command together read a few megabytes at most of the ~40 MB `git diff` prints.
  assert.ok(counter.bytes < 4 * 1024 * 1024, `read ${counter.bytes} bytes`);
});

test('a failing diff costs the diff parts only, with a fixed reason that quotes nothing of the repository', async () => {
  const repo = makeRepo({ files: { 'plans-acquisition.txt': 'a\nb\n', 'other.txt': 'x\n' } });
  cleanups.push(repo.cleanup);
  // The committed blob is gone: `git diff` cannot read it; status, log and ls-files still work.
  const sha = repo.git('rev-parse', 'HEAD:plans-acquisition.txt').trim();
  fs.rmSync(path.join(repo.dir, '.git', 'objects', sha.slice(0, 2), sha.slice(2)));
  repo.write('plans-acquisition.txt', 'a\nb\nc\n');
  const result = await collectGit(repo.dir);
  assert.deepEqual(result.items.map((item) => item.key).sort(), ['git.branch', 'git.log', 'git.status']);
  assert.match(result.items.find((item) => item.key === 'git.status')?.text ?? '', /M plans-acquisition\.txt/);
  assert.deepEqual(result.skipped, [
    { path: 'git.diffstat', reason: 'git diff failed (exit 128): a missing or corrupt object' },
    { path: 'git.diff.unstaged', reason: 'git diff failed (exit 128): a missing or corrupt object' },
  ]);
  assert.doesNotMatch(JSON.stringify(result.skipped), new RegExp(sha.slice(0, 7)));
});

test('a failed part is asked again on the next request, though nothing on disk seems changed', async () => {
  const repo = makeRepo({ files: { 'notes.txt': 'a\n' } });
  cleanups.push(repo.cleanup);
  repo.write('notes.txt', 'a\nb\n');
  const sha = repo.git('rev-parse', 'HEAD:notes.txt').trim();
  const object = path.join(repo.dir, '.git', 'objects', sha.slice(0, 2), sha.slice(2));
  const saved = fs.readFileSync(object);
  // Gone for a moment (as while a repository is repacked), then back: the object store is not in the fingerprint.
  fs.rmSync(object);
  const deps = testDeps();
  const source = createGitSource(deps, new Workspaces(deps));
  const ask = () => source.collect(input(repo.dir, { wanted: ['git.diff.unstaged'] }), signal);
  assert.equal((await ask()).skipped?.[0]?.path, 'git.diff.unstaged');
  fs.writeFileSync(object, saved);
  const again = await ask();
  assert.equal(again.skipped, undefined);
  assert.match(again.items[0]?.text ?? '', /\+b/);
});

test('a status too large to read is a skip for the parts that need it; the diff and the log still arrive', async () => {
  const files = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`src/module-${i}.js`, `v${i}\n`]));
  const repo = makeRepo({ files });
  cleanups.push(repo.cleanup);
  for (let i = 0; i < 40; i++) repo.write(`src/module-${i}.js`, `v${i}\nchanged\n`);
  // A listing limit a real status of 40 changed files is over (the default is sized for a monorepo).
  const deps = testDeps({ gitListingBytes: 200 });
  const result = await collectGit(repo.dir, deps);
  assert.deepEqual(result.items.map((item) => item.key).sort(), ['git.diff.unstaged', 'git.diffstat', 'git.log']);
  const reason = 'git status printed more than 200 bytes; not read';
  assert.deepEqual(result.skipped, [
    { path: 'git.branch', reason },
    { path: 'git.status', reason },
  ]);
  // The files source reads the named files still and says why the changed ones are missing.
  const files2 = createFilesSource(deps, new Workspaces(deps));
  const named = await files2.collect(
    input(repo.dir, { text: 'look at src/module-3.js', wanted: ['files.named.', 'files.changed.'] }),
    signal,
  );
  assert.deepEqual(
    named.items.map((item) => item.key),
    ['files.named.src/module-3.js'],
  );
  assert.deepEqual(named.skipped, [{ path: 'files.changed', reason }]);
});

test('a listing past the limit is cut after a whole name and the walk is marked truncated', async () => {
  const files = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`lib/part-${i}.txt`, `${i}\n`]));
  const repo = makeRepo({ files });
  cleanups.push(repo.cleanup);
  const walk = await new Workspaces(testDeps({ gitListingBytes: 100 })).get(repo.dir).walk();
  assert.equal(walk.truncated, true);
  assert.ok(walk.files.length > 0 && walk.files.length < 10, `${walk.files.length} files`);
  for (const file of walk.files) assert.match(file, /^lib\/part-\d+\.txt$/, 'whole names only');
  const full = await new Workspaces(testDeps()).get(repo.dir).walk();
  assert.equal(full.truncated, false);
  assert.equal(full.files.length, 40);
});

test('a history that cannot be read: the hotspots still list the imports and say why the changed files are missing', async () => {
  const repo = makeRepo({ files: { 'src/a.js': "import x from './b.js';\n", 'src/b.js': 'export default 1;\n' } });
  cleanups.push(repo.cleanup);
  // The commit's tree is gone: `git log --name-only` fails, `ls-files` (the index) still lists the files.
  const tree = repo.git('rev-parse', 'HEAD^{tree}').trim();
  fs.rmSync(path.join(repo.dir, '.git', 'objects', tree.slice(0, 2), tree.slice(2)));
  const deps = testDeps();
  const stats = createStatsSource(deps, new Workspaces(deps));
  const result = await stats.collect(input(repo.dir, { wanted: ['stats.hotspots'] }), signal);
  assert.match(result.items[0]?.text ?? '', /Most imported modules:\n {2}src\/b \(1 files\)/);
  assert.doesNotMatch(result.items[0]?.text ?? '', /Most changed files/);
  assert.deepEqual(result.skipped, [
    { path: 'stats.hotspots', reason: 'most changed files: git log failed (exit 128): a missing or corrupt object' },
  ]);
});
