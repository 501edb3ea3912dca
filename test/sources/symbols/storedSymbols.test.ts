// The symbol index kept in the workspace's persistent index (issue 23, item 2):
// a restart reads the stored tables and parses only what changed; the uses of
// a name are stored per language with what the use is (call, import, type), so
// "who calls / imports X" and "which tests exercise X" are lookups; bad input
// stays bounded. Real files, real SQLite, the real parse worker.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openIndexDatabase } from '../../../src/pipeline/indexDatabase.ts';
import { silentLogger } from '../../../src/shared/logger.ts';
import { IndexStore } from '../../../src/sources/retrieval/index/store.ts';
import { storedUses } from '../../../src/sources/retrieval/index/storedUses.ts';
import { LineReader } from '../../../src/sources/symbols/lookup.ts';
import { SymbolIndex } from '../../../src/sources/symbols/symbolIndex.ts';
import { FileGuard, workspaceZone } from '../../../src/sources/workspace/guard.ts';
import { makeRepo, type TempRepo } from '../../support/gitRepo.ts';
import { realNeverRead } from '../input.ts';

const FILES: Record<string, string> = {
  'billing/rates.py':
    'class Ledger:\n    def total(self):\n        return 0\n\n\ndef compute_rate(amount):\n    return amount * 2\n',
  'billing/report.py': [
    'from billing.rates import (',
    '    Ledger,',
    '    compute_rate,',
    ')',
    '',
    'def report(x):',
    '    return compute_rate(x) + Ledger().total()',
    '',
  ].join('\n'),
  'tests/test_rates.py':
    'from billing.rates import compute_rate\n\ndef test_rate():\n    assert compute_rate(1) == 2\n',
  'web/checkout.ts': [
    "import { computeRate, type Order } from './rates';",
    '',
    'export function checkout(order: Order): number {',
    '  return computeRate(order.amount);',
    '}',
    '',
  ].join('\n'),
  'web/rates.ts':
    'export interface Order { amount: number }\nexport function computeRate(n: number): number {\n  return n * 2;\n}\n',
  'svc/rates.go': 'package svc\n\ntype Store struct{}\n\nfunc (s *Store) ComputeRate(n int) int { return n * 2 }\n',
  'svc/use.go': 'package svc\n\nimport "fmt"\n\nfunc Use(s *Store) {\n\tfmt.Println(s.ComputeRate(1))\n}\n',
  'src/Rates.java': 'class Rates {\n  static int computeRate(int n) { return n * 2; }\n}\n',
  'src/Checkout.java': 'class Checkout {\n  int run() { return Rates.computeRate(3); }\n}\n',
  'core/src/lib.rs': 'pub fn compute_rate(n: i32) -> i32 { n * 2 }\n',
  'core/src/main.rs': 'use crate::compute_rate;\n\nfn main() {\n    let _ = compute_rate(1);\n}\n',
};

let repo: TempRepo;
/** A build's batches do not hold the process (nobody waits on a background build); the tests do. */
let hold: NodeJS.Timeout;

before(() => {
  repo = makeRepo({ files: FILES });
  hold = setInterval(() => undefined, 1_000);
});

after(() => {
  clearInterval(hold);
  repo.cleanup();
});

const listing = () => Promise.resolve(repo.git('ls-files', '-co', '--exclude-standard').trim().split('\n'));

function open(): { store: IndexStore; index: SymbolIndex } {
  const store = new IndexStore(openIndexDatabase(repo.dir, silentLogger));
  const index = new SymbolIndex(repo.dir, realNeverRead, [], undefined, undefined, store.symbols);
  return { store, index };
}

const read = () => ({ root: repo.dir, isNeverRead: realNeverRead, allowedRoots: [] });
const place = (hits: readonly { rel: string; line: number; kind: string }[]) =>
  hits.map((hit) => `${hit.rel}:${hit.line} ${hit.kind}`).sort();

describe('symbols in the persistent index', () => {
  test('a restart reads the stored tables: nothing unchanged is parsed again, a saved file alone is', async () => {
    const first = open();
    await first.index.ensure('one', listing);
    assert.equal(first.index.parsed, Object.keys(FILES).length);
    first.index.close();
    first.store.close();

    const second = open();
    try {
      // Before any build: the stored index answers, and says it is ready (perhaps stale).
      assert.equal(second.index.state().ready, true);
      assert.deepEqual(
        second.index.lookup('compute_rate').map((hit) => hit.rel),
        ['billing/rates.py', 'core/src/lib.rs'],
      );
      await second.index.ensure('one', listing);
      assert.equal(second.index.parsed, 0, 'no unchanged file is parsed after a restart');
      repo.write('web/rates.ts', `${FILES['web/rates.ts']}export function discount(n: number) { return n; }\n`);
      await second.index.ensure('two', listing);
      assert.equal(second.index.parsed, 1, 'the saved file alone is parsed');
      const reader = new LineReader(new FileGuard(realNeverRead), workspaceZone(repo.dir, []), repo.dir);
      const [hit] = second.index.lookup('discount');
      assert.ok(hit);
      const def = reader.definition(hit.rel, hit.def);
      assert.equal(def?.qualified, 'discount');
      assert.equal(def?.signature, 'function discount(n: number)');
    } finally {
      second.index.close();
      second.store.close();
      repo.write('web/rates.ts', FILES['web/rates.ts'] ?? '');
    }
  });

  test('the database holds no repository text: names are keys, places are numbers', async () => {
    const { store, index } = open();
    try {
      await index.ensure('text', listing);
      const dump = JSON.stringify(
        ['sym_files', 'sym_defs', 'sym_uses'].map((table) =>
          store.db.prepare(`SELECT * FROM ${table} WHERE ${table === 'sym_files' ? 'names IS NULL OR 1' : '1'}`).all(),
        ),
        (_key, value) => (value instanceof Uint8Array ? [...value] : value),
      );
      for (const name of ['compute_rate', 'computeRate', 'Ledger', 'ComputeRate'])
        assert.doesNotMatch(dump, new RegExp(name));
    } finally {
      index.close();
      store.close();
    }
  });

  test('who calls, imports and uses a name, across languages, with the line read again', async () => {
    const { store, index } = open();
    try {
      await index.ensure('uses', listing);
      const calls = storedUses(store.symbols, read(), ['compute_rate', 'computeRate', 'ComputeRate'], {
        kinds: ['call'],
      });
      assert.deepEqual(place(calls), [
        'billing/report.py:7 call',
        'core/src/main.rs:4 call',
        'src/Checkout.java:2 call',
        'svc/use.go:6 call',
        'tests/test_rates.py:4 call',
        'web/checkout.ts:4 call',
      ]);
      assert.match(calls.find((hit) => hit.rel === 'svc/use.go')?.text ?? '', /s\.ComputeRate\(1\)/);
      // An import on a line of its own inside a parenthesised import: no one-line shape spells it.
      const imports = storedUses(store.symbols, read(), ['Ledger', 'compute_rate', 'computeRate'], {
        kinds: ['import'],
      });
      assert.deepEqual(place(imports), [
        'billing/report.py:2 import',
        'billing/report.py:3 import',
        'core/src/main.rs:1 import',
        'tests/test_rates.py:1 import',
        'web/checkout.ts:1 import',
      ]);
      const types = storedUses(store.symbols, read(), ['Order', 'Store'], { kinds: ['type'] });
      assert.deepEqual(place(types), ['svc/rates.go:5 type', 'svc/use.go:5 type', 'web/checkout.ts:3 type']);
      const tests = storedUses(store.symbols, read(), ['compute_rate'], { testsOnly: true });
      assert.deepEqual(place(tests), ['tests/test_rates.py:1 import', 'tests/test_rates.py:4 call']);
    } finally {
      index.close();
      store.close();
    }
  });

  test('a line that changed since it was parsed is not reported as a use', async () => {
    const { store, index } = open();
    try {
      await index.ensure('stale', listing);
      repo.write('svc/use.go', FILES['svc/use.go']?.replace('s.ComputeRate(1)', 's.Other(1)') ?? '');
      const calls = storedUses(store.symbols, read(), ['ComputeRate'], { kinds: ['call'] });
      assert.deepEqual(place(calls), []);
    } finally {
      repo.write('svc/use.go', FILES['svc/use.go'] ?? '');
      index.close();
      store.close();
    }
  });
});

describe('bad input stays bounded', () => {
  test('deep nesting, a minified file, a binary and a file of thousands of calls: skipped or cut, never stuck', async () => {
    const bad = makeRepo({
      files: {
        'deep.ts': `export const deep = ${'[\n'.repeat(1_000)}1${'\n]'.repeat(1_000)};\nexport function after() {}\n`,
        'min.js': `function a(){return 1}${';var x=1'.repeat(20_000)}\n`,
        'blob.py': `def x():\n    pass\n\0${'\u0001'.repeat(100)}`,
        'calls.py': Array.from({ length: 1_200 }, (_, i) => `f${i}(g${i})`).join('\n'),
      },
    });
    const store = new IndexStore(openIndexDatabase(bad.dir, silentLogger));
    const index = new SymbolIndex(bad.dir, realNeverRead, [], undefined, undefined, store.symbols);
    try {
      const list = () => Promise.resolve(bad.git('ls-files', '-co', '--exclude-standard').trim().split('\n'));
      await index.ensure('bad', list);
      assert.match(index.skipOf('min.js') ?? '', /minified/);
      assert.match(index.skipOf('blob.py') ?? '', /binary/);
      assert.deepEqual(
        index.lookup('after').map((hit) => hit.rel),
        ['deep.ts'],
        index.skipOf('deep.ts'),
      );
      const rows = store.db
        .prepare("SELECT count(*) AS n FROM sym_uses u JOIN sym_files f ON f.id = u.file WHERE f.rel = 'calls.py'")
        .get();
      assert.equal(
        Number(rows?.n),
        2_000,
        `uses kept per file are bounded (${index.skipOf('calls.py')}; ${[...index.state().off.values()]})`,
      );
    } finally {
      index.close();
      store.close();
      bad.cleanup();
    }
  });
});
