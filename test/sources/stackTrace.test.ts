import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createStackTraceSource, excerpt, looksLikeStackTrace } from '../../src/sources/stackTrace.ts';
import { parseTrace } from '../../src/sources/traceParse.ts';
import { NEVER_READ_REASON } from '../../src/sources/workspace/guard.ts';
import { Workspaces } from '../../src/sources/workspace.ts';
import { makeDir, type TempDir } from '../support/gitRepo.ts';
import { input, signal, testDeps } from './input.ts';

const traces = path.join(import.meta.dirname, '..', 'fixtures', 'traces');
const trace = (name: string) => fs.readFileSync(path.join(traces, name), 'utf8');

/** A 30-line file whose line `failing` says FAILS HERE. */
const source = (failing: number) =>
  Array.from({ length: 30 }, (_, i) => (i + 1 === failing ? 'FAILS HERE' : `line ${i + 1}`)).join('\n');

describe('stacktrace source', () => {
  let dir: TempDir;
  const deps = testDeps({ isNeverRead: (rel) => rel.endsWith('.env') });
  const workspaces = new Workspaces(deps);
  const stack = createStackTraceSource(deps, workspaces);

  before(() => {
    dir = makeDir({
      'src/cart/total.ts': source(7),
      'src/cart/cart.ts': source(5),
      'app/main.py': source(4),
      'app/report.py': source(6),
      'src/main/java/com/example/shop/Order.java': source(8),
      'src/main/java/com/example/shop/Main.java': source(5),
      'internal/pick/pick.go': source(6),
      'main.go': source(8),
      'src/parser.rs': source(9),
      'src/main.rs': source(4),
      'src/Billing/Invoices.cs': source(9),
      'src/Billing/Program.cs': source(6),
    });
  });
  after(() => dir.cleanup());

  const cases: [string, string[]][] = [
    ['node.txt', ['src/cart/total.ts:7', 'src/cart/cart.ts:5']],
    ['python.txt', ['app/report.py:6', 'app/main.py:4']],
    ['java.txt', ['src/main/java/com/example/shop/Order.java:8', 'src/main/java/com/example/shop/Main.java:5']],
    ['go.txt', ['internal/pick/pick.go:6', 'main.go:8']],
    ['rust.txt', ['src/parser.rs:9', 'src/main.rs:4']],
    ['dotnet.txt', ['src/Billing/Invoices.cs:9', 'src/Billing/Program.cs:6']],
  ];

  for (const [file, expected] of cases) {
    test(`${file}: application frames mapped into the workspace, deepest first, failing line marked`, async () => {
      const text = trace(file);
      assert.equal(looksLikeStackTrace(text), true);
      const result = await stack.collect(input(dir.dir, { text }), signal);
      const frames = result.items.filter((item) => item.key !== 'stacktrace.frames');
      assert.deepEqual(
        frames.map((item) => item.title.replace(/ \(.*\)$/, '')),
        expected,
      );
      assert.deepEqual(
        frames.map((item) => item.key),
        expected.map((_, i) => `stacktrace.${i + 1}`),
      );
      for (const item of frames) {
        const line = Number(item.title.replace(/ \(.*\)$/, '').split(':')[1]);
        assert.match(item.text, new RegExp(`^> +${line} \\| FAILS HERE$`, 'm'));
        assert.equal(item.kind, 'code');
        // The budget keeps the frame the source marked, and the header line, without looking for `>`.
        const frame = item.segments?.find((segment) => segment.kind === 'frame');
        assert.match(item.text.split('\n')[frame?.start ?? -1] ?? '', /^> +\d+ \| FAILS HERE$/);
        assert.deepEqual(item.segments?.[0], { kind: 'header', start: 0, end: 0 });
      }
      // ±20 lines: the deepest frame's excerpt starts at line 1 and runs to line min(30, n+20).
      const summary = result.items.find((item) => item.key === 'stacktrace.frames');
      assert.ok(summary);
    });
  }

  test('library frames are named in the summary and never read', async () => {
    const result = await stack.collect(input(dir.dir, { text: trace('node.txt') }), signal);
    const summary = result.items.find((item) => item.key === 'stacktrace.frames')?.text ?? '';
    assert.match(summary, /library: .*node_modules\/express\/lib\/router\/layer\.js:95/);
    assert.match(summary, /library: .*node:internal\/process\/task_queues:95/);
    assert.equal(result.items.filter((item) => item.path?.includes('node_modules')).length, 0);
    const py = await stack.collect(input(dir.dir, { text: trace('python.txt') }), signal);
    assert.match(py.items[0]?.text ?? '', /library: .*runpy\.py:198/);
  });

  test('a never-read file in a trace is skipped with a reason', async () => {
    dir.write('config/.env', 'SECRET=1\n'.repeat(10));
    const text = 'Error: bad\n    at load (config/.env:3:1)';
    const result = await stack.collect(input(dir.dir, { text }), signal);
    assert.deepEqual(result.skipped, [{ path: 'config/.env', reason: NEVER_READ_REASON }]);
    assert.equal(result.items.filter((item) => item.key !== 'stacktrace.frames').length, 0);
  });

  test('no trace, or a plan without stacktrace items: nothing', async () => {
    assert.deepEqual((await stack.collect(input(dir.dir, { text: 'why is this slow?' }), signal)).items, []);
    const notWanted = await stack.collect(input(dir.dir, { text: trace('go.txt'), wanted: ['git.'] }), signal);
    assert.deepEqual(notWanted.items, []);
  });

  test('memoized per message; an edit to a frame file is seen', async () => {
    const text = trace('rust.txt');
    const first = await stack.collect(input(dir.dir, { text }), signal);
    assert.equal(await stack.collect(input(dir.dir, { text }), signal), first);
    dir.write('src/parser.rs', source(9).replace('line 8', 'EDITED'));
    const second = await stack.collect(input(dir.dir, { text }), signal);
    assert.notEqual(second, first);
    assert.match(second.items[1]?.text ?? '', /EDITED/);
  });
});

describe('looksLikeStackTrace', () => {
  test('error output shapes', () => {
    for (const text of [
      'Error: ENOENT: no such file',
      'Traceback (most recent call last):\n  File "x.py", line 1',
      'panic: boom',
      'Exception in thread "main" java.lang.NullPointerException',
      'error[E0382]: borrow of moved value: `v`',
      "thread 'main' panicked at src/main.rs:2:5:",
      '   at Foo.Bar() in /x/Foo.cs:line 3',
      'TypeError: x is not a function',
    ]) {
      assert.equal(looksLikeStackTrace(text), true, text);
    }
  });

  test('ordinary questions', () => {
    for (const text of [
      'how do I run the tests here?',
      'what did I change on this branch',
      'rename the error handler in src/http/app.ts',
      'Can you explain what an Error is in JS?',
    ]) {
      assert.equal(looksLikeStackTrace(text), false, text);
    }
  });
});

describe('parseTrace and excerpt', () => {
  test('java frames carry the package path and the bare file name', () => {
    const [first] = parseTrace(trace('java.txt'));
    assert.deepEqual(first, {
      language: 'java',
      file: 'com/example/shop/Order.java',
      fileName: 'Order.java',
      line: 8,
      fn: 'com.example.shop.Order.validate',
    });
  });

  test('excerpt numbers lines and marks the failing one, clipped at the file edges', () => {
    const text = excerpt('a\nb\nc\nd', 2, 1);
    assert.equal(text, '  1 | a\n> 2 | b\n  3 | c');
  });
});
