// The history part of the persistent index (issue 23, part 2) on real git
// repositories: it indexes the recent commits once, reads only a new commit
// after HEAD moves, drops the commits a rewrite (amend, rebase) left behind,
// answers after a restart without reading git again, cuts a huge commit and
// says why, ranks a commit whose changed lines hold a name above one whose
// message only mentions it, and while it builds retrieval answers with git log
// and the report says what was not searched (historyRetrieval.test.ts).

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openIndexDatabase } from '../../../src/pipeline/indexDatabase.ts';
import { silentLogger } from '../../../src/shared/logger.ts';
import type { HistoryIndexOptions } from '../../../src/sources/retrieval/index/historyIndex.ts';
import { createRetrievalIndexes } from '../../../src/sources/retrieval/index/registry.ts';
import { Workspaces } from '../../../src/sources/workspace.ts';
import { makeRepo, type TempRepo } from '../../support/gitRepo.ts';
import { testDeps } from '../input.ts';

const deps = () => testDeps({ openIndex: (root) => openIndexDatabase(root, silentLogger) });

function openHistory(dir: string, options: Partial<HistoryIndexOptions> = {}) {
  const d = deps();
  const workspaces = new Workspaces(d);
  const indexes = createRetrievalIndexes(d, workspaces, { history: options });
  const history = indexes.openHistory(dir);
  assert.ok(history, 'the history index opens');
  return {
    history,
    answer: () => indexes.index?.history(workspaces.get(dir)),
    close: () => {
      indexes.close();
      workspaces.closeAll();
    },
  };
}

const head = (repo: TempRepo) => repo.git('rev-parse', 'HEAD').trim();

describe('history index', () => {
  let repo: TempRepo;

  before(() => {
    repo = makeRepo({
      files: { 'billing/rates.py': 'RATES = {"eu": 0.19}\n', 'README.md': '# Billing\n' },
      commits: [
        {
          message: 'Add the rate lookup\n\nRegions are looked up in RATES.',
          files: { 'billing/rates.py': 'RATES = {"eu": 0.19}\n\ndef compute_rate(amount):\n    return amount\n' },
          date: '2026-01-02T10:00:00Z',
        },
        {
          // Newer, and its message names compute_rate, but its changed lines do not.
          message: 'Docs: explain how compute_rate rounds',
          files: { 'README.md': '# Billing\n\nAmounts are rounded half up.\n' },
          date: '2026-01-03T10:00:00Z',
        },
      ],
    });
  });
  after(() => repo.cleanup());

  test('ranks the commit whose changed lines hold a name above a newer one whose message only mentions it', async () => {
    const opened = openHistory(repo.dir);
    try {
      await opened.history.warm();
      assert.equal(opened.history.store.count(), 3);
      const found = opened.history.changesOf(['compute_rate'], 'added', 5);
      const subject = (sha: string) => repo.git('log', '-1', '--format=%s', sha).trim();
      assert.deepEqual(
        found.map((commit) => [subject(commit.sha), commit.place]),
        [
          ['Add the rate lookup', 'added'],
          ['Docs: explain how compute_rate rounds', 'message'],
        ],
      );
      assert.deepEqual(found[0]?.rels, ['billing/rates.py']);
      // Paths: the newest commit of a file, by path or by bare name.
      assert.equal(
        subject(opened.history.commitsOf(['README.md'], 1)[0]?.sha ?? ''),
        'Docs: explain how compute_rate rounds',
      );
      assert.equal(subject(opened.history.commitsOf(['rates.py'], 1)[0]?.sha ?? ''), 'Add the rate lookup');
    } finally {
      opened.close();
    }
  });

  test('reads only a new commit, drops the ones an amend rewrote, and a restart reads nothing again', async () => {
    const first = openHistory(repo.dir);
    await first.history.warm();
    first.close();
    const restarted = openHistory(repo.dir);
    try {
      assert.equal((await restarted.answer())?.lookup, restarted.history, 'the stored history answers at once');
      assert.equal(restarted.history.reads, 0, 'nothing read again after a restart');
      repo.write('billing/rates.py', 'RATES = {"eu": 0.19}\n\ndef compute_rate(amount):\n    return round(amount)\n');
      repo.git('commit', '-q', '-am', 'Round the rate');
      const rounded = head(repo);
      await restarted.history.warm();
      assert.equal(restarted.history.reads, 1, 'only the new commit is read');
      assert.ok(restarted.history.store.commits().has(rounded));
      // Rewritten: the amended commit replaces it; the old one is unreachable and leaves the index.
      repo.git('commit', '-q', '--amend', '-m', 'Round the rate half up');
      await restarted.history.warm();
      const stored = restarted.history.store.commits();
      assert.ok(!stored.has(rounded), 'the rewritten commit is dropped');
      assert.ok(stored.has(head(repo)));
      assert.equal(stored.size, 4);
      assert.equal(restarted.history.reads, 2);
      // A rebase that drops a commit: reset to before it.
      repo.git('reset', '-q', '--hard', 'HEAD~1');
      await restarted.history.warm();
      assert.equal(restarted.history.store.count(), 3);
      assert.equal(restarted.history.changesOf(['round'], 'added', 5).length, 0);
    } finally {
      restarted.close();
    }
  });

  test('keeps the newest commits up to its bound', async () => {
    const bounded = openHistory(repo.dir, { maxCommits: 2 });
    try {
      await bounded.history.warm();
      const stored = bounded.history.store.commits();
      assert.deepEqual([...stored.keys()].sort(), repo.git('rev-list', '-n2', 'HEAD').trim().split('\n').sort());
    } finally {
      bounded.close();
    }
  });
});

test('a commit over the byte limit is indexed in part, with its reason and all its paths', async () => {
  const files: Record<string, string> = {};
  for (let k = 0; k < 30; k++) files[`gen/part${k}.txt`] = `${'generated line of data\n'.repeat(200)}MARKER_${k}\n`;
  const repo = makeRepo({
    files: { 'a.txt': 'a\n' },
    commits: [{ message: 'Regenerate the data', files }],
  });
  const opened = openHistory(repo.dir, { commitBytes: 8 * 1024 });
  try {
    await opened.history.warm();
    const sha = head(repo);
    assert.match(opened.history.cutOf(sha) ?? '', /over 8192 bytes: the first part indexed/);
    assert.equal(opened.history.commitsOf(['gen/part29.txt'], 1)[0]?.sha, sha, 'a path past the cut is still known');
    assert.deepEqual(opened.history.changesOf(['MARKER_29'], undefined, 3), [], 'lines past the cut are not');
    assert.equal(opened.history.changesOf(['MARKER_0'], undefined, 3)[0]?.sha, sha);
  } finally {
    opened.close();
    repo.cleanup();
  }
});
