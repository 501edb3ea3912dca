import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { defineSource } from '../../src/sources/defineSource.ts';
import { Workspaces } from '../../src/sources/workspace.ts';
import { makeRepo } from '../support/gitRepo.ts';
import { input, signal, testDeps } from './input.ts';

describe('defineSource: git first on a cold run', () => {
  test('a source waits one turn of the event loop while git commands are being started, not on a warm run', async () => {
    const repo = makeRepo({ files: { 'a.ts': 'a\n' } });
    try {
      const deps = testDeps();
      const workspaces = new Workspaces(deps);
      const events: string[] = [];
      let cold = true;
      // Stands for tree, git and stats: on a cold run its first act is to put a git command together.
      const first = defineSource(
        workspaces,
        { name: 'first', timeoutMs: 1_000, answers: ['first.'], spawnsFirst: true },
        async ({ ws }) => {
          if (cold) ws.gitArgs(['status']);
          events.push('first');
          return { items: [] };
        },
      );
      const other = defineSource(workspaces, { name: 'other', timeoutMs: 1_000, answers: ['other.'] }, async () => {
        events.push('other');
        return { items: [] };
      });
      const run = async () => {
        events.length = 0;
        // Queued before the sources start: it runs on the next turn, before anything queued later.
        setImmediate(() => events.push('next turn'));
        const wanted = ['first.', 'other.'];
        await Promise.all([first, other].map((source) => source.collect(input(repo.dir, { wanted }), signal)));
        await new Promise((resolve) => setImmediate(resolve));
        return [...events];
      };
      assert.deepEqual(await run(), ['first', 'next turn', 'other']);
      cold = false;
      assert.deepEqual(await run(), ['first', 'other', 'next turn']);
    } finally {
      repo.cleanup();
    }
  });

  test('the work-tree watcher is armed once the sources are done, not while one still collects', async () => {
    const repo = makeRepo({ files: { 'a/b.ts': 'b\n', 'c/d.ts': 'd\n' } });
    try {
      const deps = testDeps({ watchWorkTree: true });
      const workspaces = new Workspaces(deps);
      let finish = () => {};
      const held = new Promise<void>((resolve) => {
        finish = resolve;
      });
      const slow = defineSource(workspaces, { name: 'slow', timeoutMs: 5_000, answers: ['slow.'] }, async ({ ws }) => {
        await ws.walk();
        await held;
        return { items: [] };
      });
      const collecting = slow.collect(input(repo.dir, { wanted: ['slow.'] }), signal);
      const ws = workspaces.get(repo.dir);
      const turns = async (n: number) => {
        for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
      };
      await turns(20);
      assert.equal(ws.watcher.armed, false, 'not armed while a source collects');
      finish();
      await collecting;
      for (let i = 0; i < 100 && !ws.watcher.armed; i++) await turns(1);
      assert.equal(ws.watcher.armed, true);
      workspaces.closeAll();
    } finally {
      repo.cleanup();
    }
  });
});
