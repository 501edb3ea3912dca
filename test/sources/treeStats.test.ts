import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createEnvSource } from '../../src/sources/env.ts';
import { importsOf } from '../../src/sources/importGraph.ts';
import { createStatsSource } from '../../src/sources/stats.ts';
import { createTreeSource, renderTree } from '../../src/sources/tree.ts';
import { walkResultFromList } from '../../src/sources/workspace/walk.ts';
import { Workspaces } from '../../src/sources/workspace.ts';
import { makeDir, makeRepo, type TempRepo } from '../support/gitRepo.ts';
import { countingGit, input, signal, testDeps } from './input.ts';

describe('tree source', () => {
  let repo: TempRepo;
  before(() => {
    repo = makeRepo({
      files: {
        '.gitignore': 'generated/\n*.log\n',
        'README.md': '# r\n',
        'src/a.ts': 'a',
        'src/b.ts': 'b',
        'src/lib/c.ts': 'c',
        'src/lib/deep/er/d.ts': 'd',
        'src/lib/deep/er/e.ts': 'e',
        'docs/x.md': 'x',
        'pkg/.gitignore': 'local-only.txt\n',
        'pkg/keep.txt': 'k',
      },
    });
    for (const file of [
      'node_modules/dep/index.js',
      'dist/out.js',
      'generated/g.ts',
      'debug.log',
      'pkg/local-only.txt',
    ]) {
      repo.write(file, 'ignored');
    }
    repo.write('.env', 'SECRET=1');
  });
  after(() => repo.cleanup());

  test('indented, folders first by file count, .gitignore and default ignores honoured, deep folders collapsed', async () => {
    const deps = testDeps();
    const tree = createTreeSource(deps, new Workspaces(deps), { maxDepth: 3 });
    const { items } = await tree.collect(input(repo.dir, { wanted: ['tree.'] }), signal);
    assert.equal(items.length, 1);
    const item = items[0];
    assert.equal(item?.key, 'tree.root');
    assert.equal(item?.kind, 'tree');
    const name = repo.dir.split('/').at(-1);
    assert.equal(
      item?.text,
      [
        `${name}/`,
        '  src/',
        '    lib/',
        '      deep/ (2 files)',
        '      c.ts',
        '    a.ts',
        '    b.ts',
        '  pkg/',
        '    .gitignore',
        '    keep.txt',
        '  docs/',
        '    x.md',
        '  .env',
        '  .gitignore',
        '  README.md',
      ].join('\n'),
    );
  });

  test('renderTree caps the files listed per folder', () => {
    const files = Array.from({ length: 5 }, (_, i) => `f${i}.txt`);
    assert.equal(
      renderTree(walkResultFromList('/nonexistent', files), 'r', { maxDepth: 2, maxFilesPerDir: 3, maxChars: 1000 })
        .text,
      'r/\n  f0.txt\n  f1.txt\n  f2.txt\n  … 2 more files',
    );
  });

  test('renderTree picks the deepest depth that fits the character budget', () => {
    const files = Array.from({ length: 60 }, (_, i) => `a${i % 3}/b${i % 5}/c${i}.ts`).sort();
    const full = renderTree(walkResultFromList('/nonexistent', files), 'r', {
      maxDepth: 4,
      maxFilesPerDir: 100,
      maxChars: 100_000,
    });
    assert.equal(full.depth, 4);
    const small = renderTree(walkResultFromList('/nonexistent', files), 'r', {
      maxDepth: 4,
      maxFilesPerDir: 100,
      maxChars: 300,
    });
    assert.equal(small.fits, true);
    assert.ok(small.depth < 4);
    assert.ok(small.text.length <= 300);
    assert.match(small.text, /\/ \(\d+ files\)$/m);
  });

  test('works outside a repository too', async () => {
    const dir = makeDir({ 'a/b.txt': 'b', 'node_modules/x.js': 'x' });
    try {
      const deps = testDeps();
      const tree = createTreeSource(deps, new Workspaces(deps));
      const { items } = await tree.collect(input(dir.dir, { wanted: ['tree.root'] }), signal);
      assert.equal(items[0]?.text.split('\n').slice(1).join('\n'), '  a/\n    b.txt');
    } finally {
      dir.cleanup();
    }
  });
});

describe('stats source', () => {
  test('files and lines by language, most imported modules, most changed files', async () => {
    const repo = makeRepo({
      files: {
        'src/util.ts': 'export const u = 1;\n',
        'src/a.ts': "import { u } from './util.ts';\nimport fs from 'node:fs';\n",
        'src/b/c.ts': "import { u } from '../util';\nconst x = require('node:fs');\n",
        'tool/main.py': 'from app.core import run\nimport os\n\nrun()\n',
        'go/main.go': 'package main\n\nimport (\n\t"fmt"\n\t"example.com/svc/pick"\n)\n',
        'rs/main.rs': 'use crate::parser::parse;\nuse std::io;\n',
        'java/Main.java': 'import com.example.shop.Order;\nclass Main {}\n',
        'notes.bin': 'x',
      },
      commits: [
        { message: 'c1', files: { 'src/util.ts': 'export const u = 2;\n' } },
        {
          message: 'c2',
          files: {
            'src/util.ts': 'export const u = 3;\n',
            'src/a.ts': "import { u } from './util.ts';\nimport fs from 'node:fs';\n// v2\n",
          },
        },
      ],
    });
    try {
      const counter = countingGit();
      const deps = testDeps({ git: counter.factory });
      const stats = createStatsSource(deps, new Workspaces(deps));
      const result = await stats.collect(input(repo.dir, { wanted: ['stats.'] }), signal);
      const byKey = Object.fromEntries(result.items.map((item) => [item.key, item.text]));
      assert.match(byKey['stats.languages'] ?? '', /^TypeScript: 3 files, 6 lines$/m);
      assert.match(byKey['stats.languages'] ?? '', /^Python: 1 files, 4 lines$/m);
      assert.match(byKey['stats.languages'] ?? '', /^other: 1 files$/m);
      const hotspots = byKey['stats.hotspots'] ?? '';
      assert.match(hotspots, /^ {2}node:fs \(2 files\)$/m);
      assert.match(hotspots, /^ {2}src\/util \(2 files\)$/m);
      assert.match(
        hotspots,
        /^Most changed files \(last 500 commits\):\n {2}src\/util\.ts \(3 commits\)\n {2}src\/a\.ts \(2 commits\)/m,
      );
      const spawned = counter.processes();
      assert.equal(await stats.collect(input(repo.dir, { wanted: ['stats.'] }), signal), result);
      assert.equal(counter.processes(), spawned);
    } finally {
      repo.cleanup();
    }
  });

  test('a language is told by the extension only: dot files, dotted folders and upper case', async () => {
    const repo = makeRepo({
      files: {
        'a.ts': 'a\n',
        'x/.ts': 'not TypeScript\n',
        'b.d/Makefile': 'all:\n',
        '.py': 'not Python\n',
        'TOOL.PY': 'import os\n',
        'c.py': 'import os\n',
      },
    });
    try {
      const deps = testDeps();
      const stats = createStatsSource(deps, new Workspaces(deps));
      const result = await stats.collect(input(repo.dir, { wanted: ['stats.languages'] }), signal);
      const text = result.items[0]?.text ?? '';
      assert.match(text, /^TypeScript: 1 files, 1 lines$/m);
      assert.match(text, /^Python: 2 files, 2 lines$/m);
      assert.match(text, /^other: 3 files$/m);
    } finally {
      repo.cleanup();
    }
  });

  test('import lines are read from the first 400 lines only, wherever they sit among them', () => {
    const filler = Array.from({ length: 398 }, (_, i) => `const v${i} = ${i};`);
    const text = ["import a from 'a';", ...filler, "import b from 'b';", "import c from 'c';"].join('\n');
    assert.deepEqual(importsOf('x.ts', text), ['a', 'b']);
    assert.deepEqual(importsOf('x.ts', "const s = 'import';\nexport { y } from './y';\r\nimport z from 'z'"), [
      'y',
      'z',
    ]);
    assert.deepEqual(importsOf('x.py', '# no imports here\nprint(1)\n'), []);
  });

  test('import lines per language', () => {
    assert.deepEqual(importsOf('a/b.ts', "import type { X } from '../shared/types.ts';\nexport * from './y';"), [
      'shared/types',
      'a/y',
    ]);
    assert.deepEqual(importsOf('m.go', 'import "os"\nimport (\n\tf "fmt"\n)\n'), ['os', 'fmt']);
    assert.deepEqual(importsOf('x.rs', 'use std::collections::HashMap;\npub use crate::a;'), [
      'std::collections',
      'crate::a',
    ]);
    assert.deepEqual(importsOf('X.java', 'import static org.junit.Assert.*;\nimport java.util.List;'), [
      'org.junit.Assert',
      'java.util.List',
    ]);
    assert.deepEqual(importsOf('p.py', 'from . import x\nimport a.b'), ['a.b']);
  });
});

describe('env source', () => {
  test('working directory, OS, shell, date, time and time zone from the input clock', async () => {
    const deps = testDeps({ platform: 'Linux 6.1 (linux/x64)', shell: '/bin/zsh', timeZone: 'Europe/Paris' });
    const env = createEnvSource(deps);
    const { items } = await env.collect(
      input('/w', { wanted: ['env.'], now: new Date('2026-03-04T05:06:07Z') }),
      signal,
    );
    assert.deepEqual(items, [
      {
        key: 'env.info',
        source: 'env',
        title: 'environment',
        priority: 50,
        kind: 'text',
        why: 'working directory, OS, shell, date and time',
        text: 'Working directory: /w\nOS: Linux 6.1 (linux/x64)\nShell: /bin/zsh\nDate: 2026-03-04 (Wednesday)\nTime: 06:06 Europe/Paris (GMT+01:00)',
      },
    ]);
  });
});
