// docs/commands.md against `ctxproxy --help`: the page's list of commands is the
// help's, line for line, and every command the parser knows is described.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { COMMANDS, helpText } from '../../src/cli/commandLine.ts';
import { fencedBlockAfter, readDoc } from './markdown.ts';

const PAGE = 'docs/commands.md';

describe('docs/commands.md', () => {
  const page = readDoc(PAGE);

  it('lists the commands exactly as `ctxproxy --help` does', () => {
    const help = helpText();
    const usage = help.slice(help.indexOf('Usage:\n') + 'Usage:\n'.length, help.indexOf('\n\nOptions'));
    assert.equal(fencedBlockAfter(page, '`ctxproxy --help` prints this list', PAGE), `${usage}\n`);
  });

  it('describes every command', () => {
    for (const command of COMMANDS) assert.match(page, new RegExp(`^- \\*\\*${command}\\*\\*`, 'm'), command);
  });
});
