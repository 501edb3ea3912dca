import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathCandidates, splitFences } from '../../src/shared/question.ts';
import { createFilesSource, keepsTail } from '../../src/sources/files.ts';
import { NEVER_READ_REASON } from '../../src/sources/workspace/guard.ts';
import { Workspaces } from '../../src/sources/workspace.ts';
import { makeDir, makeRepo, type TempDir, type TempRepo } from '../support/gitRepo.ts';
import { input, signal, testDeps } from './input.ts';

const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n');

describe('files source', () => {
  let repo: TempRepo;
  let outside: TempDir;
  const deps = testDeps({ isNeverRead: (rel) => /(^|\/)\.env(\..*)?$|\.pem$/.test(rel), readConcurrency: 2 });
  const source = createFilesSource(deps, new Workspaces(deps));

  before(() => {
    outside = makeDir({ 'secret.txt': 'OUTSIDE\n' });
    repo = makeRepo({
      files: {
        '.gitignore': 'build-out/\n*.tmp\n',
        'src/app.ts': numbered(120),
        'src/rates.py': Array.from({ length: 120 }, (_, i) => `rate_${i + 1} = compute(${i + 1}, days)`).join('\n'),
        'src/util.ts': 'export const u = 1;\n',
        'docs/guide.md': '# Guide\n',
        'logs/run.log': numbered(200),
      },
      staged: { 'src/util.ts': 'export const u = 2;\n' },
      unstaged: { 'docs/guide.md': '# Guide v2\n', 'src/new.ts': 'new\n' },
    });
    repo.write('.env', 'TOKEN=abc\n');
    repo.write('key.pem', 'PEM\n');
    repo.write('big.txt', 'x'.repeat(210 * 1024));
    repo.write('image.bin', Buffer.from([1, 2, 0, 3]));
    repo.write('build-out/generated.js', 'generated\n');
    repo.write('cache.tmp', 'tmp\n');
    fs.symlinkSync(path.join(outside.dir, 'secret.txt'), path.join(repo.dir, 'link.txt'));
    fs.symlinkSync(path.join(repo.dir, '.env'), path.join(repo.dir, 'env-link.txt'));
  });
  after(() => {
    repo.cleanup();
    outside.cleanup();
  });

  const collect = (text: string, wanted = ['files.']) => source.collect(input(repo.dir, { text, wanted }), signal);

  test('asked which commit brought a pasted line: the named file around that line, not whole', async () => {
    const result = await collect(
      'Which commit introduced this line in src/rates.py, and why? `rate_60 = compute(60, days)`',
    );
    const item = result.items.find((i) => i.key === 'files.named.src/rates.py');
    assert.equal(item?.title, 'src/rates.py lines 48-72');
    assert.match(
      item?.text ?? '',
      /^… 47 earlier lines\nrate_48 [^\n]*\n[\s\S]*\nrate_60 [\s\S]*\nrate_72 [^\n]*\n… 48 more lines$/,
    );
    assert.match(item?.why ?? '', /around the pasted line/);
  });

  test('the same file asked about otherwise, or with a pasted line it does not hold, goes whole', async () => {
    for (const text of [
      'Walk me through src/rates.py, especially `rate_60 = compute(60, days)`.',
      'Which commit introduced this line in src/rates.py? `rate_999 = compute(999, days)`',
    ]) {
      const item = (await collect(text)).items.find((i) => i.key === 'files.named.src/rates.py');
      assert.equal(item?.title, 'src/rates.py', text);
      assert.match(item?.text ?? '', /^rate_1 = [^\n]*\n[\s\S]*\nrate_120 = compute\(120, days\)$/, text);
    }
  });

  test('asked only about its history: the named file by its head; asked about it and its history: whole', async () => {
    for (const text of ['When was src/rates.py first added, and by whom?', 'Who last changed src/rates.py?']) {
      const item = (await collect(text)).items.find((i) => i.key === 'files.named.src/rates.py');
      assert.equal(item?.truncated, true, text);
      assert.match(item?.text ?? '', /^rate_1 = [\s\S]*\nrate_50 = [^\n]*\n… 70 more lines/, text);
      assert.match(item?.why ?? '', /its head \(asked about its history\)/, text);
    }
    const both = await collect('What does src/rates.py compute, and when was it last changed?');
    const item = both.items.find((i) => i.key === 'files.named.src/rates.py');
    assert.match(item?.text ?? '', /\nrate_120 = compute\(120, days\)$/);
  });

  test('named files (paths, @mentions, code blocks) whole, changed files by their heads of 50 lines', async () => {
    const result = await collect('Why does @src/app.ts fail? It calls src/util.ts.\n```\nsee docs/guide.md:1\n```');
    const keys = result.items.map((item) => item.key);
    assert.deepEqual(keys, [
      'files.named.docs/guide.md',
      'files.named.src/app.ts',
      'files.named.src/util.ts',
      'files.changed.src/new.ts',
    ]);
    const app = result.items.find((item) => item.key === 'files.named.src/app.ts');
    assert.equal(app?.path, 'src/app.ts');
    assert.equal(app?.kind, 'code');
    // Named: the whole file (120 lines), not its head; the budget trims it only when the window is short.
    assert.equal(app?.truncated, undefined);
    assert.match(app?.text ?? '', /^line 120$/m);
    assert.ok((app?.priority ?? 0) > (result.items.at(-1)?.priority ?? 0), 'named outranks changed');
  });

  test('logs keep their tail', async () => {
    const result = await collect('look at logs/run.log');
    const log = result.items.find((item) => item.key === 'files.named.logs/run.log');
    assert.equal(log?.kind, 'log');
    assert.match(log?.text ?? '', /^… 150 earlier lines/);
    assert.match(log?.text ?? '', /line 200$/);
    assert.equal(keepsTail('out/test-results.txt'), true);
    assert.equal(keepsTail('src/test.ts'), false);
  });

  test('skips: never-read (even when named), too large, binary, outside, symlinks out', async () => {
    const viaDots = `../${path.basename(outside.dir)}/secret.txt`;
    const text = `read .env key.pem big.txt image.bin ${viaDots} link.txt env-link.txt and ${path.join(outside.dir, 'secret.txt')}`;
    const result = await collect(text, ['files.named.']);
    const skipped = Object.fromEntries((result.skipped ?? []).map((s) => [s.path, s.reason]));
    assert.equal(skipped['.env'], NEVER_READ_REASON);
    assert.equal(skipped['key.pem'], NEVER_READ_REASON);
    assert.equal(skipped['env-link.txt'], NEVER_READ_REASON);
    assert.match(skipped['big.txt'] ?? '', /^too large \(215040 bytes > 204800\)$/);
    assert.equal(skipped['image.bin'], 'binary');
    assert.equal(skipped['link.txt'], 'outside the workspace');
    assert.equal(skipped[path.join(outside.dir, 'secret.txt')], 'outside the workspace');
    assert.equal(skipped[viaDots], 'outside the workspace');
    const texts = result.items.map((item) => item.text).join('\n');
    assert.doesNotMatch(texts, /TOKEN|PEM|OUTSIDE/);
    assert.deepEqual(
      result.items.map((item) => item.key).filter((key) => key.startsWith('files.named.')),
      [],
    );
  });

  test('git-ignored files: read when the user names them, skipped when they only appear in a code block', async () => {
    const named = await collect('what is in build-out/generated.js?', ['files.named.']);
    assert.deepEqual(
      named.items.map((item) => item.key),
      ['files.named.build-out/generated.js'],
    );
    const inCode = await collect('```\nwrote build-out/generated.js and cache.tmp\n```', ['files.named.']);
    assert.deepEqual(inCode.items, []);
    assert.deepEqual(
      inCode.skipped?.map((s) => `${s.path}: ${s.reason}`),
      ['build-out/generated.js: ignored by .gitignore', 'cache.tmp: ignored by .gitignore'],
    );
  });

  test('changed files only when the plan wants them; memo sees edits', async () => {
    const quick = await collect('hi', ['files.named.']);
    assert.deepEqual(quick.items, []);
    const first = await collect('hi', ['files.changed.']);
    assert.deepEqual(
      first.items.map((item) => item.key),
      ['files.changed.docs/guide.md', 'files.changed.src/util.ts', 'files.changed.src/new.ts'],
    );
    assert.equal(await collect('hi', ['files.changed.']), first);
    fs.writeFileSync(path.join(repo.dir, 'src/new.ts'), 'newer\n');
    const later = new Date(Date.now() + 10_000);
    fs.utimesSync(path.join(repo.dir, 'src/new.ts'), later, later);
    const second = await collect('hi', ['files.changed.']);
    assert.equal(second.items.find((item) => item.key === 'files.changed.src/new.ts')?.text, 'newer\n');
  });
});

describe('pathCandidates', () => {
  test('paths, @mentions and file:line references; not URLs or words', () => {
    assert.deepEqual(pathCandidates('see @src/a.ts, ./b/c.py:12:3 and README.md. Visit https://x.io/a.ts or this'), [
      'src/a.ts',
      './b/c.py',
      'README.md',
    ]);
  });

  test('bare names with a mention sign, a line number or punctuation around them', () => {
    assert.deepEqual(pathCandidates('run @Makefile:12: then Dockerfile! and file:LICENSE, not Make or x'), [
      'Makefile',
      'Dockerfile',
      'LICENSE',
    ]);
  });

  test('a text without fences is all prose, as it was', () => {
    const text = 'a\n  b ``\n~~ c\n\n';
    assert.deepEqual(splitFences(text), { prose: text, code: '' });
    assert.deepEqual(splitFences('see\n```ts\nx.ts\n```\nafter'), { prose: 'see\nafter', code: 'x.ts' });
  });
});
