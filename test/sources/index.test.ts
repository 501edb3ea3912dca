import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { globList, parseFrontmatter } from '../../src/sources/frontmatter.ts';
import { createSourceSet, looksLikeStackTrace } from '../../src/sources/index.ts';
import { Memo } from '../../src/sources/memo.ts';
import { makeRepo } from '../support/gitRepo.ts';
import { until } from '../support/poll.ts';
import { countingGit, input, signal, testDeps } from './input.ts';

const ALL = [
  'env.',
  'git.',
  'instructions.',
  'tree.',
  'files.',
  'stacktrace.',
  'stats.',
  'manifests.',
  'symbols.',
  'retrieval.',
];

describe('createSourceSet', () => {
  const repo = makeRepo({
    files: {
      'CLAUDE.md': 'Run tests with npm test.\n',
      'src/app.ts': 'export const a = 1;\n',
      'package.json': '{"name":"app","scripts":{"test":"node --test"}}\n',
    },
    unstaged: { 'src/app.ts': 'export const a = 2;\n' },
  });
  after(() => repo.cleanup());
  const everySource = createSourceSet(testDeps());
  after(() => everySource.close());

  test('one source per namespace; every key starts with its source name', async () => {
    const { sources } = everySource;
    assert.deepEqual(
      sources.map((s) => s.name),
      ['tree', 'git', 'stats', 'instructions', 'files', 'manifests', 'env', 'stacktrace', 'symbols', 'retrieval'],
    );
    const git = sources.find((s) => s.name === 'git');
    assert.equal(git?.timeoutMs, 5_000);
    // The last line is for retrieval: a version question searches the manifests for the package named.
    const text = 'see src/app.ts\nError: boom\n    at main (src/app.ts:1:1)\nwhich version of app is this?';
    const results = await Promise.all(sources.map((s) => s.collect(input(repo.dir, { text, wanted: ALL }), signal)));
    for (const [i, result] of results.entries()) {
      const name = sources[i]?.name;
      assert.ok(result.items.length > 0, `${name} returned items`);
      for (const item of result.items) {
        assert.ok(item.key.startsWith(`${name}.`), item.key);
        assert.equal(item.source, name);
      }
    }
    assert.equal(looksLikeStackTrace(text), true);
  });

  test('warm collection of every source with nothing changed runs no git; a commit invalidates', async () => {
    const counter = countingGit();
    const set = createSourceSet(testDeps({ git: counter.factory, watchWorkTree: true }));
    try {
      const run = (text = 'src/app.ts') =>
        Promise.all(set.sources.map((s) => s.collect(input(repo.dir, { text, wanted: ALL }), signal)));
      await run();
      await set.ready(repo.dir);
      await run(); // the armed watcher changes the fingerprint once
      const spawned = counter.processes();
      const warm = await run();
      const again = await run();
      assert.equal(counter.processes(), spawned, 'no git process on a warm request');
      // Memoized sources hand back the very same result object (env is a clock read; no trace, no work).
      for (const [i, result] of warm.entries()) {
        const name = set.sources[i]?.name ?? '';
        if (['instructions', 'git', 'tree', 'files', 'stats'].includes(name)) assert.equal(again[i], result, name);
      }

      repo.git('-c', 'user.name=T', '-c', 'user.email=t@x', 'commit', '-qam', 'commit app');
      // The default branch's commits come with a question about history.
      const after = await run('What changed in src/app.ts since the last commit?');
      assert.ok(counter.processes() > spawned);
      const log = after.flatMap((r) => r.items).find((item) => item.key === 'git.log');
      assert.match(log?.text ?? '', /commit app/);
      fs.writeFileSync(path.join(repo.dir, 'src/app.ts'), 'export const a = 3;\n');
      let status = '';
      await until(async () => {
        status = (await run()).flatMap((r) => r.items).find((item) => item.key === 'git.status')?.text ?? '';
        return status === ' M src/app.ts';
      }, 'the edit to show in git.status');
      assert.equal(status, ' M src/app.ts');
    } finally {
      set.close();
    }
  });
});

describe('frontmatter', () => {
  test('lenient: `globs: **/*.go` is not YAML but still parsed', () => {
    const parsed = parseFrontmatter('---\nglobs: **/*.go, *.mod\nalwaysApply: false\n---\nbody\n');
    assert.deepEqual(parsed.data, { globs: '**/*.go, *.mod', alwaysApply: false });
    assert.equal(parsed.body, 'body\n');
    assert.deepEqual(globList(parsed.data.globs), ['**/*.go', '*.mod']);
  });

  test('YAML lists, quoted strings, and no frontmatter', () => {
    assert.deepEqual(globList(parseFrontmatter('---\npaths:\n  - "src/**"\n  - lib/*.ts\n---\n').data.paths), [
      'src/**',
      'lib/*.ts',
    ]);
    assert.deepEqual(parseFrontmatter('no header').data, {});
    assert.deepEqual(globList('"a, b"'), ['a', 'b']);
  });
});

describe('Memo', () => {
  test('same fingerprint hits, another misses, concurrent misses share one computation', async () => {
    let now = 0;
    const memo = new Memo<number>({ memoTtlMs: 100, clock: () => now });
    let runs = 0;
    const compute = async () => ++runs;
    const [a, b] = await Promise.all([memo.get('k', 'f1', compute), memo.get('k', 'f1', compute)]);
    assert.deepEqual([a, b, runs], [1, 1, 1]);
    assert.equal(await memo.get('k', 'f2', compute), 2);
    now = 101;
    assert.equal(await memo.get('k', 'f2', compute), 3);
    await assert.rejects(memo.get('e', 'f', () => Promise.reject(new Error('x'))));
    assert.equal(await memo.get('e', 'f', compute), 4, 'failures are not memoized');
  });
});
