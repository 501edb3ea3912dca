// The repository map (issue 13, item 3): in deep mode only, files ranked by
// how much the rest of the repository uses what they define, each with its
// most used definitions' signatures, cut to the character budget.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadPlans } from '../../../src/config/plans.ts';
import { CpuPool, defaultCpuWorkerUrl } from '../../../src/shared/cpuPool.ts';
import type { Definition } from '../../../src/sources/symbols/extract.ts';
import { defaultRepoMapOptions, type MapSource, rankNames, repoMap } from '../../../src/sources/symbols/repoMap.ts';
import { createSymbolsSource, type SymbolsOptions } from '../../../src/sources/symbols/source.ts';
import { MemorySymbolTables } from '../../../src/sources/symbols/symbolTables.ts';
import { Workspaces } from '../../../src/sources/workspace.ts';
import { makeRepo, type TempRepo } from '../../support/gitRepo.ts';
import { input, signal, testDeps } from '../input.ts';

const plans = loadPlans();
let repo: TempRepo;

before(() => {
  const user = (name: string) =>
    `from core.rates import compute_rate, Ledger\n\ndef ${name}(amount):\n    return compute_rate(amount) + Ledger().total()\n`;
  repo = makeRepo({
    files: {
      'core/rates.py': [
        'def compute_rate(amount: float) -> float:',
        '    return amount * 0.19',
        '',
        'class Ledger:',
        '    def total(self) -> float:',
        '        return 0.0',
        '',
        'def rarely_used():',
        '    pass',
      ].join('\n'),
      'api/invoices.py': user('invoice_total'),
      'api/refunds.py': user('refund_total'),
      'jobs/nightly.py': `${user('nightly_total')}\ndef run_nightly():\n    return invoice_total(1)\n`,
      'misc/unused.py': 'def lonely_helper():\n    return 42\n',
    },
  });
});
after(() => repo.cleanup());

async function map(mode: 'deep' | 'git-aware' | 'quick', options: Partial<SymbolsOptions> = {}) {
  const deps = testDeps();
  const symbols = createSymbolsSource(deps, new Workspaces(deps), { buildDelayMs: 0, waitMs: 30_000, ...options });
  try {
    const wanted = plans[mode].entries.map((entry) => entry.items);
    const result = await symbols.source.collect(
      input(repo.dir, { text: 'How is this laid out?', wanted, mode }),
      signal,
    );
    return result.items.find((item) => item.key === 'symbols.map')?.text;
  } finally {
    symbols.close();
  }
}

describe('repository map', () => {
  test('deep: the most used file first, its most used definitions, unused files last', async () => {
    assert.equal(
      await map('deep'),
      [
        'core/rates.py:',
        '  def compute_rate(amount: float) -> float',
        '  class Ledger',
        '    def total(self) -> float',
        '  def rarely_used()',
        'api/invoices.py:',
        '  def invoice_total(amount)',
        'api/refunds.py:',
        '  def refund_total(amount)',
        'jobs/nightly.py:',
        '  def nightly_total(amount)',
        '  def run_nightly()',
        'misc/unused.py:',
        '  def lonely_helper()',
      ].join('\n'),
    );
  });

  test('fitted to its budget, saying how many files are left out', async () => {
    assert.equal(
      await map('deep', { mapChars: 130 }),
      [
        'core/rates.py:',
        '  def compute_rate(amount: float) -> float',
        '  class Ledger',
        '    def total(self) -> float',
        '  def rarely_used()',
        '… 4 more files with definitions',
      ].join('\n'),
    );
  });

  test('only deep mode asks for it', async () => {
    assert.equal(await map('git-aware'), undefined);
    assert.equal(await map('quick'), undefined);
  });
});

/** An index of `count` files of ten functions, each calling names of files picked with a skew (low ids often). */
function syntheticIndex(count: number): MapSource {
  const tables = new MemorySymbolTables();
  const byFile = new Map<string, Definition[]>();
  for (let i = 0; i < count; i++) {
    const defs: Definition[] = Array.from({ length: 10 }, (_, d) => ({
      name: `fn${i}_${d}`,
      qualified: `fn${i}_${d}`,
      kind: 'function',
      line: d * 3 + 1,
      endLine: d * 3 + 3,
      signature: `export function fn${i}_${d}(x: number): number`,
      depth: 0,
      spans: [0, 1],
      sig: [0, 1, 0],
    }));
    const refs = Array.from({ length: 20 }, (_, c) => {
      const j = Math.floor(((i * 7919 + c * 977) % count) ** 2 / count);
      return `fn${j}_${c % 10}`;
    });
    tables.put(`pkg${i % 7}/mod${i}.ts`, '', defs, [], rankNames(defs, refs));
    byFile.set(`pkg${i % 7}/mod${i}.ts`, defs);
  }
  return { tables, definitions: (rel) => byFile.get(rel) ?? [] };
}

describe('repository map of a large index', () => {
  test('ranked in the CPU pool, it is the map ranked inline, and the most called files lead it', async () => {
    const files = syntheticIndex(2_500);
    const cpu = new CpuPool({ workerUrl: defaultCpuWorkerUrl, idleMs: 60_000, size: 1, startMarginMs: 60_000 });
    try {
      const pooled = await repoMap(files, defaultRepoMapOptions, cpu);
      assert.equal(cpu.started, 1, 'an index this size is ranked in the pool');
      const inline = await repoMap(files, defaultRepoMapOptions, undefined);
      assert.deepEqual(pooled, inline);
      assert.match(pooled.text, /^pkg0\/mod0\.ts:\n/, 'the file every skewed pick lands on most comes first');
      assert.match(pooled.text, /… \d+ more files with definitions$/);
    } finally {
      cpu.close();
    }
  });
});
