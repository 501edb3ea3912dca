// Files asked for by their role: "which license is this under?" gets the head
// of the project's own license file whatever the ecosystem names it (COPYING,
// LICENCE.txt, LICENSE-MIT), the root's before a test fixture's or a vendored
// copy's; the changelog, the CI configuration and the contributing guide
// likewise, in each of the forms projects write them. A version the question
// writes opens the changelog's section of that release.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { analyseText } from '../../../src/shared/question.ts';
import { legalRank, roleFiles, rolesAsked } from '../../../src/sources/retrieval/roleFiles.ts';
import { cpuMs } from '../../support/cpuTime.ts';
import { makeDir, makeRepo, type TempRepo } from '../../support/gitRepo.ts';
import { input, signal } from '../input.ts';
import { askRetrieval, retrievalItems, retrievalSource } from './ask.ts';

describe('license files', () => {
  test('the names a license file has, the root first, a fixture or vendored copy last', () => {
    const ranked = [
      'spec/fixtures/repo/LICENSE',
      'vendor/lib/LICENSE',
      'docs/license.md',
      'COPYING',
      'LICENSE-MIT',
      'spec/LICENSE',
    ]
      .map((rel) => ({ rel, rank: legalRank(rel) ?? Number.POSITIVE_INFINITY }))
      .sort((a, b) => a.rank - b.rank)
      .map(({ rel }) => rel);
    // Among the set-aside ones the shallower first, as everywhere.
    assert.deepEqual(ranked, [
      'LICENSE-MIT',
      'COPYING',
      'docs/license.md',
      'spec/LICENSE',
      'vendor/lib/LICENSE',
      'spec/fixtures/repo/LICENSE',
    ]);
  });

  test('a name that only starts like one is not a license file', () => {
    for (const rel of ['src/licenses.py', 'noticeboard.md', 'src/copyingHelpers.ts', 'LICENSEE'])
      assert.equal(legalRank(rel), undefined, rel);
  });

  describe('through retrieval', () => {
    let repo: TempRepo;
    const { source } = retrievalSource();
    before(() => {
      repo = makeRepo({
        files: {
          COPYING: 'Copyright 2007-2011, Kepler Project.\n\nPermission is hereby granted, free of charge.\n',
          'spec/fixtures/repo/LICENSE': 'Fixture license: do not ship.\n',
          'src/main.c':
            '/* This file is part of the project; see the license for its terms. */\nint main(void) { return 0; }\n',
          'src/licenses.c': 'const char *license_name = "MIT"; /* the license of each package */\n',
        },
      });
    });
    after(() => repo.cleanup());

    test("the root's COPYING head answers; the fixture's license does not come first", async () => {
      const text = await askRetrieval(source, repo.dir, 'Which license is this project released under?');
      assert.match(text, /Copyright 2007-2011, Kepler Project\./);
      const fixture = text.indexOf('Fixture license');
      assert.ok(fixture === -1 || fixture > text.indexOf('Kepler Project'));
    });

    test("a license file with a documentation extension (LICENSE.md) answers before a data folder's LICENSE", async () => {
      const other = makeRepo({
        files: {
          'LICENSE.md': 'The Demo.jl package is licensed under the MIT "Expat" License:\n\n> Copyright (c) 2013\n',
          'src/suffix_data/LICENSE': 'Mozilla Public License Version 2.0\n',
          'src/client.jl': Array.from({ length: 6 }, (_, i) => `# license check ${i}\nf${i}(x) = x`).join('\n'),
          'src/server.jl': Array.from({ length: 6 }, (_, i) => `# license note ${i}\ng${i}(x) = x`).join('\n'),
        },
      });
      try {
        const text = await askRetrieval(source, other.dir, 'Which license is this project released under?');
        assert.match(text, /licensed under the MIT "Expat" License/);
        const nested = text.indexOf('Mozilla Public License');
        assert.ok(nested === -1 || nested > text.indexOf('Expat'));
      } finally {
        other.cleanup();
      }
    });

    test('a question that is not about the license sends no license file', async () => {
      const text = await askRetrieval(source, repo.dir, 'Where is main defined?');
      assert.doesNotMatch(text, /Kepler Project/);
    });
  });
});

describe('files by role', () => {
  const { deps, source } = retrievalSource();
  const roleOf = async (dir: string, question: string) => {
    const found = await roleFiles(deps.git(dir, signal), (args) => args, rolesAsked(analyseText(question)), question);
    return [...found.keys()];
  };

  test("each role's files in the forms projects write them; a source file named like one is not", async () => {
    const repo = makeRepo({
      files: {
        'CHANGES.rst': 'Changes\n=======\n',
        'src/changes.py': 'def changes(): pass\n',
        '.gitlab-ci.yml': 'test:\n  script: make test\n',
        'docs/CONTRIBUTING.md': '# Contributing\n',
        'SECURITY.md': '# Security policy\n',
        'Dockerfile.dev': 'FROM debian\n',
        'vendor/lib/CHANGELOG.md': '# vendored\n',
      },
    });
    try {
      assert.deepEqual(await roleOf(repo.dir, "What's in the changelog?"), ['CHANGES.rst']);
      assert.deepEqual(await roleOf(repo.dir, 'How does CI run the tests?'), ['.gitlab-ci.yml']);
      assert.deepEqual(await roleOf(repo.dir, 'How do I contribute?'), ['docs/CONTRIBUTING.md']);
      assert.deepEqual(await roleOf(repo.dir, 'How do I report a security vulnerability?'), ['SECURITY.md']);
      assert.deepEqual(await roleOf(repo.dir, 'What base image does the Dockerfile use?'), ['Dockerfile.dev']);
      assert.deepEqual(await roleOf(repo.dir, 'Where is parse defined?'), []);
    } finally {
      repo.cleanup();
    }
  });

  test("a folder of thousands of names like a role's, sorting before the root, hides none of the root's files", async () => {
    // The listing is read bounded and comes in path order: `0/` sorts before `CHANGELOG.md` and `LICENSE`, and
    // 3,000 of its names fill the bound. Each listed file's stem was compared with every word of the question:
    // 60,000 words (past the parse window's 128 KB, so that a scan and a look-up lie far apart) by ~1,600 files.
    const files: Record<string, string> = { LICENSE: 'MIT License\n', 'CHANGELOG.md': '# 2.0.0\n' };
    for (let i = 0; i < 3000; i++) files[`0/CHANGELOG-${i}.md`] = `# ${i}\n`;
    const repo = makeRepo({ files });
    try {
      const question = `${Array.from({ length: 60_000 }, (_, i) => `w${i}`).join(' ')} what is in the changelog, and the license?`;
      const { ms, result } = await cpuMs(() => roleOf(repo.dir, question));
      assert.deepEqual(result, ['LICENSE', 'CHANGELOG.md']);
      // CPU time of this process (cpuTime.ts), git's spawns included: ~0.2 s with look-ups, ~1.4 s with the scan.
      assert.ok(ms < 800, `${ms} ms of CPU`);
    } finally {
      repo.cleanup();
    }
  });

  test('among several workflows, the one the question names comes first; another only when named too', async () => {
    const repo = makeRepo({
      files: {
        '.github/workflows/docs.yml': 'name: docs\n',
        '.github/workflows/release.yml': 'name: release\n',
        '.github/workflows/tests.yaml': 'name: tests\n',
      },
    });
    try {
      assert.deepEqual(await roleOf(repo.dir, 'Which Python versions does CI test on?'), [
        '.github/workflows/tests.yaml',
      ]);
      assert.deepEqual(await roleOf(repo.dir, 'How does the release workflow publish?'), [
        '.github/workflows/release.yml',
      ]);
    } finally {
      repo.cleanup();
    }
  });

  test("through retrieval: a release's section of the changelog, and a CI matrix deep in its workflow", async () => {
    const entries = (version: string) => Array.from({ length: 6 }, (_, i) => `- change ${i} of ${version}`);
    const repo = makeRepo({
      files: {
        'CHANGELOG.md': [
          '# Changelog',
          '',
          '## 3.0.0',
          ...entries('3.0.0'),
          '',
          '## 2.4.0',
          ...entries('2.4.0'),
          '',
          '## 2.3.0',
          ...entries('2.3.0'),
        ].join('\n'),
        'src/app.py': 'VERSION = "3.0.0"\n',
        '.github/workflows/ci.yml': [
          'name: ci',
          'on: [push]',
          ...Array.from({ length: 30 }, (_, i) => `# step note ${i}`),
          'jobs:',
          '  test:',
          '    strategy:',
          '      matrix:',
          "        python: ['3.10', '3.11', '3.12']",
          '    steps:',
          '      - run: pytest',
        ].join('\n'),
      },
    });
    try {
      const items = await retrievalItems(source, repo.dir, 'What changed in 2.4.0?');
      const release = items.find((item) => item.key === 'retrieval.code.CHANGELOG.md')?.text ?? '';
      assert.match(release, /- change 5 of 2\.4\.0/, 'the last entry of the release asked about');
      assert.doesNotMatch(release, /of 2\.3\.0/, 'not the next release');
      const ci = await askRetrieval(source, repo.dir, 'Which Python versions does CI run the tests on?');
      assert.match(ci, /python: \['3\.10', '3\.11', '3\.12'\]/);
      assert.doesNotMatch(await askRetrieval(source, repo.dir, 'Where is VERSION set?'), /matrix/);
    } finally {
      repo.cleanup();
    }
  });

  test("asked for the dependencies: the manifest's runtime table, wherever it stands in the file", async () => {
    const pkg = {
      name: 'demo',
      exports: { '.': { require: './index.cjs', default: './index.js' } },
      scripts: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`task${i}`, `node task${i}.js`])),
      devDependencies: { typescript: '^5.9.0' },
      dependencies: { 'follow-redirects': '^1.15.6', 'form-data': '^4.0.0' },
    };
    const node = makeRepo({ files: { 'package.json': `${JSON.stringify(pkg, null, 2)}\n`, 'src/a.js': 'x\n' } });
    const go = makeRepo({
      files: {
        'go.mod': 'module example.com/demo\n\ngo 1.22\n\nrequire (\n\tgithub.com/spf13/cobra v1.8.0\n)\n',
        'main.go': 'package main\n',
      },
    });
    try {
      for (const question of ['What are the dependencies of this project?', 'Which libraries does it use?']) {
        const text = await askRetrieval(source, node.dir, question);
        assert.match(text, /"follow-redirects": "\^1\.15\.6"/, question);
        assert.doesNotMatch(text, /task0/, `${question}: the table, not the head`);
      }
      assert.match(await askRetrieval(source, go.dir, 'What does it depend on?'), /github\.com\/spf13\/cobra v1\.8\.0/);
      for (const named of ['Which version of follow-redirects is pinned?', 'Does parse_args depend on `shlex`?'])
        assert.deepEqual(rolesAsked(analyseText(named)), [], named);
    } finally {
      node.cleanup();
      go.cleanup();
    }
  });

  test('"when was it first added, and by whom": the commit that added the file, beyond the recent ones', async () => {
    const repo = makeRepo({
      files: { 'README.md': 'demo\n' },
      commits: [
        { message: 'Add the rate tables', files: { 'src/rates.py': 'RATES = {}\n' }, date: '2026-02-01T10:00:00Z' },
        ...Array.from({ length: 8 }, (_, i) => ({
          message: `Tune rates ${i}`,
          files: { 'src/rates.py': `RATES = {"r": ${i}}\n` },
          date: `2026-03-0${i + 1}T10:00:00Z`,
        })),
      ],
    });
    try {
      const ask = (text: string) =>
        source.collect(input(repo.dir, { text, mode: 'git-aware', wanted: ['retrieval.'] }), signal);
      const first = await ask('When was src/rates.py first added, and who wrote it?');
      const origin = first.items.find((item) => item.key === 'retrieval.history.origin');
      assert.match(origin?.text ?? '', /Add the rate tables/);
      assert.match(origin?.text ?? '', /2026-02-01/);
      const last = await ask('When was src/rates.py last changed?');
      assert.equal(
        last.items.find((item) => item.key === 'retrieval.history.origin'),
        undefined,
        'a question about the last change gets no first commit',
      );
    } finally {
      repo.cleanup();
    }
  });
});

describe('a role file that cannot be read, is huge, or is named by its title', () => {
  const { source } = retrievalSource();
  const matrix = (versions: string) =>
    ['on: [push]', 'jobs:', '  test:', '    strategy:', '      matrix:', `        python: [${versions}]`].join('\n');

  test('a best file the guard refuses (a symlink out of the workspace, a FIFO) gives way to the next one', async () => {
    const outside = makeDir({ 'ci.yml': `${matrix("'2.7'")}\n# outside the workspace\n` });
    const repo = makeRepo({
      files: {
        '.github/workflows/tests.yml': `name: tests\n${matrix("'3.11', '3.12'")}\n`,
        'CHANGELOG.md': '# placeholder\n',
        'CHANGES.md': '# Changes\n\n## 4.2.0\n\n- the newest entry\n',
        'src/app.py': 'def run(): pass\n',
      },
    });
    try {
      // Tracked, then replaced: git still lists both; neither may be read.
      fs.symlinkSync(path.join(outside.dir, 'ci.yml'), path.join(repo.dir, '.github/workflows/ci.yml'));
      fs.rmSync(path.join(repo.dir, 'CHANGELOG.md'));
      execFileSync('mkfifo', [path.join(repo.dir, 'CHANGELOG.md')]);
      const ci = await askRetrieval(source, repo.dir, 'What does CI run?');
      assert.match(ci, /python: \['3\.11', '3\.12'\]/, 'the readable workflow');
      assert.doesNotMatch(ci, /outside the workspace/);
      const changes = await askRetrieval(source, repo.dir, "What's new in the changelog?");
      assert.match(changes, /the newest entry/);
      // A never-read name (a secrets file) the question's words rank first.
      repo.write('.github/workflows/secrets.yml', 'name: secrets\n# never sent\n');
      const secrets = await askRetrieval(source, repo.dir, 'How does CI use the secrets?');
      assert.match(secrets, /python: \['3\.11', '3\.12'\]/);
      assert.doesNotMatch(secrets, /never sent/);
    } finally {
      repo.cleanup();
      outside.cleanup();
    }
  });

  test("a changelog over the regions reader's size limit still sends its newest entries", async () => {
    const old = Array.from({ length: 60_000 }, (_, i) => `- an old change number ${i} of release 0.${i}`).join('\n');
    const repo = makeRepo({
      files: {
        'CHANGELOG.md': `# Changelog\n\n## 9.0.0\n\n- dropped the legacy parser\n\n## 8.0.0\n\n${old}\n`,
        'src/app.py': 'def run(): pass\n',
      },
      // The last commit's diff is not where the entries come from.
      commits: [{ message: 'Tune run', files: { 'src/app.py': 'def run(): return 1\n' } }],
    });
    try {
      assert.ok(fs.statSync(path.join(repo.dir, 'CHANGELOG.md')).size > 2 * 1024 * 1024);
      const { ms, result } = await cpuMs(() => retrievalItems(source, repo.dir, "What's in the changelog?"));
      const changelog = result.find((item) => item.key === 'retrieval.code.CHANGELOG.md')?.text ?? '';
      assert.match(changelog, /dropped the legacy parser/);
      assert.ok(changelog.length < 20_000, `${changelog.length} chars: the head, not the file`);
      assert.ok(ms < 2000, `${ms} ms of CPU`);
    } finally {
      repo.cleanup();
    }
  });

  test("a workflow named by its `name:` line, quoted or in the question's words, before the others", async () => {
    const repo = makeRepo({
      files: {
        '.github/workflows/build.yml': `name: Build and release\n${matrix("'3.8'")}\n`,
        '.github/workflows/abi-check.yml': `name: "ABI check"\n${matrix("'3.9'")}\n`,
        '.github/workflows/test.yml': `name: C/C++ CI\n${matrix("'3.13'")}\n`,
        // A `#` inside a title is not a comment: this one is not titled "C".
        '.github/workflows/dotnet.yml': `name: C# build  # nightly too\n${matrix("'3.7'")}\n`,
        'src/app.c': 'int main(void) { return 0; }\n',
      },
    });
    try {
      const quoted = await askRetrieval(source, repo.dir, "What does the 'C/C++ CI' workflow run?");
      assert.match(quoted, /'3\.13'/);
      assert.doesNotMatch(quoted, /'3\.8'|'3\.9'|'3\.7'/);
      const worded = await askRetrieval(source, repo.dir, 'Which jobs does the ABI check workflow have?');
      assert.match(worded, /'3\.9'/);
      assert.doesNotMatch(worded, /'3\.8'|'3\.13'|'3\.7'/);
      assert.match(await askRetrieval(source, repo.dir, 'What does the C# build workflow run?'), /'3\.7'/);
    } finally {
      repo.cleanup();
    }
  });
});
