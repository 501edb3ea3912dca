import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { sortTail, walkResultFromList, walkWorkTree } from '../../../src/sources/workspace/walk.ts';
import { makeDir } from '../../support/gitRepo.ts';

describe('walkWorkTree (outside a repository)', () => {
  test('nested .gitignore files and default ignores apply; symlinked folders are not followed', async () => {
    const dir = makeDir({
      '.gitignore': '*.log\n/secret-dir/\n',
      'a.ts': 'a',
      'run.log': 'l',
      'secret-dir/x.ts': 'x',
      'pkg/.gitignore': 'local.txt\n',
      'pkg/local.txt': 'l',
      'pkg/keep.ts': 'k',
      'pkg/deep/run.log': 'l',
      'node_modules/m/index.js': 'm',
      'target/debug/bin': 'b',
      '__pycache__/x.pyc': 'p',
    });
    fs.symlinkSync(path.join(dir.dir, 'pkg'), path.join(dir.dir, 'pkg-link'));
    try {
      const walk = await walkWorkTree(dir.dir);
      assert.deepEqual(walk.files, ['.gitignore', 'a.ts', 'pkg-link', 'pkg/.gitignore', 'pkg/keep.ts']);
      assert.deepEqual(walk.dirs, ['', 'pkg', 'pkg/deep']);
      assert.deepEqual(walk.namesIn('pkg'), ['.gitignore', 'keep.ts']);
      assert.equal(walk.isIgnored('pkg/local.txt', false), true);
      assert.equal(walk.isIgnored('x/y.log', false), true);
      assert.equal(walk.isIgnored('node_modules', true), true);
      assert.equal(walk.isIgnored('pkg/keep.ts', false), false);
    } finally {
      dir.cleanup();
    }
  });

  test('stops at the file limit and says so', async () => {
    const dir = makeDir(Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`f${i}.txt`, 'x'])));
    try {
      const walk = await walkWorkTree(dir.dir, { maxFiles: 4 });
      assert.equal(walk.files.length, 4);
      assert.equal(walk.truncated, true);
    } finally {
      dir.cleanup();
    }
  });
});

describe('walkResultFromList (a git listing)', () => {
  test('drops default-ignored folders even when tracked, groups names by folder, sorts untracked in', () => {
    const walk = walkResultFromList('/nonexistent', [
      'b/x.ts',
      'dist/bundle.js',
      'src/node_modules/p/i.js',
      'src/a.ts',
      'a.md',
      'b/new.ts',
    ]);
    assert.deepEqual(walk.files, ['a.md', 'b/new.ts', 'b/x.ts', 'src/a.ts']);
    assert.deepEqual(walk.dirs, ['', 'b', 'src']);
    assert.deepEqual(
      [...walk.fileCounts.keys()].sort().map((dir) => [dir, walk.namesIn(dir)]),
      [
        ['', ['a.md']],
        ['b', ['new.ts', 'x.ts']],
        ['src', ['a.ts']],
      ],
    );
  });
});

describe('walkResultFromList: folders', () => {
  test("counts files per folder at once and makes a folder's names only when asked", () => {
    const walk = walkResultFromList('/nonexistent', ['a.md', 'src/b.ts', 'src/d.ts', 'src/deep/c.ts', 'src/a0.ts']);
    assert.deepEqual([...walk.fileCounts.entries()].sort(), [
      ['', 1],
      ['src', 3],
      ['src/deep', 1],
    ]);
    // git lists an untracked file (src/a0.ts) after the tracked ones; the folder's names come sorted.
    assert.deepEqual(walk.namesIn('src'), ['a0.ts', 'b.ts', 'd.ts']);
    assert.equal(walk.namesIn('src'), walk.namesIn('src'));
    assert.deepEqual(walk.namesIn('nowhere'), []);
    assert.deepEqual(walk.files, ['a.md', 'src/a0.ts', 'src/b.ts', 'src/d.ts', 'src/deep/c.ts']);
  });

  test('a listed .gitignore still says what the watcher should skip (read when first asked)', () => {
    const dir = makeDir({ '.gitignore': '*.log\n', 'pkg/.gitignore': 'gen/\n', 'pkg/a.ts': 'a' });
    try {
      const walk = walkResultFromList(dir.dir, ['.gitignore', 'pkg/.gitignore', 'pkg/a.ts']);
      assert.equal(walk.isIgnored('x.log', false), true);
      assert.equal(walk.isIgnored('pkg/gen', true), true);
      assert.equal(walk.isIgnored('gen', true), false);
      assert.equal(walk.isIgnored('node_modules', true), true);
      assert.equal(walk.isIgnored('pkg/a.ts', false), false);
    } finally {
      dir.cleanup();
    }
  });
});

describe('sortTail', () => {
  test('merges an unsorted tail (untracked files) into a sorted head', () => {
    const list = ['a', 'c', 'e', 'g', 'd', 'b', 'z'];
    sortTail(list);
    assert.deepEqual(list, ['a', 'b', 'c', 'd', 'e', 'g', 'z']);
    const sorted = ['a', 'b'];
    sortTail(sorted);
    assert.deepEqual(sorted, ['a', 'b']);
  });

  test('tail entries below, between, equal to and above the head all land in order', () => {
    for (const [head, tail] of [
      [['b', 'd', 'f'], ['a']],
      [
        ['b', 'd', 'f'],
        ['c', 'e', 'a'],
      ],
      [
        ['b', 'd', 'f'],
        ['d', 'b', 'g'],
      ],
      [
        ['a/x', 'a/y', 'b/z'],
        ['a/w', 'a/x0', 'a0'],
      ],
    ]) {
      const list = [...(head ?? []), ...(tail ?? [])];
      sortTail(list);
      assert.deepEqual(list, [...(head ?? []), ...(tail ?? [])].sort());
    }
  });
});
