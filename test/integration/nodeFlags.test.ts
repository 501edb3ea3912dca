// The installed command (`ctxproxy`, through the bin's `#!/usr/bin/env -S node …` line) and `npm start`
// run Node with the same flags, and those flags take effect: the young generation stays small, and the
// old one is collected before it grows far past what the last collection kept.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = `${root}bin/ctxproxy.js`;

function shebangFlags(): string[] {
  const first = readFileSync(bin, 'utf8').split('\n', 1)[0] ?? '';
  const match = /^#!\/usr\/bin\/env -S node((?:\s+--\S+)*)\s*$/.exec(first);
  assert.ok(match, `the bin's first line runs node through env -S: ${first}`);
  return (match[1] ?? '').trim().split(/\s+/).filter(Boolean);
}

test('npm start passes the flags the bin sets for itself', () => {
  const flags = shebangFlags();
  assert.ok(flags.includes('--max-semi-space-size=2'), flags.join(' '));
  const start = (JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { scripts: { start: string } }).scripts
    .start;
  assert.equal(start, `node ${flags.join(' ')} bin/ctxproxy.js serve`);
});

test('Node accepts the flags, and they bound the young generation', () => {
  const probe = spawnSync(
    process.execPath,
    [
      ...shebangFlags(),
      '-e',
      `let keep = [];
       for (let i = 0; i < 2e6; i++) { keep.push({ i }); if (keep.length > 50000) keep = []; }
       const space = require('node:v8').getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
       console.log(space.space_size)`,
    ],
    { encoding: 'utf8' },
  );
  assert.equal(probe.status, 0, probe.stderr);
  assert.ok(Number(probe.stdout) <= 8 * 1024 * 1024, `new space ${probe.stdout} bytes`);
});

test('Node collects the old generation before it grows far past what it keeps', () => {
  // About 45 MB kept, and a window of objects that live long enough to reach the old generation, then die:
  // V8's default let the heap reach 135-199 MB on a 2-core, 24 GB machine before a full collection, the
  // bin's --heap-growing-percent=50 79-82 MB (107 once, under load).
  const probe = spawnSync(
    process.execPath,
    [
      ...shebangFlags(),
      '-e',
      `const kept = Array.from({ length: 100 }, () => Array.from({ length: 10000 }, (_, i) => ({ i })));
       let window = [];
       let most = 0;
       for (let i = 0; i < 2e6; i++) {
         window.push({ i, s: 'x' + i });
         if (window.length > 100000) window = [];
         if (i % 10000 === 0) most = Math.max(most, process.memoryUsage().heapTotal);
       }
       console.log(most, kept.length)`,
    ],
    { encoding: 'utf8' },
  );
  assert.equal(probe.status, 0, probe.stderr);
  const most = Number(probe.stdout.split(' ')[0]);
  assert.ok(most <= 125 * 1024 * 1024, `heap reached ${(most / 1048576).toFixed(0)} MB`);
});
