import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { findImports } from '../../src/sources/instructionImports.ts';
import { createInstructionsSource, MAX_INSTRUCTION_CHARS } from '../../src/sources/instructions.ts';
import { Workspaces } from '../../src/sources/workspace.ts';
import { makeDir, makeRepo, type TempDir, type TempRepo } from '../support/gitRepo.ts';
import { input, signal, testDeps } from './input.ts';

const chain = Object.fromEntries(
  Array.from({ length: 7 }, (_, i) => [`app/chain/d${i + 1}.md`, `DEPTH ${i + 1}\n@d${i + 2}.md\n`]),
);

describe('instructions source', () => {
  let repo: TempRepo;
  let home: TempDir;
  let workspace: string;
  let source: ReturnType<typeof createInstructionsSource>;

  before(() => {
    home = makeDir({
      '.claude/CLAUDE.md': 'USER RULES\n',
      '.claude/notes.md': 'CLAUDE NOTES\n',
      'notes.md': 'HOME NOTES\n',
    });
    repo = makeRepo({
      files: {
        'CLAUDE.md': 'REPO ROOT RULES\n',
        'app/CLAUDE.md': [
          'APP RULES',
          'See @docs/style.md and @~/.claude/notes.md, not @~/notes.md.',
          'Not an import: `@docs/in-span.md`, nor me@example.com.',
          '```',
          '@docs/in-fence.md',
          '```',
          'Refused: @/etc/hostname',
          'Deep: @chain/d1.md',
        ].join('\n'),
        'app/CLAUDE.local.md': 'LOCAL RULES\n',
        'app/.claude/CLAUDE.md': 'DOT CLAUDE RULES\n',
        'app/docs/style.md': 'STYLE\n@a.md\n',
        'app/docs/a.md': 'A\n@style.md\n',
        'app/docs/in-span.md': 'SPAN\n',
        'app/docs/in-fence.md': 'FENCE\n',
        ...chain,
        'app/.claude/rules/always.md': 'ALWAYS RULE\n',
        'app/.claude/rules/api/ts-only.md': '---\npaths: "src/**/*.ts"\n---\nTS RULE\n',
        'app/.claude/rules/py.md': '---\npaths:\n  - "**/*.py"\n---\nPY RULE\n',
        'app/AGENTS.md': 'AGENTS ROOT\n',
        'app/pkg/AGENTS.md': 'AGENTS PKG\n',
        'app/other/AGENTS.md': 'AGENTS OTHER\n',
        'app/pkg/index.ts': 'export {};\n',
        'app/src/api.ts': 'export const api = 1;\n',
        'app/.github/copilot-instructions.md': 'COPILOT\n',
        'app/.github/instructions/ts.instructions.md': '---\napplyTo: "**/*.ts"\n---\nCOPILOT TS\n',
        'app/.github/instructions/go.instructions.md': '---\napplyTo: "**/*.go"\n---\nCOPILOT GO\n',
        'app/.cursor/rules/everything.mdc': '---\ndescription: all files\nglobs: **\n---\nCURSOR ALL\n',
        'app/.cursor/rules/go.mdc': '---\nglobs: **/*.go\nalwaysApply: false\n---\nCURSOR GO\n',
        'app/.cursor/rules/always.mdc': '---\nalwaysApply: true\n---\nCURSOR ALWAYS\n',
        'app/.cursor/rules/ts-list.mdc': '---\nglobs:\n  - "*.ts"\n  - "*.tsx"\n---\nCURSOR TS LIST\n',
      },
      unstaged: { 'app/src/api.ts': 'export const api = 2;\n' },
    });
    workspace = path.join(repo.dir, 'app');
    const deps = testDeps({ homeDir: home.dir });
    source = createInstructionsSource(deps, new Workspaces(deps));
  });
  after(() => {
    repo.cleanup();
    home.cleanup();
  });

  const collect = (text = 'please look at pkg/index.ts') => source.collect(input(workspace, { text }), signal);

  test('files in the documented order, one item per file, labelled with its path', async () => {
    const { items } = await collect();
    assert.deepEqual(
      items.map((item) => item.key),
      [
        'instructions.user.CLAUDE.md',
        'instructions.project.../CLAUDE.md',
        'instructions.project.CLAUDE.md',
        'instructions.import.docs/style.md',
        'instructions.import.docs/a.md',
        'instructions.import.~/.claude/notes.md',
        'instructions.import.chain/d1.md',
        'instructions.import.chain/d2.md',
        'instructions.import.chain/d3.md',
        'instructions.import.chain/d4.md',
        'instructions.import.chain/d5.md',
        'instructions.project..claude/CLAUDE.md',
        'instructions.project.CLAUDE.local.md',
        'instructions.project.AGENTS.md',
        'instructions.project..github/copilot-instructions.md',
        'instructions.rules..claude/rules/always.md',
        'instructions.rules..claude/rules/api/ts-only.md',
        'instructions.project..github/instructions/ts.instructions.md',
        'instructions.rules..cursor/rules/always.mdc',
        'instructions.rules..cursor/rules/everything.mdc',
        'instructions.rules..cursor/rules/ts-list.mdc',
        // A folder in play comes after everything at the root: nearest last.
        'instructions.project.pkg/AGENTS.md',
      ],
    );
    const first = items[0];
    assert.equal(first?.title, '~/.claude/CLAUDE.md');
    assert.equal(first?.text, 'USER RULES\n');
    const local = items.find((item) => item.key === 'instructions.project.CLAUDE.local.md');
    assert.equal(local?.title, 'CLAUDE.local.md');
    assert.equal(local?.path, 'CLAUDE.local.md');
    assert.ok(items.every((item) => item.source === 'instructions' && item.priority >= 80));
  });

  test('imports: code spans and fences ignored, cycles broken, five hops at most, outside refused', async () => {
    const { items, skipped } = await collect();
    const texts = items.map((item) => item.text).join('\n');
    assert.doesNotMatch(texts, /SPAN|FENCE/);
    assert.match(texts, /DEPTH 5/);
    assert.doesNotMatch(texts, /DEPTH 6/);
    assert.equal(items.filter((item) => item.text.startsWith('STYLE')).length, 1);
    assert.doesNotMatch(texts, /HOME NOTES/);
    const reasons = (skipped ?? []).map((s) => `${s.path}: ${s.reason.replace(/ in [^\s)]+/, '')}`);
    assert.ok(reasons.includes('/etc/hostname: refused: outside the workspace (import)'), reasons.join('\n'));
    assert.ok(reasons.includes('~/notes.md: refused: outside ~/.claude (import)'), reasons.join('\n'));
    assert.ok(
      reasons.some((r) => r.startsWith('style.md: import cycle broken')),
      reasons.join('\n'),
    );
    assert.ok(
      reasons.some((r) => r.startsWith('d6.md: import depth limit (5 hops)')),
      reasons.join('\n'),
    );
  });

  test('scoped rules follow the files in play: named files and changed files', async () => {
    const plain = await collect('hello');
    const keys = plain.items.map((item) => item.key);
    // src/api.ts is changed in the work tree, so TS-scoped rules still apply.
    assert.ok(keys.includes('instructions.rules..claude/rules/api/ts-only.md'));
    assert.ok(!keys.includes('instructions.project.pkg/AGENTS.md'), 'pkg/ is not in play');
    assert.ok(!keys.includes('instructions.rules..claude/rules/py.md'));

    fs.writeFileSync(path.join(workspace, 'tool.py'), 'print(1)\n');
    fs.writeFileSync(path.join(workspace, 'main.go'), 'package main\n');
    const named = await collect('what about tool.py and main.go?');
    const namedKeys = named.items.map((item) => item.key);
    assert.ok(namedKeys.includes('instructions.rules..claude/rules/py.md'));
    assert.ok(namedKeys.includes('instructions.rules..cursor/rules/go.mdc'), 'lenient `globs: **/*.go`');
    assert.ok(namedKeys.includes('instructions.project..github/instructions/go.instructions.md'));
  });

  test('AGENTS.md from the root down to the file in play, nearest last', async () => {
    const { items } = await collect('edit other/x and pkg/index.ts');
    const agents = items.filter((item) => item.key.endsWith('AGENTS.md')).map((item) => item.title);
    assert.deepEqual(agents, ['AGENTS.md', 'pkg/AGENTS.md']);
  });

  test('a file over 40,000 characters is trimmed and flagged', async () => {
    const big = `${'x'.repeat(99)}\n`.repeat(600);
    fs.writeFileSync(path.join(workspace, '.claude/rules/big.md'), big);
    const { items } = await collect();
    const item = items.find((i) => i.key === 'instructions.rules..claude/rules/big.md');
    assert.ok(item);
    assert.equal(item.truncated, true);
    assert.ok(item.text.length <= MAX_INSTRUCTION_CHARS + 100);
    assert.match(item.text, /… \d+ more lines; run `cat \.claude\/rules\/big\.md` to see all$/);
    fs.rmSync(path.join(workspace, '.claude/rules/big.md'));
  });

  test('memoized on the instruction files: an edit or a new rule file is seen', async () => {
    const first = await collect();
    assert.equal(await collect(), first);
    const later = new Date(Date.now() + 10_000);
    fs.writeFileSync(path.join(workspace, 'docs/a.md'), 'A EDITED\n@style.md\n');
    fs.utimesSync(path.join(workspace, 'docs/a.md'), later, later);
    const second = await collect();
    assert.notEqual(second, first);
    assert.ok(second.items.some((item) => item.text.startsWith('A EDITED')));
    fs.writeFileSync(path.join(workspace, '.claude/rules/new.md'), 'NEW RULE\n');
    const third = await collect();
    assert.ok(third.items.some((item) => item.text === 'NEW RULE\n'));
  });

  test('nothing wanted, nothing read', async () => {
    const result = await source.collect(input(workspace, { wanted: ['git.'] }), signal);
    assert.deepEqual(result.items, []);
  });
});

describe('findImports', () => {
  test('paths after @ outside code, trailing punctuation dropped', () => {
    assert.deepEqual(
      findImports('Use @a.md, @./b/c.md; and @~/x.md.\n`@no.md` me@mail.com\n~~~\n@fenced.md\n~~~\n@after.md'),
      ['a.md', './b/c.md', '~/x.md', 'after.md'],
    );
  });
});
