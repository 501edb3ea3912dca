// canonicalPath: the one answer to "where is this path really?" that every
// inside-the-workspace check uses, including for paths that do not resolve
// (missing files, dangling links, link loops).

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { judgeConfig } from '../../../src/sources/git/gitConfigJudge.ts';
import { canonicalPath, isInside } from '../../../src/sources/workspace/canonicalPath.ts';
import { makeDir } from '../../support/gitRepo.ts';

describe('canonicalPath', () => {
  const real = makeDir({ 'src/a.ts': 'a\n' });
  const outside = makeDir({ 'secret.txt': 'x\n' });
  const links = makeDir();
  after(() => {
    for (const dir of [real, outside, links]) dir.cleanup();
  });
  // The workspace as the user names it: through a link, as a symlinked home or checkout would be.
  const ws = path.join(links.dir, 'ws');
  fs.symlinkSync(real.dir, ws);
  const realWs = fs.realpathSync.native(real.dir);
  const realOutside = fs.realpathSync.native(outside.dir);

  test('an existing file: its real path, links on the way resolved', () => {
    assert.equal(canonicalPath(path.join(ws, 'src', 'a.ts')), path.join(realWs, 'src', 'a.ts'));
  });

  test('a relative path comes back absolute', () => {
    assert.equal(canonicalPath(path.relative(process.cwd(), path.join(ws, 'src'))), path.join(realWs, 'src'));
  });

  test('a missing file, folders missing too: the nearest real folder, then the rest of the name', () => {
    assert.equal(canonicalPath(path.join(ws, 'src', 'new.ts')), path.join(realWs, 'src', 'new.ts'));
    assert.equal(canonicalPath(path.join(ws, 'gen', 'deep', 'x.ts')), path.join(realWs, 'gen', 'deep', 'x.ts'));
  });

  test('a missing file under a folder linked out of the workspace lands outside', () => {
    fs.symlinkSync(outside.dir, path.join(real.dir, 'out'));
    const where = canonicalPath(path.join(ws, 'out', 'later', 'file.txt'));
    assert.equal(where, path.join(realOutside, 'later', 'file.txt'));
    assert.equal(isInside(realWs, where), false);
  });

  test('a dangling link is judged by where its target would be', () => {
    fs.symlinkSync(path.join(outside.dir, 'not-yet.txt'), path.join(real.dir, 'dangling.txt'));
    fs.symlinkSync('dangling.txt', path.join(real.dir, 'chain.txt'));
    assert.equal(canonicalPath(path.join(ws, 'dangling.txt')), path.join(realOutside, 'not-yet.txt'));
    assert.equal(canonicalPath(path.join(ws, 'chain.txt', 'below')), path.join(realOutside, 'not-yet.txt', 'below'));
  });

  test('a link loop does not throw or hang: the link stays where it sits', () => {
    fs.symlinkSync('loop-b', path.join(real.dir, 'loop-a'));
    fs.symlinkSync('loop-a', path.join(real.dir, 'loop-b'));
    const where = canonicalPath(path.join(ws, 'loop-a', 'x'));
    assert.ok(isInside(realWs, where), where);
    assert.match(path.basename(where), /^x$/);
  });

  test('the git config judge refuses an include through a dangling link to outside', () => {
    // A repository includes `inc.cfg`, a link to a file outside that is not there (yet).
    fs.symlinkSync(path.join(outside.dir, 'later.cfg'), path.join(real.dir, 'inc.cfg'));
    const localFile = path.join(realWs, '.git', 'config');
    const judged = judgeConfig([{ scope: 'local', key: 'include.path', value: '../inc.cfg', file: localFile }], {
      top: realWs,
      gitDir: path.join(realWs, '.git'),
      localFile,
      worktreeFile: path.join(realWs, '.git', 'config.worktree'),
      home: links.dir,
    });
    assert.equal(judged.ok, false);
  });
});

describe('isInside', () => {
  test('strictly below the root; the root itself, siblings with a shared prefix and parents are not; `..name` is a name', () => {
    assert.equal(isInside('/w/repo', '/w/repo/a/b.ts'), true);
    assert.equal(isInside('/w/repo', '/w/repo'), false);
    assert.equal(isInside('/w/repo', '/w/repo2/a.ts'), false);
    assert.equal(isInside('/w/repo', '/w/a.ts'), false);
    assert.equal(isInside('/w/repo', '/w/repo/..notes/a.md'), true);
  });
});
