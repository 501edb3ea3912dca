// Instruction files of the folders in play (issue 13, item 5): the nested
// CLAUDE.md / AGENTS.md / .claude/rules / .cursor/rules of the folders of the
// files named or changed, after the root's, nearest last, with their imports;
// folders not in play and ignored folders are not read.

import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { createInstructionsSource } from '../../src/sources/instructions.ts';
import { Workspaces } from '../../src/sources/workspace.ts';
import { makeRepo, type TempRepo } from '../support/gitRepo.ts';
import { input, signal, testDeps } from './input.ts';

describe('nested instruction files', () => {
  const repos: TempRepo[] = [];
  after(() => {
    for (const repo of repos) repo.cleanup();
  });

  test('root first, then each folder in play down to the nearest, with imports and scoped rules', async () => {
    const r = makeRepo({
      files: {
        'CLAUDE.md': 'ROOT RULES\n',
        '.gitignore': 'build/\n',
        'services/CLAUDE.md': 'SERVICES RULES\n',
        'services/billing/CLAUDE.md': 'BILLING RULES\nSee @docs/rates.md\n',
        'services/billing/docs/rates.md': 'RATES ARE IN CENTS\n',
        'services/billing/AGENTS.md': 'BILLING AGENTS\n',
        'services/billing/.cursor/rules/py.mdc': '---\nglobs: "*.py"\n---\nBILLING PY RULE\n',
        'services/billing/.cursor/rules/go.mdc': '---\nglobs: "*.go"\n---\nBILLING GO RULE\n',
        'services/billing/.claude/rules/style.md': 'BILLING STYLE\n',
        'services/billing/rates.py': 'RATE = 1\n',
        'services/search/CLAUDE.md': 'SEARCH RULES\n',
        'services/search/main.go': 'package main\n',
        'build/CLAUDE.md': 'BUILD RULES\n',
      },
    });
    repos.push(r);
    const deps = testDeps();
    const source = createInstructionsSource(deps, new Workspaces(deps));
    const { items } = await source.collect(
      input(r.dir, { wanted: ['instructions.'], text: 'where is the rate in services/billing/rates.py set?' }),
      signal,
    );
    assert.deepEqual(
      items.map((item) => item.key),
      [
        'instructions.project.CLAUDE.md',
        'instructions.project.services/CLAUDE.md',
        'instructions.project.services/billing/CLAUDE.md',
        'instructions.import.services/billing/docs/rates.md',
        'instructions.project.services/billing/AGENTS.md',
        'instructions.rules.services/billing/.claude/rules/style.md',
        'instructions.rules.services/billing/.cursor/rules/py.mdc',
      ],
    );
    const texts = items.map((item) => item.text).join('\n');
    assert.doesNotMatch(texts, /SEARCH RULES|BUILD RULES|BILLING GO RULE/, 'not in play, or not matching');
    // Each says why it was sent (the audit page shows it): whose it is, and the folder in play.
    assert.deepEqual(
      items.map((item) => item.why),
      [
        'the instruction file of the project',
        'the instruction file of services/, a folder in play',
        'the instruction file of services/billing/, a folder in play',
        'imported by services/billing/CLAUDE.md (the instruction file of services/billing/, a folder in play)',
        'the instruction file of services/billing/, a folder in play',
        'a rule file of services/billing/, a folder in play',
        'a rule file of services/billing/, a folder in play',
      ],
    );

    // A change in another folder brings its file in, a named ignored folder does not.
    r.write('services/search/main.go', 'package main // edited\n');
    r.write('build/out.txt', 'x\n');
    // A fresh state: without the work-tree watcher (off in tests) a clean file's edit waits for the memo's TTL.
    const fresh = createInstructionsSource(deps, new Workspaces(deps));
    const next = await fresh.collect(input(r.dir, { wanted: ['instructions.'], text: 'and build/out.txt?' }), signal);
    const keys = next.items.map((item) => item.key);
    assert.ok(keys.includes('instructions.project.services/search/CLAUDE.md'), keys.join(', '));
    assert.ok(!keys.includes('instructions.project.build/CLAUDE.md'), 'ignored folder');
    assert.ok(
      keys.indexOf('instructions.project.services/CLAUDE.md') <
        keys.indexOf('instructions.project.services/search/CLAUDE.md'),
    );
  });
});
