// How retrieval chooses within its room: a definition too long for what is
// left still sends its head, and a name said in prose resolves to the
// identifier that spells the most of what was said.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { proseNames } from '../../../src/sources/retrieval/names.ts';
import { renderRegions } from '../../../src/sources/retrieval/regions.ts';

describe('retrieval ranking within the room', () => {
  test('a long definition that does not fit after a better region sends its head, not nothing', () => {
    const lines = [
      'type Header = { value: string };',
      ...Array.from({ length: 5 }, () => ''),
      'export const getHeader = (headers: Headers): Header => {',
      ...Array.from({ length: 80 }, (_, i) => `  const part${i} = headers.get('x-part-${i}') ?? 'a default value';`),
      '};',
    ];
    const regions = [
      { start: 0, end: 0, score: 100, definition: true, why: 'defines Header' },
      { start: 6, end: 87, score: 100, definition: true, why: 'defines getHeader' },
    ];
    const rendered = renderRegions(lines, regions, 1_200);
    assert.match(rendered.text, /type Header/);
    assert.match(rendered.text, /export const getHeader = \(headers: Headers\): Header => \{/);
    assert.ok(rendered.text.length <= 1_200, String(rendered.text.length));
    assert.equal(rendered.cut, true);
  });

  test('of names matching the same words, the one whose every part was said wins', () => {
    const hits = [
      { rel: 'a.ts', line: 1, text: 'type RetryTimingHeader = {' },
      { rel: 'a.ts', line: 2, text: 'const x: RetryTimingHeader = y;' },
      { rel: 'a.ts', line: 3, text: 'export const getRetryTimingHeader = (h: Headers): RetryTimingHeader => {' },
    ];
    const said = new Set(['where', 'is', 'the', 'code', 'that', 'does', 'get', 'retry', 'timing', 'header', 'part']);
    const [best] = proseNames(['retry', 'timing', 'header', 'part'], hits, said);
    assert.equal(best?.name, 'getRetryTimingHeader');
  });

  test("function words the prose kept are weak evidence: the name with the question's content word wins", () => {
    const hits = [
      { rel: 'a.py', line: 1, text: 'def get_value(): return 1' },
      { rel: 'b.py', line: 1, text: 'def header_value(): return 2' },
    ];
    const said = new Set(['where', 'do', 'we', 'get', 'the', 'header', 'value']);
    const found = proseNames(['get', 'header', 'value'], hits, said);
    assert.equal(found[0]?.name, 'header_value');
    assert.ok(!found.some((name) => name.name === 'get_value'), 'two function words alone name nothing');
  });
});
