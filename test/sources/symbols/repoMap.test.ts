// The repository map (issue 13, item 3): in deep mode only, files ranked by
// how much the rest of the repository uses what they define, each with its
// most used definitions' signatures, cut to the character budget.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadPlans } from '../../../src/config/plans.ts';
import { createSymbolsSource, type SymbolsOptions } from '../../../src/sources/symbols/source.ts';
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
