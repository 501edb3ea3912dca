// The sources on repositories written by an attacker: nothing outside the
// workspace is read, no command from the repository's git config runs, and
// every refusal is in the source report.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { SkippedPath, SourceResult } from '../../src/shared/types.ts';
import { createSourceSet, type SourceSet } from '../../src/sources/index.ts';
import {
  CLAUDE_MEMORY,
  makeUntrustedFixture,
  OUTSIDE,
  type UntrustedFixture,
  USER_DOTFILES,
} from '../support/untrustedRepo.ts';
import { input, signal, testDeps } from './input.ts';

const ALL = ['env.', 'git.', 'instructions.', 'tree.', 'files.', 'stacktrace.', 'stats.'];

describe('sources on an untrusted repository', () => {
  let fx: UntrustedFixture;
  let set: SourceSet;

  before(() => {
    fx = makeUntrustedFixture();
    set = createSourceSet(testDeps({ homeDir: fx.home.dir }));
  });
  after(() => {
    set.close();
    fx.cleanup();
  });

  const collectAll = async (workspace: string, text: string) => {
    const results = new Map<string, SourceResult>();
    for (const source of set.sources) {
      // As the pipeline does: a source that fails is skipped, the others go on.
      const result = await source.collect(input(workspace, { text, wanted: ALL }), signal).catch(() => ({ items: [] }));
      results.set(source.name, result);
    }
    const all = JSON.stringify([...results.values()]);
    const skipped = (name: string): SkippedPath[] => results.get(name)?.skipped ?? [];
    return { results, all, skipped };
  };

  const assertNothingOutside = (all: string) => {
    for (const [name, marker] of Object.entries(OUTSIDE)) {
      assert.ok(!all.includes(marker), `${name} was read from outside the workspace`);
    }
  };

  test('symlinked instruction files and @~/ imports are refused, and each refusal is reported', async () => {
    const { all, skipped, results } = await collectAll(fx.links.dir, 'look at src/leak.ts and src/app.ts');
    assertNothingOutside(all);
    const reasons = Object.fromEntries(skipped('instructions').map((s) => [s.path, s.reason]));
    const outsideLink = 'refused: symlink to a path outside the workspace';
    assert.equal(reasons['AGENTS.md'], outsideLink);
    assert.equal(reasons['CLAUDE.local.md'], outsideLink);
    assert.equal(reasons['.claude/CLAUDE.md'], outsideLink);
    assert.equal(reasons['.github/copilot-instructions.md'], outsideLink);
    assert.equal(reasons['.cursor/rules/leak.mdc'], outsideLink);
    assert.equal(reasons['.claude/rules/leak.md'], outsideLink);
    assert.match(reasons['docs/via-link.md'] ?? '', /^refused: symlink to a path outside the workspace \(import/);
    assert.match(reasons['~/.ssh/id_rsa'] ?? '', /^refused: never read/);
    assert.match(reasons['~/.aws/credentials'] ?? '', /^refused: never read/);
    assert.match(reasons['~/plain.txt'] ?? '', /^refused: outside ~\/\.claude/);
    // The report says "outside", never where the link points.
    assert.ok(!JSON.stringify(skipped('instructions')).includes(fx.outside.dir));
    // The user's own memory file under ~/.claude is still imported.
    const instructions = JSON.stringify(results.get('instructions')?.items);
    assert.ok(instructions.includes(CLAUDE_MEMORY), 'an @~/.claude/ import still works');
    assert.ok(instructions.includes(USER_DOTFILES), 'the user’s own ~/.claude/CLAUDE.md link is followed');
    assert.ok(instructions.includes('Project rules.'));
    // A named file that is a link out is refused by the files source too.
    assert.ok(skipped('files').some((s) => s.path === 'src/leak.ts'));
  });

  test('a .git file that points outside the workspace turns git off, and says so', async () => {
    const { all, skipped, results } = await collectAll(fx.pointsOut.dir, 'hello');
    assertNothingOutside(all);
    assert.deepEqual(results.get('git')?.items, []);
    assert.deepEqual(skipped('git'), [
      { path: 'git', reason: '.git points outside the workspace; git context is off' },
    ]);
    // The tree still works, from the file system.
    assert.ok(JSON.stringify(results.get('tree')?.items).includes('README.md'));
  });

  test('the repository’s git config runs nothing: fsmonitor, filters, diff drivers, pager, hooks', async () => {
    const { results } = await collectAll(fx.evil.dir, 'what changed in notes.txt?');
    assert.deepEqual(fx.ran(), [], 'a command from the repository config ran');
    // Git still answers (an in-tree git folder is allowed), with the real changes.
    const git = JSON.stringify(results.get('git')?.items);
    assert.match(git, /notes\.txt/);
    assert.match(git, /\+two/, 'the unstaged diff is there, without the textconv driver');
  });
});
