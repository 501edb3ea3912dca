// A supervisor may stop the server the moment it reads the ready line: the signal
// must already be handled (drain, audit written, exit 0), not kill the process.
// The gap this closes is small; it showed under load, as on a busy laptop.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startServe } from '../support/ctxproxyProcess.ts';
import { makeRepo, type TempRepo } from '../support/gitRepo.ts';

let repo: TempRepo;
before(() => {
  repo = makeRepo({ files: { 'README.md': 'A project.\n' } });
});
after(() => repo.cleanup());

test('SIGTERM right after the ready line stops the server cleanly', async () => {
  for (let attempt = 0; attempt < 3; attempt++) {
    const served = await startServe(['--upstream', 'http://127.0.0.1:9'], repo.dir);
    served.signal('SIGTERM');
    assert.equal(await served.exited, 0, served.log());
    assert.match(served.log(), /"event":"server.stopped"/);
  }
});
