// Stage 2, collect, through runPipeline with the real stages and the real
// sources on a real repository: the plan's sources run and report, a source
// that fails is skipped with a warning (never the request), and the window is
// the config file's, else the upstream's, else an assumed default, said so.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ContextSource } from '../../src/shared/types.ts';
import { makeRepo, type TempRepo } from '../support/gitRepo.ts';
import { pipelineHarness } from './stageHarness.ts';

let repo: TempRepo;

before(() => {
  repo = makeRepo({
    files: { 'src/app.js': 'export const answer = 41;\n', 'CLAUDE.md': 'Run the tests first.\n' },
    unstaged: { 'src/app.js': 'export const answer = 42;\n' },
  });
});
after(() => repo.cleanup());

const ask = (content: string) => ({ messages: [{ role: 'user' as const, content }] });

describe('collect', () => {
  test('git-aware collects the work tree’s change from the repository and reports each source', async () => {
    const pipeline = await pipelineHarness({ workspace: repo.dir });
    const { snapshot } = await pipeline.chat(ask('what did I change?'), { mode: 'git-aware' });
    const git = snapshot.sources.find((report) => report.source === 'git');
    assert.equal(git?.status, 'ok');
    assert.ok((git?.items ?? 0) > 0);
    assert.match(snapshot.contextBlock ?? '', /answer = 42/);
    assert.ok(snapshot.timings.collectMs !== undefined);
  });

  test('mode off still says the workspace is not a repository, and stops saying it soon after `git init`', async () => {
    const plain = mkdtempSync(path.join(tmpdir(), 'ctxproxy-collect-plain-'));
    try {
      const pipeline = await pipelineHarness({ workspace: plain });
      const notRepo = (warnings: readonly string[]) => warnings.some((w) => /not a git repository/.test(w));
      const first = await pipeline.chat(ask('hi'), { mode: 'off' });
      assert.ok(notRepo(first.snapshot.warnings), first.snapshot.warnings.join('; '));
      execFileSync('git', ['init', '--quiet', plain]);
      // The look for a repository answers for its workspace for a second (collect.ts, REPOSITORY_CHECK_MS).
      await sleep(1100);
      const later = await pipeline.chat(ask('hi again'), { mode: 'off' });
      assert.ok(!notRepo(later.snapshot.warnings), later.snapshot.warnings.join('; '));
    } finally {
      rmSync(plain, { recursive: true, force: true });
    }
  });

  test('a source that throws is reported failed and skipped with a warning; the request is answered', async () => {
    const broken: ContextSource = {
      name: 'git',
      timeoutMs: 1000,
      collect: async () => {
        throw new Error('git exploded');
      },
    };
    const pipeline = await pipelineHarness({ workspace: repo.dir, overrides: { sources: [broken] } });
    const { snapshot, reply, result } = await pipeline.chat(ask('what did I change?'), { mode: 'git-aware' });
    assert.equal(reply, 'Hello there');
    assert.equal(snapshot.outcome, 'ok');
    assert.equal(snapshot.sources.find((report) => report.source === 'git')?.status, 'failed');
    assert.ok(result.warnings.includes('context source(s) skipped: git failed'), result.warnings.join('; '));
  });

  test('the window: the config file’s wins, else the upstream’s, else 8192 assumed with a warning', async () => {
    const configured = await pipelineHarness({
      workspace: repo.dir,
      settings: { models: { 'qwen2.5-coder:7b': { window: 16384 } } },
    });
    configured.upstream.window = 4096;
    const fromConfig = await configured.chat(ask('hi'));
    assert.equal(fromConfig.snapshot.budget?.window, 16384);

    const asked = await pipelineHarness({ workspace: repo.dir });
    asked.upstream.window = 4096;
    assert.equal((await asked.chat(ask('hi'))).snapshot.budget?.window, 4096);

    asked.upstream.window = undefined;
    const assumed = await asked.chat({ model: 'mystery:1b', ...ask('hi') });
    assert.equal(assumed.snapshot.budget?.window, 8192);
    assert.ok(assumed.result.warnings.includes('context window of mystery:1b unknown; assumed 8192 tokens'));
  });

  test('a window lookup that fails is assumed with the warning, and logged with the socket’s code only', async () => {
    const logged: { event: string; fields: unknown }[] = [];
    const record = (event: string, fields?: unknown) => logged.push({ event, fields });
    const harness = await pipelineHarness({
      workspace: repo.dir,
      overrides: { logger: { info: record, warn: record, error: record } },
    });
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    harness.upstream.contextWindow = () =>
      Promise.reject(
        new Error('lookup of model sk-secret-in-message failed', {
          cause: new TypeError('fetch failed', { cause: reset }),
        }),
      );
    const failed = await harness.chat(ask('hi'));
    assert.equal(failed.snapshot.budget?.window, 8192);
    assert.ok(failed.result.warnings.some((warning) => /unknown; assumed 8192 tokens/.test(warning)));
    const lookup = logged.filter((entry) => entry.event === 'window.lookup_failed');
    assert.deepEqual(
      lookup.map((entry) => entry.fields),
      [{ error: 'Error', code: 'ECONNRESET' }],
    );
    assert.ok(!JSON.stringify(logged).includes('sk-secret'), 'no error message in the log');
  });
});
