// The retrieval source on a real git repository (issue 23, parts 2-3): one
// search finds what a question points at wherever it is (callers, the
// definition's whole block, the line that spells an error, where a setting is
// read, how the tests run, what the last commit changed, a follow-up's
// subject), in tracked and untracked files, never in ignored or never-read
// ones, ranked so the direct answer comes first; the mode sets the depth.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ChatMessage, ContextItem, ModeName } from '../../src/shared/types.ts';
import { makeRepo, type TempRepo } from '../support/gitRepo.ts';
import { input, signal } from './input.ts';
import { retrievalSource } from './retrieval/ask.ts';

const BILLING = [
  'import os',
  '',
  '',
  'def compute_rate(amount, region):',
  '    """The rate for a region."""',
  '    if region not in RATES:',
  '        raise ValueError("unknown billing region for this account")',
  '    return amount * RATES[region]',
  '',
  '',
  'def timeout():',
  '    return int(os.environ.get("BILLING_TIMEOUT", "30"))',
  '',
].join('\n');

describe('retrieval source', () => {
  let repo: TempRepo;
  const { source } = retrievalSource();
  const ask = async (messages: ChatMessage[] | string, mode: ModeName = 'git-aware') => {
    const list: ChatMessage[] = typeof messages === 'string' ? [{ role: 'user', content: messages }] : messages;
    const result = await source.collect(input(repo.dir, { messages: list, mode, wanted: ['retrieval.'] }), signal);
    return result.items;
  };
  const text = (items: ContextItem[]) => items.map((item) => item.text).join('\n');

  before(() => {
    repo = makeRepo({
      files: {
        // Its docstring comes in a later commit, so the definition has a history of its own.
        'billing/rates.py': BILLING.replace('    """The rate for a region."""\n', ''),
        'billing/invoice.py':
          'from billing.rates import compute_rate\n\n\ndef total(lines):\n    return sum(compute_rate(l.amount, l.region) for l in lines)\n',
        'tests/test_rates.py':
          'from billing.rates import compute_rate\n\n\ndef test_rate():\n    assert compute_rate(10, "eu") == 1.9\n',
        Makefile: 'test:\n\tpython -m pytest tests -q\n\nlint:\n\truff check .\n',
        'README.md': '# Billing\n\ncompute_rate is documented here.\n',
        LICENSE: 'MIT License\n\nCopyright (c) 2026 Billing\n',
        '.gitignore': 'build/\n',
      },
      commits: [
        { message: 'rates: document compute_rate', files: { 'billing/rates.py': BILLING } },
        {
          message: 'rates: round to cents',
          files: {
            'billing/round.py': 'def cents(x):\n    return round(x, 2)\n',
            'billing/flags.py': 'def is_billable(line):\n    return line.amount > 0\n',
          },
        },
      ],
      unstaged: {
        // Untracked, not ignored: found. Ignored and never-read: never.
        'billing/settings.py': 'import os\n\nDEBUG = os.getenv("BILLING_DEBUG") == "1"\n',
        'billing/report.py': 'from billing.rates import compute_rate\n\nREPORT = compute_rate(1, "us")\n',
        'build/generated.py': 'X = compute_rate(2, "eu")  # generated\n',
        '.env': 'SECRET_RATE=compute_rate\n',
        // One line over 1,000 characters (the symbol index would call the file minified).
        'billing/table.py': `DATA = "${'x'.repeat(5_000)}"\nLIMIT = compute_rate(3, "eu")\n`,
      },
    });
  });
  after(() => repo.cleanup());

  test('callers in every file, untracked ones too; ignored and never-read files never', async () => {
    const items = await ask('Who calls compute_rate?');
    const all = text(items);
    assert.match(all, /sum\(compute_rate\(l\.amount, l\.region\)/);
    assert.match(all, /assert compute_rate\(10, "eu"\)/);
    assert.match(all, /REPORT = compute_rate\(1, "us"\)/);
    assert.doesNotMatch(all, /generated|SECRET_RATE/);
    assert.ok(items.every((item) => item.key.startsWith('retrieval.code.') && item.path));
    // Code outranks the README's mention.
    const readme = items.findIndex((item) => item.path === 'README.md');
    assert.ok(readme === -1 || readme > 0);
  });

  test("the history of a named function is its definition's, also when a follow-up says only 'that file'", async () => {
    const ofName = (items: ContextItem[]) => items.find((item) => item.key === 'retrieval.history');
    const author = ofName(await ask('Who last changed compute_rate?'));
    assert.ok(author);
    assert.match(
      author.text,
      /last change to compute_rate \(billing\/rates\.py:4\)[\s\S]*rates: document compute_rate/,
    );
    // The log of the file that defines it, not the repository's last commit (round.py).
    assert.doesNotMatch(author.text, /round to cents/);
    assert.equal(author.why, 'asked about the history of compute_rate');
    const followUp = ofName(
      await ask([
        { role: 'user', content: 'Where is `compute_rate` defined?' },
        { role: 'assistant', content: 'In the billing rates module.' },
        { role: 'user', content: 'When was that file last changed, and why?' },
      ]),
    );
    assert.match(followUp?.text ?? '', /rates: document compute_rate/);
    assert.doesNotMatch(followUp?.text ?? '', /round to cents/);
  });

  test('a question about the environment that names no variable gets the reads of every file that has them', async () => {
    const all = text(await ask('Which environment variables does this project read?'));
    assert.match(all, /os\.environ\.get\("BILLING_TIMEOUT", "30"\)/);
    assert.match(all, /os\.getenv\("BILLING_DEBUG"\)/);
    assert.doesNotMatch(all, /SECRET_RATE/);
  });

  test("a definition arrives as its whole block, best first; the question's identifier is searched as a word", async () => {
    const items = await ask('Where is `compute_rate` defined?');
    assert.equal(items[0]?.path, 'billing/rates.py');
    assert.match(items[0]?.text ?? '', /def compute_rate\(amount, region\):[\s\S]*return amount \* RATES\[region\]/);
    assert.equal(items[0]?.priority, Math.max(...items.map((item) => item.priority)));
    assert.deepEqual(await ask('Where is compute defined?'), []);
  });

  test('the line that spells an error, where a setting is read, how the tests run', async () => {
    const error = await ask('I get\n\nValueError: unknown billing region for this account\n\nwhy?');
    assert.equal(error[0]?.path, 'billing/rates.py');
    assert.match(error[0]?.text ?? '', /raise ValueError\("unknown billing region for this account"\)/);
    const setting = await ask('Where is the BILLING_TIMEOUT setting read?');
    assert.match(text(setting), /os\.environ\.get\("BILLING_TIMEOUT", "30"\)/);
    const tests = await ask('How do I run the tests?');
    assert.match(text(tests), /python -m pytest tests -q/);
  });

  test('history questions get the recent commits and the files they touched', async () => {
    const items = await ask('What did the last commit change?');
    const history = items.find((item) => item.key === 'retrieval.history');
    assert.ok(history, items.map((item) => item.key).join(','));
    assert.match(history.text, /rates: round to cents/);
    assert.match(history.text, /billing\/round\.py/);
    // Only when asked: a question about code does not get the log.
    assert.ok((await ask('Who calls compute_rate?')).every((item) => item.key !== 'retrieval.history'));
  });

  test("a follow-up that names nothing retrieves again for the earlier turn's subject, by its own intent", async () => {
    const items = await ask([
      { role: 'user', content: 'What does `compute_rate` do?' },
      { role: 'assistant', content: 'It computes a rate.' },
      { role: 'user', content: 'And where is it used?' },
    ]);
    assert.match(text(items), /sum\(compute_rate\(l\.amount, l\.region\)/);
    // Asked for uses, the definition sends its signature, not its body: the room goes to the callers.
    assert.doesNotMatch(text(items), /return amount \* RATES\[region\]/);
  });

  test('a name in another case, with a typo, or said in prose finds its definition, and says why', async () => {
    for (const question of ["where's computeRate defined?", 'What does compute_rat do?', 'Where is ComputeRate?']) {
      const items = await ask(question);
      assert.equal(items[0]?.path, 'billing/rates.py', question);
      assert.match(items[0]?.text ?? '', /def compute_rate\(amount, region\):/, question);
      assert.match(items[0]?.why ?? '', /^defines compute_rate \(nearest to /, question);
    }
    // The typo in the long part, the other too short to search alone: what comes before the typo still finds it.
    const typo = await ask('What does is_bilable do?');
    assert.equal(typo[0]?.path, 'billing/flags.py');
    assert.match(typo[0]?.why ?? '', /^defines is_billable \(nearest to is_bilable\)/);
    const prose = await ask('Where is the code that computes the rate for a region?');
    assert.equal(prose[0]?.path, 'billing/rates.py');
    assert.match(prose[0]?.why ?? '', /^defines compute_rate \(matched: computes, rate\)/);
  });

  test("a word of the question that is a file name sends that file's head", async () => {
    const items = await ask('Which license is this released under?');
    const license = items.find((item) => item.path === 'LICENSE');
    assert.match(license?.text ?? '', /MIT License/);
    assert.equal(license?.why, 'file name matches: license');
  });

  test('every item says why it was chosen, from names and terms, never its text', async () => {
    const callers = await ask('Who calls compute_rate?');
    assert.ok(
      callers.some((item) => item.why === 'uses compute_rate'),
      callers.map((i) => i.why).join('; '),
    );
    const history = await ask('What did the last commit change?');
    assert.equal(history.find((item) => item.key === 'retrieval.history')?.why, 'asked about history: last commit');
  });

  test('the mode is the depth; off retrieves nothing', async () => {
    const quick = await ask('Who calls compute_rate?', 'quick');
    const deep = await ask('Who calls compute_rate?', 'deep');
    assert.ok(quick.length <= 3 && quick.length <= deep.length);
    const off = await source.collect(
      input(repo.dir, { text: 'Who calls compute_rate?', mode: 'off', wanted: [] }),
      signal,
    );
    assert.deepEqual(off.items, []);
  });

  test('a file with a long line is searched, its long lines cut', async () => {
    const items = await ask('Which code uses compute_rate?', 'deep');
    const table = items.find((item) => item.path === 'billing/table.py');
    assert.ok(table, items.map((item) => item.key).join(','));
    assert.ok(table.text.length < 2_000);
  });
});

describe('retrieval source: releases', () => {
  let repo: TempRepo;
  const { source } = retrievalSource();

  before(() => {
    const commit = (message: string, day: number) => ({
      message,
      files: { [`notes/${day}.md`]: `${message}\n` },
      date: `2026-01-${String(day).padStart(2, '0')}T12:00:00Z`,
    });
    repo = makeRepo({
      files: { 'parser.py': 'def parse(text):\n    return text.split()\n' },
      commits: [commit('parser: first release', 1), commit('parser: handle empty input', 2)],
    });
    repo.git('tag', 'v1.0', 'HEAD~1');
    repo.git('tag', 'v1.1', 'HEAD');
    // More commits since the newest release than the recent history shows.
    for (let day = 3; day <= 9; day++) {
      repo.write(`notes/${day}.md`, `${day}\n`);
      repo.git('add', '.');
      repo.git('commit', '-q', '-m', `docs: note ${day}`, `--date=2026-01-0${day}T12:00:00Z`);
    }
  });
  after(() => repo.cleanup());

  test('what changed between releases is the log between the two newest tags', async () => {
    const messages: ChatMessage[] = [{ role: 'user', content: 'What changed between the last two releases?' }];
    const result = await source.collect(
      input(repo.dir, { messages, mode: 'git-aware', wanted: ['retrieval.'] }),
      signal,
    );
    const history = result.items.find((item) => item.key === 'retrieval.history');
    assert.ok(history, result.items.map((item) => item.key).join(','));
    assert.match(history.text, /commits between v1\.0 and v1\.1:\n\w+ [\d-]+ parser: handle empty input/);
    assert.equal(history.why, 'asked about releases: the two newest tags');
  });
});

describe('retrieval source: who imports or extends a name', () => {
  let repo: TempRepo;
  const { source } = retrievalSource();
  // Files that only mention the name, several times each: more hits than an importer has.
  const mentions = (n: number) =>
    Array.from({ length: 3 }, (_, i) => `# see BaseRate (${n}.${i})\n\n\nvalue_${i} = ${i}\n\n\n`).join('');

  before(() => {
    repo = makeRepo({
      files: {
        'rates/base.py': 'class BaseRate:\n    def rate(self):\n        return 1\n',
        'notes/a.py': mentions(1),
        'notes/b.py': mentions(2),
        'notes/c.py': mentions(3),
        'billing/eu.py': 'from rates.base import BaseRate\n\nEU = 2\n',
        'billing/us.py': 'import os\n\n\nclass UsRate(BaseRate):\n    pass\n',
        // A base class written as a plain capitalised word, its subclasses in its own file, among files that
        // mention the word more often.
        'printers/base.py': `class Printer:\n    pass\n\n\n${'# filler\n'.repeat(30)}\nclass JsonPrinter(Printer):\n    pass\n`,
        'printers/use.py': 'from printers.base import Printer\n',
        // Objects of a class made in one file, the class named more often elsewhere.
        'orders/model.py': 'class Order:\n    pass\n',
        'orders/checkout.py': `from orders.model import Order\n\n\n${'# filler\n'.repeat(10)}def start():\n    order = Order()\n    return order\n`,
        ...Object.fromEntries([1, 2, 3, 4].map((n) => [`orders/notes${n}.py`, '# an Order is\n\n\n'.repeat(6)])),
        ...Object.fromEntries(
          [1, 2, 3, 4].map((n) => [
            `docs/printer${n}.py`,
            '# the printer\n\n\n'.repeat(6).replaceAll('printer', 'Printer'),
          ]),
        ),
      },
    });
  });
  after(() => repo.cleanup());

  test('the lines that import or extend it come before files that only mention it', async () => {
    const messages: ChatMessage[] = [{ role: 'user', content: 'Which files import or extend BaseRate?' }];
    const result = await source.collect(input(repo.dir, { messages, mode: 'quick', wanted: ['retrieval.'] }), signal);
    const paths = result.items.map((item) => item.path);
    assert.ok(paths.includes('billing/eu.py'), paths.join(','));
    assert.ok(paths.includes('billing/us.py'), paths.join(','));
  });

  test('where objects of a class are made: the construction line, over files that name the class more', async () => {
    const messages: ChatMessage[] = [{ role: 'user', content: 'Where do we create new Order objects?' }];
    const result = await source.collect(input(repo.dir, { messages, mode: 'quick', wanted: ['retrieval.'] }), signal);
    const made = result.items.find((item) => item.path === 'orders/checkout.py');
    assert.match(made?.text ?? '', /order = Order\(\)/, result.items.map((item) => item.path).join(','));
    assert.match(made?.why ?? '', /^creates Order/);
  });

  test('a capitalised plain word is the type asked about: its subclasses arrive, its own file first', async () => {
    const messages: ChatMessage[] = [{ role: 'user', content: 'Which classes extend Printer?' }];
    const result = await source.collect(input(repo.dir, { messages, mode: 'quick', wanted: ['retrieval.'] }), signal);
    const first = result.items[0];
    assert.equal(first?.path, 'printers/base.py', result.items.map((item) => item.path).join(','));
    assert.match(first?.text ?? '', /class JsonPrinter\(Printer\):/);
  });
});

describe('retrieval source: what a task or a named test does', () => {
  let repo: TempRepo;
  const { source } = retrievalSource();
  const ask = async (content: string) => {
    const messages: ChatMessage[] = [{ role: 'user', content }];
    const result = await source.collect(
      input(repo.dir, { messages, mode: 'git-aware', wanted: ['retrieval.'] }),
      signal,
    );
    return result.items.map((item) => item.text).join('\n');
  };

  before(() => {
    // A CI file with many build steps before the one that lints.
    const steps = Array.from(
      { length: 30 },
      (_, i) => `      - name: build ${i}\n        run: cargo build --release -p crate${i}\n`,
    );
    repo = makeRepo({
      files: {
        '.github/workflows/ci.yml': `jobs:\n  ci:\n    steps:\n${steps.join('')}      - name: style\n        run: cargo fmt --all --check\n`,
        // An option defined without its dashes (the parser adds them), among files that say its words more.
        'cmd/root.go': `package cmd\n\n${'// filler\n'.repeat(12)}func init() {\n\trootCmd.Flags().Bool("dry-run", false, "print only")\n}\n`,
        ...Object.fromEntries(
          [1, 2, 3, 4].map((n) => [`docs/dry${n}.go`, '// a dry run: keep it dry\n\n\n'.repeat(5)]),
        ),
        'tests/rounding.test.ts': [
          "test('rounds half away from zero', async t => {",
          ...Array.from({ length: 8 }, (_, i) => `  const input${i} = ${i} + 0.5;`),
          '  t.is(round(input0), 1);',
          '});',
          '',
        ].join('\n'),
      },
    });
  });
  after(() => repo.cleanup());

  test('"the linter" is the step that runs one, past the first lines of build words', async () => {
    assert.match(await ask('How do I run the linter before I open a PR?'), /cargo fmt --all --check/);
  });

  test('a command-line option is found where the code spells it, with or without its dashes', async () => {
    assert.match(await ask('What does the --dry-run option do?'), /Flags\(\)\.Bool\("dry-run"/);
  });

  test('a quoted test name sends the test, not only the line that names it', async () => {
    assert.match(
      await ask('What does the test "rounds half away from zero" actually check?'),
      /t\.is\(round\(input0\), 1\);/,
    );
  });
});

describe('retrieval source: imports of a common word, handlers of an error, every environment read', () => {
  let repo: TempRepo;
  const { source } = retrievalSource();
  const ask = async (content: string) => {
    const messages: ChatMessage[] = [{ role: 'user', content }];
    const result = await source.collect(input(repo.dir, { messages, mode: 'quick', wanted: ['retrieval.'] }), signal);
    return result.items;
  };
  // Files that say `json` often and import the standard library's json: more hits than an importer has.
  const talksJson = (n: number) =>
    `import json\n\n\n${Array.from({ length: 12 }, (_, i) => `value_${i} = json.dumps(${n})  # json`).join('\n\n\n')}\n`;
  // A file that reads one variable in its middle, past a page of other code.
  const readsEnv = (n: number) =>
    `import os\n\n${'x = 1\n'.repeat(40)}\nLIMIT_${n} = os.environ.get("APP_LIMIT_${n}", "1")\n`;

  before(() => {
    repo = makeRepo({
      files: {
        'app/json/__init__.py': 'def dumps(value):\n    return str(value)\n',
        ...Object.fromEntries([1, 2, 3, 4, 5].map((n) => [`app/talk${n}.py`, talksJson(n)])),
        'app/views.py': `${'# filler\n'.repeat(20)}from app.json import dumps\n\n\ndef render(v):\n    return dumps(v)\n`,
        'app/api.py': `${'# filler\n'.repeat(20)}from .json import dumps\n`,
        'app/errors.py': 'class QuotaError(Exception):\n    pass\n',
        'app/sets.py': `${'# filler\n'.repeat(5)}def from_set_and(items):\n    return all(items)\n`,
        ...Object.fromEntries([1, 2, 3, 4].map((n) => [`app/quota${n}.py`, '# may raise QuotaError\n\n\n'.repeat(8)])),
        'app/worker.py': `${'# filler\n'.repeat(30)}def run(job):\n    try:\n        job()\n    except QuotaError:\n        job.retry_later()\n`,
        ...Object.fromEntries([1, 2, 3, 4, 5, 6, 7, 8].map((n) => [`conf/c${n}.py`, readsEnv(n)])),
      },
    });
  });
  after(() => repo.cleanup());

  test("a module named by a common word: the project's own importers, over files that import a library's", async () => {
    const paths = (await ask('Which files import the json module?')).map((item) => item.path);
    assert.ok(paths.includes('app/views.py'), paths.join(','));
    assert.ok(paths.includes('app/api.py'), paths.join(','));
  });

  test('where an error is handled: the except line, over files that name the error more', async () => {
    const items = await ask('Where do we handle QuotaError? I want to see what happens when it is raised.');
    const worker = items.find((item) => item.path === 'app/worker.py');
    assert.match(worker?.text ?? '', /except QuotaError:/, items.map((item) => item.path).join(','));
    assert.match(worker?.why ?? '', /^handles QuotaError/);
  });

  test('a name of function words said in prose ("the from set and part") finds its definition', async () => {
    const items = await ask("Where is the code that does the from set and part? I can't find it.");
    const all = items.map((item) => item.text).join('\n');
    assert.match(all, /def from_set_and\(items\):/, items.map((item) => item.path).join(','));
  });

  test('which environment variables: one line for each read, in more files than the depth sends', async () => {
    const all = (await ask('Which environment variables does this project read?')).map((item) => item.text).join('\n');
    for (const n of [1, 2, 3, 4, 5, 6, 7, 8]) assert.match(all, new RegExp(`os\\.environ\\.get\\("APP_LIMIT_${n}"`));
  });
});
