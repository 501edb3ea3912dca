// The symbol index's background build gives way to requests (issue 13): while
// a source is collecting for the workspace it sends no batch to the parse
// worker (the request's git processes keep both cores) and goes on once none
// is; a request that waits on the build is not held by that pause (it is
// itself collecting: the build would wait on it), and requests that overlap
// without a gap hold it back for a bounded time at each pause, not for good.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadPlans } from '../../../src/config/plans.ts';
import { ParseHost } from '../../../src/sources/symbols/parseHost.ts';
import type { ParseJob, ParseOutcome } from '../../../src/sources/symbols/parseProtocol.ts';
import { createSymbolsSource } from '../../../src/sources/symbols/source.ts';
import { defaultIndexOptions, SymbolIndex } from '../../../src/sources/symbols/symbolIndex.ts';
import { Workspaces } from '../../../src/sources/workspace.ts';
import { makeRepo, type TempRepo } from '../../support/gitRepo.ts';
import { until } from '../../support/poll.ts';
import { input, realNeverRead, signal, testDeps } from '../input.ts';

const plans = loadPlans();

/** More files than one batch holds, so an unpaused build sends several. */
const FILES = 40;

let repo: TempRepo;
// The index pauses on unreferenced timers; while a test awaits a build directly, something keeps the process up.
let keepAlive: NodeJS.Timeout;

before(() => {
  keepAlive = setInterval(() => undefined, 1_000);
  const files: Record<string, string> = {
    'billing/rates.py': 'def compute_rate(amount: float) -> float:\n    return amount * 0.19\n',
  };
  for (let i = 0; i < FILES; i++) files[`src/mod${i}.ts`] = `export function helper${i}(a: number) {\n  return a;\n}\n`;
  repo = makeRepo({ files });
});

after(() => {
  clearInterval(keepAlive);
  repo.cleanup();
});

/** Counts the batches the build sends to the worker. */
class CountingHost extends ParseHost {
  sent = 0;
  override parse(jobs: ParseJob[], timeoutMs: number, keepAlive = true): Promise<ParseOutcome[]> {
    this.sent++;
    return super.parse(jobs, timeoutMs, keepAlive);
  }
}

describe('symbols: the background build gives way to requests', () => {
  test('sends no batch while a source is collecting, and finishes once none is', async () => {
    const workspaces = new Workspaces(testDeps());
    const ws = workspaces.get(repo.dir);
    const host = new CountingHost({ workerUrl: defaultIndexOptions.workerUrl, idleMs: 50 });
    const index = new SymbolIndex(ws.root, realNeverRead, [], defaultIndexOptions, host);
    let asked = 0;
    const whenIdle = () => {
      asked++;
      return ws.whenIdle();
    };
    ws.enter();
    let collecting = true;
    try {
      const building = index.ensure('one', async () => (await ws.walk()).files, undefined, whenIdle);
      await until(() => asked > 0 || host.sent > 0, 'the build started');
      // Nothing to poll for when the point is that nothing happens: a window in which an unpaused
      // build sends its batches (it sends the first one within a turn or two).
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(host.sent, 0, 'no batch while a source is collecting');
      assert.equal(index.state().indexed, 0);
      ws.leave();
      collecting = false;
      await building;
      assert.ok(host.sent >= 3, `the build resumed and sent its batches (${host.sent})`);
      assert.equal(index.state().indexed, FILES + 1);
      assert.deepEqual(
        index.lookup('helper7').map((hit) => hit.rel),
        ['src/mod7.ts'],
      );
    } finally {
      if (collecting) ws.leave();
      index.close();
      host.close();
      workspaces.closeAll();
    }
  });

  test('requests that never leave a gap hold the build back for a bounded time only', async () => {
    const workspaces = new Workspaces(testDeps());
    const ws = workspaces.get(repo.dir);
    const host = new CountingHost({ workerUrl: defaultIndexOptions.workerUrl, idleMs: 50 });
    const index = new SymbolIndex(ws.root, realNeverRead, [], { ...defaultIndexOptions, maxPauseMs: 100 }, host);
    // Collecting from start to end: the workspace is never idle while the build runs.
    ws.enter();
    try {
      await index.ensure(
        'busy',
        async () => (await ws.walk()).files,
        undefined,
        () => ws.whenIdle(),
      );
      assert.equal(index.state().indexed, FILES + 1, 'every file indexed although no request ever ended');
      assert.deepEqual(
        index.lookup('helper7').map((hit) => hit.rel),
        ['src/mod7.ts'],
      );
    } finally {
      ws.leave();
      index.close();
      host.close();
      workspaces.closeAll();
    }
  });

  test('a request that waits on a paused build is not held by the pause', async () => {
    const deps = testDeps();
    const workspaces = new Workspaces(deps);
    // Far longer than the build takes: without the fix the request waits all of it and finds nothing.
    const symbols = createSymbolsSource(deps, workspaces, { buildDelayMs: 0, waitMs: 30_000 });
    const ws = workspaces.get(repo.dir);
    // Another source of a request (git, say) is collecting: the build started at server start pauses.
    ws.enter();
    try {
      const warming = symbols.warm(repo.dir);
      const wanted = plans['git-aware'].entries.map((entry) => entry.items);
      const result = await symbols.source.collect(
        input(repo.dir, { text: 'Where is `compute_rate` defined?', wanted }),
        signal,
      );
      assert.ok(
        result.items.some((item) => item.key.startsWith('symbols.def.billing/rates.py#compute_rate')),
        `the definition is found (${result.items.map((item) => item.key).join(', ')}; ${JSON.stringify(result.skipped)})`,
      );
      ws.leave();
      await warming;
    } finally {
      symbols.close();
      workspaces.closeAll();
    }
  });
});
