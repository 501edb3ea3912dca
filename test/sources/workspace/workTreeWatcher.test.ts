import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { WorkTreeWatcher } from '../../../src/sources/workspace/workTreeWatcher.ts';

function tree(folders: number): { root: string; dirs: string[]; cleanup: () => void } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ctxproxy-watch-'));
  const dirs = [''];
  for (let i = 0; i < folders; i++) {
    fs.mkdirSync(path.join(root, `d${i}`));
    dirs.push(`d${i}`);
  }
  return { root, dirs, cleanup: () => fs.rmSync(root, { recursive: true, force: true }) };
}

describe('work-tree watcher arming', () => {
  test('a large tree is armed over several turns of the event loop, so other work runs in between', async () => {
    const t = tree(200);
    const watcher = new WorkTreeWatcher(t.root);
    try {
      let armedWhenOtherWorkRan: boolean | undefined;
      const arming = watcher.arm(t.dirs, () => false);
      // Stands for the request's next step, queued as arming starts.
      setImmediate(() => {
        armedWhenOtherWorkRan = watcher.armed;
      });
      await arming;
      assert.equal(armedWhenOtherWorkRan, false, 'the other work ran before arming finished');
      assert.equal(watcher.armed, true);
      const before = watcher.stamp();
      fs.writeFileSync(path.join(t.root, 'd199', 'new.ts'), 'x\n');
      for (let i = 0; i < 200 && watcher.stamp() === before; i++) await new Promise((r) => setTimeout(r, 5));
      assert.notEqual(watcher.stamp(), before, 'the last slice is watched too');
    } finally {
      watcher.close();
      t.cleanup();
    }
  });

  test('closing while arming stops it: nothing stays watched and it never reads as armed', async () => {
    const t = tree(200);
    const watcher = new WorkTreeWatcher(t.root);
    try {
      const arming = watcher.arm(t.dirs, () => false);
      watcher.close();
      await arming;
      assert.equal(watcher.armed, false);
    } finally {
      t.cleanup();
    }
  });
});
