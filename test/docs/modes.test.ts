// docs/context.md's table of modes is every mode the server accepts, each with
// its plan in rules/modes/ (auto chooses among them and has none).

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { MODE_NAMES } from '../../src/shared/types.ts';
import { codeSpans, ROOT, readDoc, tableRows } from './markdown.ts';

describe('docs/context.md', () => {
  it('lists every mode, each with its plan', () => {
    const rows = tableRows(readDoc('docs/context.md'), '| mode | the model gets', 'docs/context.md');
    const documented = rows.map((row) => codeSpans(row[0] ?? '')[0]);
    assert.deepEqual(documented.sort(), [...MODE_NAMES, 'auto'].sort());
    for (const mode of MODE_NAMES) assert.ok(existsSync(path.join(ROOT, 'rules', 'modes', `${mode}.json`)), mode);
  });
});
