// The audit folder ignores itself: `.ctxproxy/.gitignore` holds `*`, so the
// audit log (private code and conversations) never enters the user's repository.

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openAuditStore } from '../../src/audit/store.ts';
import { startFakeOllama } from '../support/fakeOllama.ts';
import { makeDir, makeRepo } from '../support/gitRepo.ts';
import { startProxy } from '../support/proxy.ts';

describe('the audit folder in a repository', () => {
  it('is not listed by git status after the first request in a fresh repository', async () => {
    const repo = makeRepo({ files: { 'README.md': '# app\n' } });
    const fake = await startFakeOllama();
    const proxy = await startProxy({
      upstreamUrl: fake.url,
      workspace: repo.dir,
      dbPath: join(repo.dir, '.ctxproxy', 'audit.db'),
    });
    try {
      await proxy.client().chat.completions.create({
        model: 'llama3.2:3b',
        messages: [{ role: 'user', content: 'hello' }],
      });
      await proxy.store.flush();
      assert.ok(existsSync(join(repo.dir, '.ctxproxy', 'audit.db')));
      assert.equal(repo.git('status', '--porcelain', '--untracked-files=all'), '');
      repo.git('add', '-A');
      assert.doesNotMatch(repo.git('diff', '--cached', '--name-only'), /\.ctxproxy/);
    } finally {
      await proxy.close();
      await fake.close();
      repo.cleanup();
    }
  });

  it('gives an existing .ctxproxy folder its .gitignore on start-up, and writes `*` over whatever was there', async () => {
    const dir = makeDir();
    try {
      mkdirSync(join(dir.dir, '.ctxproxy'));
      await openAuditStore({ path: join(dir.dir, '.ctxproxy', 'audit.db') }).close();
      assert.match(readFileSync(join(dir.dir, '.ctxproxy', '.gitignore'), 'utf8'), /^\*$/m);

      // A committed .gitignore that ignores nothing (or not the log): `git add -A` would take the log.
      for (const [name, text] of [
        ['empty', ''],
        ['partial', '# mine\n*.db\n'],
        ['negated', '*\n!audit.db\n'],
      ] as const) {
        mkdirSync(join(dir.dir, name, '.ctxproxy'), { recursive: true });
        writeFileSync(join(dir.dir, name, '.ctxproxy', '.gitignore'), text);
        await openAuditStore({ path: join(dir.dir, name, '.ctxproxy', 'audit.db') }).close();
        assert.equal(
          readFileSync(join(dir.dir, name, '.ctxproxy', '.gitignore'), 'utf8').replace(/^#.*\n/gm, ''),
          '*\n',
          `${name}: replaced by \`*\``,
        );
      }
    } finally {
      dir.cleanup();
    }
  });

  it('writes nothing into a folder the user chose with --db', async () => {
    const dir = makeDir();
    try {
      await openAuditStore({ path: join(dir.dir, 'logs', 'audit.db') }).close();
      assert.ok(existsSync(join(dir.dir, 'logs', 'audit.db')));
      assert.equal(existsSync(join(dir.dir, 'logs', '.gitignore')), false);
    } finally {
      dir.cleanup();
    }
  });
});
