// The parse worker (issue 15: the server's memory): the tree-sitter runtime,
// the grammars and the parse memory live in a worker thread that starts when
// there is something to parse and exits once idle, so the server's own thread
// never holds them; a rebuild with nothing changed starts no worker; a worker
// that crashes or cannot start skips the files it had for that update (a
// language goes off on repeated crashes), with a report, and the request
// still answers; a file the extraction throws on is skipped alone.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadPlans } from '../../../src/config/plans.ts';
import type { Grammar } from '../../../src/sources/symbols/languages.ts';
import { ParseHost, ParseLost } from '../../../src/sources/symbols/parseHost.ts';
import type { ParseJob, ParseOutcome } from '../../../src/sources/symbols/parseProtocol.ts';
import { createSymbolsSource, type SymbolsOptions } from '../../../src/sources/symbols/source.ts';
import { defaultIndexOptions, SymbolIndex } from '../../../src/sources/symbols/symbolIndex.ts';
import { Workspaces } from '../../../src/sources/workspace.ts';
import { makeDir, makeRepo, type TempRepo } from '../../support/gitRepo.ts';
import { until } from '../../support/poll.ts';
import { input, realNeverRead, signal, testDeps } from '../input.ts';

const gitAware = loadPlans()['git-aware'].entries.map((entry) => entry.items);
const crashing = new URL('../../fixtures/symbols/crashingParseWorker.mjs', import.meta.url);
const hanging = new URL('../../fixtures/symbols/hangingParseWorker.mjs', import.meta.url);

let repo: TempRepo;
// The index pauses on unreferenced timers and an idle worker is unreferenced: keep this process alive meanwhile.
let keepAlive: NodeJS.Timeout;

before(() => {
  keepAlive = setInterval(() => undefined, 1_000);
  repo = makeRepo({
    files: {
      'src/orders.ts': 'export function parseInvoice(text: string) {\n  return text;\n}\n',
      'billing/rates.py': 'def compute_rate(amount):\n    return amount\n',
    },
  });
});

after(() => {
  clearInterval(keepAlive);
  repo.cleanup();
});

function sourceFor(options: Partial<SymbolsOptions>) {
  const deps = testDeps();
  const workspaces = new Workspaces(deps);
  return createSymbolsSource(deps, workspaces, { buildDelayMs: 0, waitMs: 30_000, ...options });
}

describe('symbols: the parse worker', () => {
  test('it exits once idle, a rebuild with nothing changed starts none, an edit starts the next', async () => {
    const host = new ParseHost({ workerUrl: defaultIndexOptions.workerUrl, idleMs: 50 });
    const index = new SymbolIndex(repo.dir, realNeverRead, [], defaultIndexOptions, host);
    const list = () => Promise.resolve(repo.git('ls-files', '-co', '--exclude-standard').trim().split('\n'));
    try {
      await index.ensure('one', list);
      assert.deepEqual(
        index.lookup('parseInvoice').map((hit) => hit.rel),
        ['src/orders.ts'],
      );
      assert.equal(host.started, 1);
      await until(() => !host.running, 'the idle worker exits');
      await index.ensure('two', list);
      assert.equal(host.started, 1, 'nothing changed: no worker');
      repo.write(
        'billing/rates.py',
        'def compute_rate(amount):\n    return amount\n\ndef round_rate(x):\n    return x\n',
      );
      await index.ensure('three', list);
      assert.equal(host.started, 2);
      assert.deepEqual(
        index.lookup('round_rate').map((hit) => hit.rel),
        ['billing/rates.py'],
      );
      assert.deepEqual([...index.state().off], []);
    } finally {
      index.close();
      host.close();
    }
  });

  test("the server's thread never loads the tree-sitter runtime", async () => {
    const symbols = sourceFor({});
    try {
      const result = await symbols.source.collect(
        input(repo.dir, { text: 'where is `parseInvoice`?', wanted: gitAware }),
        signal,
      );
      assert.ok(result.items.some((item) => item.key === 'symbols.def.src/orders.ts#parseInvoice@1'));
      const require = createRequire(import.meta.url);
      const runtime = require.resolve('@vscode/tree-sitter-wasm');
      assert.equal(require.cache[runtime], undefined);
    } finally {
      symbols.close();
    }
  });

  test('a one-shot process waits for the files a request names, not for the background build', () => {
    // 1,500 files take seconds to parse; the named one is parsed at once, and the process ends after it.
    const files = Object.fromEntries(
      Array.from({ length: 1_500 }, (_, i) => [`m/f${i}.ts`, `export function f${i}(a: number) {\n  return a;\n}\n`]),
    );
    const big = makeDir(files);
    const script = path.join(big.dir, 'oneShot.mts');
    const src = (rel: string) => JSON.stringify(new URL(`../../../src/${rel}`, import.meta.url).href);
    fs.writeFileSync(
      script,
      [
        `import { SymbolIndex } from ${src('sources/symbols/symbolIndex.ts')};`,
        `import { loadNeverRead } from ${src('redact/loadRules.ts')};`,
        `import { DEFAULT_NEVER_READ_FILE } from ${src('redact/createRedactor.ts')};`,
        'const index = new SymbolIndex(process.argv[2], loadNeverRead(DEFAULT_NEVER_READ_FILE), []);',
        `const listing = ${JSON.stringify(Object.keys(files))};`,
        "void index.ensure('start', async () => listing);",
        "await index.refresh(['m/f7.ts']);",
        "const found = index.lookup('f7').length;",
        'const answered = index.state().indexed;',
        "process.on('exit', () => console.log(JSON.stringify({ found, answered, indexed: index.state().indexed })));",
      ].join('\n'),
    );
    try {
      // The script lives outside the project: Deno finds the packages through the project's config.
      const denoConfig = fileURLToPath(new URL('../../../deno.json', import.meta.url));
      const runtime = 'Deno' in globalThis ? ['run', '-A', '--no-check', '--config', denoConfig] : ['--import', 'tsx'];
      // The limit only guards against a hang: at load 40, tsx compiling the index's modules alone takes a minute.
      const run = spawnSync(process.execPath, [...runtime, script, big.dir], { encoding: 'utf8', timeout: 300_000 });
      assert.equal(run.status, 0, `${run.signal ?? ''} ${run.stderr}`);
      const { found, answered, indexed } = JSON.parse(run.stdout) as {
        found: number;
        answered: number;
        indexed: number;
      };
      assert.equal(found, 1, 'the named file was parsed before the process ended');
      // Counted when the request's refresh returned, not at exit: how many of the background build's
      // batches (16 files each) end while the process winds down depends on how the machine shares its
      // cores; what the refresh waited for does not. The named file goes to the worker before the build's
      // first batch is read, so at most the batch in the worker and the one posted next can be ahead of it.
      assert.ok(answered <= 1 + 2 * 16, `the named file waited for the background build (${answered} files indexed)`);
      assert.ok(indexed < 1_500, 'the process stayed until the background build was done');
    } finally {
      big.cleanup();
    }
  });

  for (const [what, workerUrl] of [
    ['crashes', crashing],
    ['cannot start', new URL('./no-such-worker.mjs', crashing)],
  ] as const) {
    test(`a worker that ${what} skips the files it had; a language goes off on the second crash; requests answer`, async () => {
      const symbols = sourceFor({ workerUrl });
      const reason = /parse worker crashed/;
      try {
        // The named file's batch crashes the worker (python: once), then the build's batch (python: twice,
        // typescript: once).
        const text = 'where are compute_rate and `parseInvoice`? See billing/rates.py';
        const result = await symbols.source.collect(input(repo.dir, { text, wanted: gitAware }), signal);
        assert.deepEqual(
          result.items.filter((item) => item.key.startsWith('symbols.def.')),
          [],
        );
        const off = Object.fromEntries((result.skipped ?? []).map((skip) => [skip.path, skip.reason]));
        assert.match(off['(python)'] ?? '', /^symbols off: parse worker crashed/);
        assert.equal(off['(typescript)'], undefined, 'one crash does not turn a language off');
        assert.match(off['billing/rates.py'] ?? '', reason);
        // The reason names the failure, never what was being parsed.
        assert.doesNotMatch(JSON.stringify(result.skipped), /aborted|compute_rate|parseInvoice/);
        // The file that crashed once is read again at the next update: its second crash turns typescript off.
        const again = await symbols.source.collect(
          input(repo.dir, { text: 'what does src/orders.ts do?', wanted: gitAware }),
          signal,
        );
        const offAgain = Object.fromEntries((again.skipped ?? []).map((skip) => [skip.path, skip.reason]));
        assert.match(offAgain['(typescript)'] ?? '', /^symbols off: parse worker crashed/);
      } finally {
        symbols.close();
      }
    });
  }

  test('a crash counts against the batch the worker was on, not the ones waiting behind it', async () => {
    const host = new ParseHost({ workerUrl: crashing, idleMs: 50 });
    const job = (rel: string, grammar: 'python' | 'typescript') => ({
      rel,
      grammar,
      wasm: defaultIndexOptions.locate(grammar),
      text: 'x = 1\n',
    });
    try {
      const results = await Promise.allSettled([
        host.parse([job('a.py', 'python')], 1_000),
        host.parse([job('b.ts', 'typescript')], 1_000),
      ]);
      const culprits = results.map((result) =>
        result.status === 'rejected' && result.reason instanceof ParseLost ? result.reason.culprit : 'answered',
      );
      assert.deepEqual(culprits, [true, false]);
    } finally {
      host.close();
    }
  });

  test('a file whose extraction throws is skipped alone; the batch and later requests are answered', async () => {
    const host = new ParseHost({ workerUrl: defaultIndexOptions.workerUrl, idleMs: 50 });
    const wasm = defaultIndexOptions.locate('python');
    const good = { rel: 'ok.py', grammar: 'python' as const, wasm, text: 'def fine():\n    pass\n' };
    // A language the extraction has no rules for makes it throw, as a stack overflow on a deeply nested file would.
    const bad = { ...good, rel: 'bad.py', grammar: 'no-such-language' as Grammar };
    try {
      const outcomes = await host.parse([bad, good], 1_000);
      assert.match(JSON.stringify(outcomes[0]), /"skip":"symbols could not be extracted \(TypeError\)"/);
      assert.deepEqual(outcomes[1] && 'defs' in outcomes[1] ? outcomes[1].defs.map((def) => def.name) : outcomes[1], [
        'fine',
      ]);
      const later = await host.parse([good], 1_000);
      assert.ok(later[0] && 'defs' in later[0], 'a later request is answered');
      assert.equal(host.started, 1, 'the same worker answered both');
    } finally {
      host.close();
    }
  });

  test('a worker that never answers is ended at its deadline; waiting requests fail and refresh() returns', async () => {
    const host = new ParseHost({ workerUrl: hanging, idleMs: 50, answerMarginMs: 300 });
    const index = new SymbolIndex(repo.dir, realNeverRead, [], { ...defaultIndexOptions, parseTimeoutMs: 100 }, host);
    try {
      // One file: 1 x 100 ms + 300 ms. The refresh resolves; the file is skipped for this update, with why.
      await index.refresh(['billing/rates.py']);
      assert.match(index.skipOf('billing/rates.py') ?? '', /^parse worker did not answer in time$/);
      assert.equal(host.running, false, 'the stuck worker was ended');
      // A request queued behind the stuck one fails with it, not as its culprit.
      const wasm = defaultIndexOptions.locate('python');
      const job = { rel: 'a.py', grammar: 'python' as const, wasm, text: 'x = 1\n' };
      const results = await Promise.allSettled([host.parse([job], 100), host.parse([job], 100)]);
      assert.deepEqual(
        results.map((result) => (result.status === 'rejected' ? (result.reason as ParseLost).culprit : 'answered')),
        [true, false],
      );
      assert.equal(host.started, 2);
    } finally {
      index.close();
      host.close();
    }
  });

  test("a background batch read before a request's refresh does not overwrite what the refresh found", async () => {
    // The build's batches wait here until released; a request's (keepAlive) go straight through.
    class HeldBackground extends ParseHost {
      readonly held: (() => void)[] = [];
      override parse(jobs: ParseJob[], timeoutMs: number, keepAlive = true): Promise<ParseOutcome[]> {
        if (keepAlive) return super.parse(jobs, timeoutMs, keepAlive);
        return new Promise<void>((release) => this.held.push(release)).then(() =>
          super.parse(jobs, timeoutMs, keepAlive),
        );
      }
    }
    const small = makeRepo({ files: { 'stale.ts': 'export function oldName() {}\n' } });
    const host = new HeldBackground({ workerUrl: defaultIndexOptions.workerUrl, idleMs: 50 });
    const index = new SymbolIndex(small.dir, realNeverRead, [], defaultIndexOptions, host);
    try {
      const building = index.ensure('one', () => Promise.resolve(['stale.ts']));
      await until(() => host.held.length === 1, 'the build read the file and sent it');
      small.write('stale.ts', 'export function newName(a: number) {}\n');
      await index.refresh(['stale.ts']);
      assert.deepEqual(
        index.lookup('newName').map((hit) => hit.rel),
        ['stale.ts'],
      );
      host.held[0]?.();
      await building;
      assert.deepEqual(
        index.lookup('newName').map((hit) => hit.rel),
        ['stale.ts'],
        'the fresher result stays',
      );
      assert.deepEqual(index.lookup('oldName'), []);
    } finally {
      index.close();
      host.close();
      small.cleanup();
    }
  });
});
