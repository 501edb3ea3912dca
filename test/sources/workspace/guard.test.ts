// The file guard on its own: zones, never-read names and targets, links, and
// files that are not regular files (a FIFO would block a read, a device never ends).

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { FileGuard, makeZone, NEVER_READ_REASON } from '../../../src/sources/workspace/guard.ts';
import { readRegularFile } from '../../../src/sources/workspace/syncRead.ts';
import { makeDir } from '../../support/gitRepo.ts';
import { realNeverRead } from '../input.ts';

describe('FileGuard', () => {
  const ws = makeDir({ 'a.md': 'A\n', 'docs/b.md': 'B\n', 'secrets/.env': 'X=1\n' });
  const outside = makeDir({ 'c.md': 'C\n' });
  after(() => {
    ws.cleanup();
    outside.cleanup();
  });
  const guard = new FileGuard(realNeverRead);
  const zone = makeZone('the workspace', [ws.dir]);

  test('inside: read from the real path; missing: no refusal', () => {
    const read = guard.read(path.join(ws.dir, 'docs', 'b.md'), zone);
    assert.equal(read.text, 'B\n');
    assert.deepEqual(guard.read(path.join(ws.dir, 'nope.md'), zone), {});
  });

  test('a link inside that leads to a never-read file, and a never-read name', () => {
    fs.symlinkSync(path.join(ws.dir, 'secrets', '.env'), path.join(ws.dir, 'notes.md'));
    assert.deepEqual(guard.read(path.join(ws.dir, 'notes.md'), zone), { refused: NEVER_READ_REASON });
    assert.deepEqual(guard.read(path.join(ws.dir, 'a.md'), zone, ['~/.ssh/id_rsa']), { refused: NEVER_READ_REASON });
  });

  test('a folder on the way that is a link out', () => {
    fs.symlinkSync(outside.dir, path.join(ws.dir, 'linked'));
    assert.deepEqual(guard.read(path.join(ws.dir, 'linked', 'c.md'), zone), {
      refused: 'refused: symlink to a path outside the workspace',
    });
  });

  test('a FIFO inside and a device are refused, not read', () => {
    execFileSync('mkfifo', [path.join(ws.dir, 'pipe.md')]);
    assert.deepEqual(guard.read(path.join(ws.dir, 'pipe.md'), zone), { refused: 'refused: not a regular file' });
    assert.deepEqual(guard.read('/dev/zero', makeZone('/dev', ['/dev'])), { refused: 'refused: not a regular file' });
  });

  test('a read judges the file it opened: a FIFO (as if swapped in after the check) returns at once, unread', () => {
    const fifo = path.join(ws.dir, 'swapped.md');
    execFileSync('mkfifo', [fifo]);
    // Opened without waiting for a writer, then judged on the descriptor: no hang, nothing read.
    assert.equal(readRegularFile(fifo, 1024), undefined);
    assert.deepEqual(readRegularFile(path.join(ws.dir, 'a.md'), 1024)?.buffer?.toString(), 'A\n');
    const over = readRegularFile(path.join(ws.dir, 'a.md'), 1, true);
    assert.equal(over?.size, 2);
    assert.equal(over?.buffer, undefined, 'a file over the limit is not read');
    assert.throws(() => readRegularFile(path.join(ws.dir, 'missing.md'), 1024), { code: 'ENOENT' });
  });
});
