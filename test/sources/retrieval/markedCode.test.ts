// Questions about marked code ("what is deprecated", "which TODOs are left",
// "which tests are skipped"): every line carrying the marker, in each
// language's spelling (rules/markers.json), one per file first, whether or not
// the question says "list"; and a question about a named function whose words
// merely include a marker word keeps its regions.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { analyseQuestion } from '../../../src/shared/question.ts';
import type { ContextItem } from '../../../src/shared/types.ts';
import { loadMarkers, markersAsked, marks, spellingsSaid } from '../../../src/sources/retrieval/markers.ts';
import { searchPlan } from '../../../src/sources/retrieval/source.ts';
import { makeRepo, type TempRepo } from '../../support/gitRepo.ts';
import { retrievalItems, retrievalSource } from './ask.ts';

const MARKED = 'retrieval.code.(marked lines)';

/** One deprecation per language, each in a file of its own: more files than quick mode sends regions of. */
const DEPRECATIONS: Record<string, string> = {
  'pkg/old.py':
    'import warnings\n\ndef fetch_all():\n    warnings.warn("fetch_all is going away", DeprecationWarning)\n',
  'client.go': 'package client\n\n// Deprecated: use NewPool instead.\nfunc Dial() {}\n',
  'src/lib.rs': '#[deprecated(since = "1.2.0", note = "use parse_strict")]\npub fn parse() {}\n',
  'src/Legacy.java': 'class Legacy {\n  @Deprecated\n  void start() {}\n}\n',
  'src/Binder.cs': 'class Binder {\n  [Obsolete("Use IBinder instead.")]\n  public void Bind() {}\n}\n',
  'source/index.ts': '/** @deprecated use `extend` */\nexport function create() {}\n',
  'lib/widget.swift': '@available(*, deprecated, message: "use Gadget")\nfunc widget() {}\n',
};

/** The same long mark on twenty classes, and one distinct mark after them in path order. */
const COPIED: Record<string, string> = {
  ...Object.fromEntries(
    Array.from({ length: 20 }, (_, i) => [
      `schema/Part${String(i).padStart(2, '0')}.cs`,
      `[Obsolete("JSON Schema validation has been moved to its own package. See the project site for more details.")]\nclass Part${i} {}\n`,
    ]),
  ),
  'schema/Zone.cs': '[Obsolete("Zone is obsolete. Use Region instead.")]\nclass Zone {}\n',
};

const TODOS: Record<string, string> = {
  'app/cart.js': 'function total(items) {\n  // TODO: round to cents before summing\n  return items.length;\n}\n',
  'app/tax.py': 'def tax(amount):\n    # FIXME rates are from 2019\n    return amount\n',
  'app/ship.rb': 'def ship\n  # XXX carrier API times out on weekends\nend\n',
  'app/pay.go': 'package app\n\n// HACK: the gateway rejects empty descriptions\nfunc pay() {}\n',
  'app/todos.js':
    'const todoList = [];\nconst TODOS_KEY = "todos";\nexport function addTodo(text) {\n  todoList.push({ text, done: false });\n  return todoList.length;\n}\n',
};

const SKIPS: Record<string, string> = {
  'store/store_test.go': 'package store\n\nfunc TestFlaky(t *testing.T) {\n\tt.Skip("flaky on CI")\n}\n',
  'src/test/ParserTest.java': 'class ParserTest {\n  @Ignore("needs network")\n  @Test void fetches() {}\n}\n',
  'tests/test_io.py': 'import pytest\n\n@pytest.mark.skip(reason="slow disk")\ndef test_io():\n    pass\n',
  'test/api.test.js': "it.skip('retries on 503', () => {});\n",
};

describe('retrieval: questions about marked code', () => {
  let repo: TempRepo;
  const { source } = retrievalSource();
  const ask = (content: string): Promise<ContextItem[]> => retrievalItems(source, repo.dir, content);
  const listing = (items: readonly ContextItem[]) => items.find((item) => item.key === MARKED)?.text ?? '';

  before(() => {
    repo = makeRepo({ files: { ...DEPRECATIONS, ...COPIED, ...TODOS, ...SKIPS, 'README.md': '# shop\n' } });
  });
  after(() => repo.cleanup());

  test('"what is deprecated" lists every deprecation, in each language\'s spelling, without being asked for a list', async () => {
    const text = listing(
      await ask('What is deprecated in this codebase? I want to stop using it before it is removed.'),
    );
    for (const [file, content] of Object.entries(DEPRECATIONS)) {
      const line = content.split('\n').find((l) => /deprecat|Obsolete/i.test(l)) as string;
      assert.ok(text.includes(`${file}:`) && text.includes(line.trim()), `${file}: ${line.trim()}`);
    }
  });

  test('a mark copied across many files is said once in full, leaving room for the distinct ones', async () => {
    const text = listing(await ask('Which classes are obsolete?'));
    assert.equal(text.match(/JSON Schema validation has been moved/g)?.length, 1);
    assert.match(text, /schema\/Part19\.cs:1: \(the same line as listed above\)/);
    assert.match(text, /schema\/Zone\.cs:1: \[Obsolete\("Zone is obsolete\. Use Region instead\."\)\]/);
    for (const [file, content] of Object.entries(DEPRECATIONS)) {
      const line = content.split('\n').find((l) => /deprecat|Obsolete/i.test(l)) as string;
      assert.ok(text.includes(line.trim()), `${file}: ${line.trim()}`);
    }
  });

  test('TODO, FIXME, HACK and XXX comments are listed; a name or constant spelling todo is not', async () => {
    const text = listing(await ask('What is still to do here? Show me the TODO and FIXME notes.'));
    assert.match(text, /app\/cart\.js:2: \/\/ TODO: round to cents/);
    assert.match(text, /app\/tax\.py:2: # FIXME rates/);
    assert.match(text, /app\/ship\.rb:2: # XXX carrier/);
    assert.match(text, /app\/pay\.go:3: \/\/ HACK: the gateway/);
    assert.doesNotMatch(text, /todos\.js/);
  });

  test('the spellings the question writes come first: a TODO past fifteen XXX lines of its file is listed first', async () => {
    const xxx = Array.from({ length: 15 }, (_, i) => `  act${i} // XXX kept for old configs ${i}`).join('\n');
    const other = makeRepo({
      files: {
        'src/actions.go': `package src\n\nconst (\n${xxx}\n)\n\nfunc count() {\n\t// TODO: counting is off when the delimiter holds a newline\n}\n`,
        'src/tokens.go': 'package src\n\n// FIXME performance of the split\nfunc split() {}\n',
      },
    });
    try {
      const text = listing(
        await retrievalItems(source, other.dir, 'Are there TODOs or FIXMEs left in the code? List them.'),
      );
      const todo = text.indexOf('// TODO: counting is off when the delimiter holds a newline');
      assert.ok(todo >= 0, text);
      assert.ok(todo < text.indexOf('XXX'), 'before the XXX lines');
      assert.match(text, /src\/tokens\.go:3: \/\/ FIXME performance of the split/);
    } finally {
      other.cleanup();
    }
  });

  test('skipped tests in four languages are listed', async () => {
    const text = listing(await ask('Which tests are skipped at the moment?'));
    assert.match(text, /store_test\.go:4: t\.Skip\("flaky on CI"\)/);
    assert.match(text, /ParserTest\.java:2: @Ignore/);
    assert.match(text, /test_io\.py:3: @pytest\.mark\.skip/);
    assert.match(text, /api\.test\.js:1: it\.skip/);
  });

  test('a question about a named function that says "todos" keeps its regions and gets no marker listing', async () => {
    for (const question of ['What does addTodo do? It should ignore finished todos.', 'Where is `addTodo` defined?']) {
      const items = await ask(question);
      assert.equal(listing(items), '', question);
      const regions = items.filter((item) => item.path === 'app/todos.js').map((item) => item.text);
      assert.match(regions.join('\n'), /export function addTodo\(text\) \{/, question);
    }
  });
});

describe('the marker table', () => {
  test('says which markers a question is about, and not for questions that only share a word', () => {
    const ids = (text: string) => markersAsked(text).map((marker) => marker.id);
    assert.deepEqual(ids('Anything obsolete I should migrate off?'), ['deprecated']);
    assert.deepEqual(ids('Are there FIXMEs left?'), ['todo']);
    assert.deepEqual(ids('What is not implemented yet?'), ['unimplemented']);
    assert.deepEqual(ids('Where can this panic?'), ['panics']);
    assert.deepEqual(ids('How is caching implemented?'), []);
    assert.deepEqual(ids('Which files are ignored by git?'), []);
    assert.deepEqual(ids('How do I run the tests?'), []);
  });

  test('a pasted error or a named function is not a question about marked code', () => {
    const asked = (content: string) => searchPlan(analyseQuestion([{ role: 'user', content }])).markers.ids;
    assert.deepEqual(asked('Where can this code panic?'), ['panics']);
    assert.deepEqual(
      asked('I get this error:\n\npanic: runtime error: index out of range\n\nWhere does it come from?'),
      [],
    );
    assert.deepEqual(asked('Why does addTodo drop finished todos?'), []);
  });

  test('the spellings a question writes, in any case and plural', () => {
    const spellings = ['TODO', 'FIXME', 'HACK', 'XXX', '@deprecated', '#[deprecated'];
    assert.deepEqual(spellingsSaid('Are there TODOs or FIXMEs left?', spellings), ['TODO', 'FIXME']);
    assert.deepEqual(spellingsSaid('any hacks or todo notes', spellings), ['TODO', 'HACK']);
    assert.deepEqual(spellingsSaid('what is deprecated here?', spellings), ['@deprecated', '#[deprecated']);
    assert.deepEqual(spellingsSaid('what is left to do?', spellings), []);
  });

  test('a spelling counts only where its word ends meet non-word characters', () => {
    assert.ok(marks('  // TODO: later', ['TODO']));
    assert.ok(marks('#[deprecated(since = "1")]', ['#[deprecated']));
    assert.ok(!marks('const TODOS_KEY = 1', ['TODO']));
    assert.ok(!marks('addTODO()', ['TODO']));
    assert.ok(marks('addTODO(); // TODO fix', ['TODO']));
  });

  test('a question pattern with an unbounded gap between words is refused (quadratic on a long question)', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'markers-'));
    try {
      const file = path.join(dir, 'markers.json');
      const table = (asked: string) =>
        JSON.stringify({ description: 'x', markers: [{ id: 'skipped', asked, spellings: ['@Ignore'] }] });
      writeFileSync(file, table('\\bskipped\\b[^.?!]*\\btests?\\b'));
      assert.throws(() => loadMarkers(file), /unbounded gap/);
      writeFileSync(file, table('\\bskipped\\b[^.?!]{0,80}\\btests?\\b'));
      assert.equal(loadMarkers(file).length, 1);
      // The shipped table passes the same check (it is loaded at import) and answers on a long question.
      assert.deepEqual(
        markersAsked(`${'skipped '.repeat(20_000)}tests`).map((marker) => marker.id),
        ['skipped-tests'],
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a malformed table fails naming its file', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'markers-'));
    try {
      const file = path.join(dir, 'markers.json');
      writeFileSync(file, JSON.stringify({ description: 'x', markers: [{ id: 'Bad Id', asked: 'x', spellings: [] }] }));
      assert.throws(
        () => loadMarkers(file),
        (error: Error) => error.message.startsWith(file),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
