// The history part of the persistent index (src/sources/retrieval/index/historyIndex.ts) on a real
// repository: how long the first build takes, how long it holds the event loop, what it costs in RSS, what a
// restart reads again, what one new commit costs, and the warm per-request cost of a file-history answer
// from the index against the same answer from `git log -- PATH` (what retrieval ran before), in the same run.
//
//   node --expose-gc --import tsx bench/index/history.ts /tmp/held/svelte [more repositories]
//
// Each repository is cloned (hard-linked objects, no checkout) to a scratch folder; the path given is never
// changed. Environment: BENCH_HISTORY_COMMITS (default: the index's own bound), BENCH_HISTORY_ROUNDS (20).

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { openIndexDatabase } from '../../src/pipeline/indexDatabase.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import { defaultSourceDeps } from '../../src/sources/deps.ts';
import { recentHistory } from '../../src/sources/retrieval/history.ts';
import { defaultHistoryIndexOptions } from '../../src/sources/retrieval/index/historyIndex.ts';
import { createRetrievalIndexes } from '../../src/sources/retrieval/index/registry.ts';
import { changesOf, fileHistory } from '../../src/sources/retrieval/indexedHistory.ts';
import { Workspaces } from '../../src/sources/workspace.ts';
import { quantile } from '../support/stats.ts';

const COMMITS = Number(process.env.BENCH_HISTORY_COMMITS ?? defaultHistoryIndexOptions.maxCommits);
const ROUNDS = Number(process.env.BENCH_HISTORY_ROUNDS ?? 20);
const gc = () => (globalThis as { gc?: () => void }).gc?.();
const rssMb = () => {
  gc();
  gc();
  return process.memoryUsage().rss / 1024 / 1024;
};
const fmt = (x: number) => (x >= 100 ? x.toFixed(0) : x.toFixed(2));
const git = (dir: string, ...args: string[]) =>
  execFileSync('git', args, { cwd: dir, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });

function open(dir: string) {
  const deps = defaultSourceDeps({
    isNeverRead: () => false,
    logger: silentLogger,
    openIndex: (root) => openIndexDatabase(root, silentLogger),
  });
  const workspaces = new Workspaces(deps);
  const indexes = createRetrievalIndexes(deps, workspaces, { history: { maxCommits: COMMITS } });
  const history = indexes.openHistory(dir);
  if (!history) throw new Error('no history index');
  const ws = workspaces.get(dir);
  return {
    history,
    ws,
    git: deps.git(dir),
    withPrefix: (args: string[]) => ws.gitArgs(args),
    close: () => {
      indexes.close();
      workspaces.closeAll();
    },
  };
}

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const start = performance.now();
  const out = await fn();
  return [out, performance.now() - start];
}

async function benchRepo(source: string): Promise<void> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'ctxproxy-history-'));
  const dir = path.join(scratch, path.basename(source));
  try {
    git(scratch, 'clone', '-q', '--no-checkout', source, dir);
    const total = Number(git(dir, 'rev-list', '--count', 'HEAD').trim());
    // The floor: how late an idle event loop is on this machine now (a loaded machine is late by itself).
    const idle = monitorEventLoopDelay({ resolution: 5 });
    idle.enable();
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    idle.disable();
    const delay = monitorEventLoopDelay({ resolution: 5 });
    const first = open(dir);
    await first.ws.checkedRepo();
    // Opened, and git run once (its spawner worker started): what the build adds is measured from here.
    await first.history.prepare();
    const rssBefore = rssMb();
    delay.enable();
    const [, buildMs] = await timed(() => first.history.warm());
    delay.disable();
    const rssAfter = rssMb();
    const built = first.history.store.count();
    const reads = first.history.reads;
    // A file changed by many commits, and a name from the newest commit's added lines.
    const files = git(dir, 'log', '-n200', '--format=', '--name-only').split('\n').filter(Boolean);
    const counts = new Map<string, number>();
    for (const rel of files) counts.set(rel, (counts.get(rel) ?? 0) + 1);
    const rel = [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0] ?? '';
    const added = git(dir, 'show', '--format=', '--unified=0', 'HEAD~3')
      .split('\n')
      .filter((line) => line.startsWith('+') && !line.startsWith('+++'))
      .flatMap((line) => line.match(/[A-Za-z_][A-Za-z0-9_]{7,}/g) ?? [])
      .filter((word) => !/^[0-9a-f]+$/.test(word));
    const name = added[0] ?? 'function';
    const spec = [`:(literal)${rel}`];
    const limits = { commits: 5, logBytes: 6 * 1024, patchBytes: 3 * 1024 };
    const viaIndex: number[] = [];
    const viaGit: number[] = [];
    const viaChanges: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      viaIndex.push((await timed(() => fileHistory(first.git, first.withPrefix, first.history, spec, limits)))[1]);
      viaGit.push((await timed(() => recentHistory(first.git, first.withPrefix, spec, limits)))[1]);
      viaChanges.push(
        (
          await timed(() =>
            changesOf(
              first.git,
              first.withPrefix,
              first.history,
              { names: [name], strings: [], side: undefined },
              { commits: 3, maxChars: 1500 },
            ),
          )
        )[1],
      );
    }
    first.close();
    // A restart: the stored history answers, nothing is read again.
    const [again, restartMs] = await timed(async () => {
      const reopened = open(dir);
      await reopened.ws.checkedRepo();
      return { reopened, progress: await reopened.history.prepare() };
    });
    const restartReads = again.reopened.history.reads;
    // One new commit on top: only it is read.
    const env = {
      ...process.env,
      GIT_AUTHOR_NAME: 'b',
      GIT_AUTHOR_EMAIL: 'b@b',
      GIT_COMMITTER_NAME: 'b',
      GIT_COMMITTER_EMAIL: 'b@b',
    };
    execFileSync('git', ['commit', '-q', '--allow-empty', '-m', 'bench: one more commit'], { cwd: dir, env });
    const [progress, newCommitMs] = await timed(async () => {
      await again.reopened.history.warm();
      return again.reopened.history.prepare();
    });
    const newReads = again.reopened.history.reads - restartReads;
    again.reopened.close();
    const size = fs.statSync(path.join(dir, '.ctxproxy', 'index.db')).size / 1024 / 1024;
    const q = (xs: number[], p: number) =>
      fmt(
        quantile(
          [...xs].sort((a, b) => a - b),
          p,
        ),
      );
    console.log(
      [
        `${path.basename(source)}: ${total} commits, ${built} indexed (bound ${COMMITS}), ${reads} read with git`,
        `  first build ${fmt(buildMs / 1000)} s in the background; event loop max delay ${fmt(delay.max / 1e6)} ms, p99 ${fmt(delay.percentile(99) / 1e6)} ms (idle floor: max ${fmt(idle.max / 1e6)}, p99 ${fmt(idle.percentile(99) / 1e6)} ms)`,
        `  RSS ${fmt(rssBefore)} -> ${fmt(rssAfter)} MB (+${fmt(rssAfter - rssBefore)}); index.db ${fmt(size)} MB`,
        `  restart: ready=${again.progress.ready} in ${fmt(restartMs)} ms, ${restartReads} commits read again`,
        `  one new commit: ready=${progress.ready} in ${fmt(newCommitMs)} ms, ${newReads} read`,
        `  file history of ${rel} (median/p90 ms): index ${q(viaIndex, 0.5)}/${q(viaIndex, 0.9)}, git log -- PATH ${q(viaGit, 0.5)}/${q(viaGit, 0.9)}`,
        `  commits that changed ${name}: ${q(viaChanges, 0.5)}/${q(viaChanges, 0.9)} ms`,
      ].join('\n'),
    );
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

const repos = process.argv.slice(2);
if (repos.length === 0) {
  console.log('usage: bench/index/history.ts REPO... (git clones; none given, nothing measured)');
}
for (const repo of repos) await benchRepo(repo);
