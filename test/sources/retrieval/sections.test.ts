// A document's heading opens the section under it: Markdown's `#` levels and
// underlines, reStructuredText's underlines of any character, AsciiDoc's `=`;
// a `#` line inside a fenced block is a shell comment, not a heading.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sectionBlock } from '../../../src/sources/retrieval/sections.ts';
import { cpuMs } from '../../support/cpuTime.ts';

const at = (text: string, heading: string, maxLines = 40) => {
  const lines = text.split('\n');
  const block = sectionBlock(lines, lines.indexOf(heading), maxLines);
  return block && lines.slice(block.start, block.end + 1);
};

describe('document sections', () => {
  test('a Markdown heading runs to the next heading of its level or above, over deeper ones', () => {
    const doc = [
      '# Changes',
      '## 2.0.0',
      '- dropped Python 3.8',
      '### Fixes',
      '- a fix',
      '',
      '## 1.9.0',
      '- older',
    ].join('\n');
    assert.deepEqual(at(doc, '## 2.0.0'), ['## 2.0.0', '- dropped Python 3.8', '### Fixes', '- a fix']);
    assert.deepEqual(at(doc, '### Fixes'), ['### Fixes', '- a fix']);
  });

  test('underlined headings: the same character is the same level', () => {
    const rst = [
      'Changelog',
      '=========',
      '',
      'Version 2.1',
      '-----------',
      '',
      '* new',
      '',
      'Version 2.0',
      '-----------',
      '* old',
    ];
    assert.deepEqual(at(rst.join('\n'), 'Version 2.1'), ['Version 2.1', '-----------', '', '* new']);
    const setext = ['Install', '-------', 'pip install x', '', 'Usage', '-----', 'x run'];
    assert.deepEqual(at(setext.join('\n'), 'Install'), ['Install', '-------', 'pip install x']);
  });

  test('AsciiDoc headings', () => {
    const adoc = ['= Guide', '== Setup', 'run setup', '=== Details', 'more', '== Use', 'run it'];
    assert.deepEqual(at(adoc.join('\n'), '== Setup'), ['== Setup', 'run setup', '=== Details', 'more']);
  });

  test('a comment in a fenced block neither opens nor closes a section', () => {
    const doc = ['## Build', '```sh', '# install first', 'make', '```', 'then test', '## Test', 'make test'].join('\n');
    assert.deepEqual(at(doc, '## Build'), ['## Build', '```sh', '# install first', 'make', '```', 'then test']);
  });

  test('bounded: a section longer than the limit is cut at it; a plain line is no heading', () => {
    const long = ['## Big', ...Array.from({ length: 100 }, (_, i) => `- entry ${i}`)].join('\n');
    assert.equal(at(long, '## Big', 10)?.length, 10);
    assert.equal(at('just text\nmore text', 'just text'), undefined);
    assert.equal(at('#hashtag without space', '#hashtag without space'), undefined);
  });
});

test('a line of millions of one mark neither throws nor costs more than a look at it', async () => {
  // An underline is one character repeated: a back-reference repeated over a 4 MB line overflowed the regular
  // expression engine's backtracking stack (RangeError) whatever the file's other lines.
  const marks = '='.repeat(4_000_000);
  const lines = ['Title', `${marks}x`, 'text', 'Title 2', marks, 'more', '# Next', `${'-'.repeat(4_000_000)} `];
  const { ms, result } = await cpuMs(() => [0, 3, 6].map((line) => sectionBlock(lines, line, 40)));
  assert.deepEqual(result, [undefined, { start: 3, end: 5 }, { start: 6, end: 7 }]);
  assert.ok(ms < 1000, `${ms} ms of CPU`);
});
