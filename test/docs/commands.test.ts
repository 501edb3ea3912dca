// docs/commands.md against `ctxproxy --help`: the page's list of commands is the
// help's, line for line, and every command the parser knows is described.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { COMMANDS, helpText } from '../../src/cli/commandLine.ts';
import { documentationFiles, fencedBlockAfter, fencedBlocks, prose, readDoc } from './markdown.ts';

const AUDIT_SUBCOMMANDS = ['list', 'show', 'search', 'export', 'prune'];

/** Every command line the pages show: lines of shell blocks and inline code spans, without prompts or comments. */
function shownCommandLines(): { file: string; line: string }[] {
  const shown: { file: string; line: string }[] = [];
  for (const file of documentationFiles()) {
    const text = readDoc(file);
    const lines = [
      ...fencedBlocks(text)
        .filter((block) => ['sh', 'console', 'text', ''].includes(block.lang))
        .flatMap((block) => block.body.split('\n')),
      ...[...prose(text).matchAll(/`([^`\n]+)`/g)].map((m) => m[1] ?? ''),
    ];
    for (const raw of lines) {
      const line = raw.replace(/^\$\s+/, '').replace(/\s+#.*$/, '');
      const m = /(?:^|[\s|(])(?:npx\s+)?(?:ctxproxy|node\s+\S*bin\/ctxproxy\.js)\s+(\S.*)$/.exec(line);
      if (m?.[1] && !m[1].startsWith('listening on')) shown.push({ file, line: m[1] });
    }
  }
  return shown;
}

const PAGE = 'docs/commands.md';

describe('docs/commands.md', () => {
  const page = readDoc(PAGE);

  it('lists the commands exactly as `ctxproxy --help` does', () => {
    const help = helpText();
    const usage = help.slice(help.indexOf('Usage:\n') + 'Usage:\n'.length, help.indexOf('\n\nOptions'));
    assert.equal(fencedBlockAfter(page, '`ctxproxy --help` prints this list', PAGE), `${usage}\n`);
  });

  it('shows only commands and flags that ctxproxy has, in every page', () => {
    const help = helpText();
    const knownFlags = new Set([...help.matchAll(/--[a-z][a-z-]*/g)].map((m) => m[0]));
    const shown = shownCommandLines();
    assert.ok(shown.length > 15, `command lines were found (${shown.length})`);
    const problems: string[] = [];
    for (const { file, line } of shown) {
      const words = line.split(/\s+/);
      const [command = '', sub = ''] = words;
      if (command.startsWith('--')) {
        if (!knownFlags.has(command)) problems.push(`${file}: ctxproxy ${line}: no option ${command}`);
        continue;
      }
      if (!(COMMANDS as readonly string[]).includes(command))
        problems.push(`${file}: ctxproxy ${line}: no command ${command}`);
      if (command === 'audit' && !AUDIT_SUBCOMMANDS.includes(sub) && !sub.startsWith('['))
        problems.push(`${file}: ctxproxy ${line}: no audit command ${sub}`);
      for (const flag of words.filter((word) => word.startsWith('--')).map((word) => word.split('=')[0] ?? '')) {
        if (flag !== '--' && !knownFlags.has(flag)) problems.push(`${file}: ctxproxy ${line}: no option ${flag}`);
      }
    }
    assert.deepEqual(problems, []);
  });

  it('describes every command', () => {
    for (const command of COMMANDS) assert.match(page, new RegExp(`^- \\*\\*${command}\\*\\*`, 'm'), command);
  });
});
