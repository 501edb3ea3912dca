// "Which license is this under?": the head of the project's own license file,
// whatever the ecosystem names it (COPYING, LICENCE.txt, LICENSE-MIT), the
// root's before a test fixture's or a vendored copy's.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { legalRank } from '../../../src/sources/retrieval/legalFiles.ts';
import { createRetrievalSource } from '../../../src/sources/retrieval/source.ts';
import { Workspaces } from '../../../src/sources/workspace.ts';
import { makeRepo, type TempRepo } from '../../support/gitRepo.ts';
import { testDeps } from '../input.ts';
import { askRetrieval } from './ask.ts';

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
    const deps = testDeps();
    const source = createRetrievalSource(deps, new Workspaces(deps));
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
