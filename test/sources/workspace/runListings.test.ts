// The folder listings the instructions and manifests sources share within one
// request: each folder is listed once, the memo stamp is the one taken before
// that listing (so a change made after it is still caught), and nothing is kept
// past the request.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { StatTracker } from '../../../src/sources/trackedMemo.ts';
import { RunListings } from '../../../src/sources/workspace/runListings.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctxproxy-listings-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

test('one listing per folder per run; the tracker holds the stamp from before it, so a later change invalidates', async () => {
  fs.writeFileSync(path.join(dir, 'a.md'), 'a');
  fs.writeFileSync(path.join(dir, '.gitignore'), 'skipped/\n');
  const listings = new RunListings(dir);
  const first = new StatTracker();
  assert.deepEqual(
    listings.list(dir, first).map((e) => e.name),
    ['.gitignore', 'a.md'],
  );
  assert.equal(listings.ignored('skipped/'), true);
  assert.equal(listings.ignored('kept/'), false);

  // Sharper than the file system's clock: make the folder's mtime differ for sure.
  fs.writeFileSync(path.join(dir, 'b.md'), 'b');
  fs.utimesSync(dir, new Date(), new Date(Date.now() + 5_000));
  const second = new StatTracker();
  // Same run: the shared listing (the second source sees what the first saw)...
  assert.deepEqual(
    listings.list(dir, second).map((e) => e.name),
    ['.gitignore', 'a.md'],
  );
  // ...and both trackers know it is out of date, so neither memo keeps it.
  assert.equal(first.stillValid(), false);
  assert.equal(second.stillValid(), false);

  listings.clear();
  assert.deepEqual(
    listings.list(dir, new StatTracker()).map((e) => e.name),
    ['.gitignore', 'a.md', 'b.md'],
  );
  // Cleared on the next turn of the event loop at the latest.
  fs.writeFileSync(path.join(dir, 'c.md'), 'c');
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(
    listings.list(dir, new StatTracker()).map((e) => e.name),
    ['.gitignore', 'a.md', 'b.md', 'c.md'],
  );
});
