// What run.ts and symbolsCost.ts both measure: the plan keys a git-aware and a
// deep request ask the sources for, the git commands those sources run,
// spelled exactly as they run them (the floor a cold request is compared with),
// and the shuffled rounds both benches time them in.

import { execFile } from 'node:child_process';
import { analyseQuestion } from '../../src/shared/question.ts';
import type { CollectInput } from '../../src/shared/types.ts';
import { gitPrefix, NO_DRIVERS } from '../../src/sources/git/gitSafety.ts';

export const GIT_AWARE = [
  'instructions.',
  'env.',
  'manifests.',
  'git.branch',
  'git.status',
  'git.diff.',
  'git.untracked',
  'git.diffstat',
  'git.log',
  'files.named.',
  'symbols.def.',
  'symbols.outline.',
  'symbols.search.',
];
export const DEEP = [...GIT_AWARE, 'tree.', 'files.changed.', 'stats.', 'symbols.map'];

/** Untrusted-repository overrides included, as the sources pass them. */
const PREFIX = gitPrefix([]);
export const GIT_AWARE_COMMANDS = [
  [...PREFIX, 'status', '--porcelain=v1', '-z', '--branch'],
  [...PREFIX, 'diff', ...NO_DRIVERS, 'HEAD', '--stat'],
  [...PREFIX, 'log', ...NO_DRIVERS, '--no-show-signature', '-10', '--date=short', '--format=%h %ad %an: %s'],
  [...PREFIX, 'diff', ...NO_DRIVERS, '--unified=1', '--cached'],
  [...PREFIX, 'diff', ...NO_DRIVERS, '--unified=1'],
];
export const DEEP_COMMANDS = [
  ...GIT_AWARE_COMMANDS,
  [...PREFIX, 'log', ...NO_DRIVERS, '-500', '--name-only', '--format=', '--no-renames', '--', '.'],
  [...PREFIX, 'ls-files', '-z', '-co', '--exclude-standard'],
];

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
};

/** The question every cold request asks: a path to a file and a bare file name, in deep mode. */
export function inputFor(workspace: string, wanted: string[]): CollectInput {
  const text = 'Why does area1/module0/file1.py fail? See @lib/helper3.ts';
  return {
    workspace,
    messages: [{ role: 'user', content: text }],
    lastUserText: text,
    question: analyseQuestion([{ role: 'user', content: text }]),
    mode: 'deep',
    wanted,
    now: new Date(),
  };
}

/** Wall and process CPU time of one run, in milliseconds. */
export interface Timing {
  ms: number;
  cpu: number;
}

const cpuMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

export async function timed(fn: () => Promise<unknown>): Promise<Timing> {
  const cpu = cpuMs();
  const start = performance.now();
  await fn();
  return { ms: performance.now() - start, cpu: cpuMs() - cpu };
}

/** The floor: the commands spawned directly, all at once, as cheaply as Node can. */
export function runFloor(workspace: string, commands: readonly string[][]): Promise<Timing> {
  const run = (args: string[]) =>
    new Promise<void>((resolve, reject) =>
      execFile('git', args, { cwd: workspace, maxBuffer: 64 * 1024 * 1024 }, (e) => (e ? reject(e) : resolve())),
    );
  return timed(() => Promise.all(commands.map(run)));
}

export interface Variant {
  label: string;
  run: () => Promise<Timing>;
}

/**
 * Every variant once per round, in a new random order each round, after one
 * uncounted run each (JIT, file cache). A variant's ratio to its floor then
 * compares runs of the same rounds: load drift and the order rows used to run
 * in no longer decide it.
 */
export async function shuffledRounds(variants: readonly Variant[], rounds: number): Promise<Timing[][]> {
  const results: Timing[][] = variants.map(() => []);
  for (const variant of variants) await variant.run();
  for (let round = 0; round < rounds; round++) {
    const order = variants.map((_, i) => i);
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [order[i], order[j]] = [order[j] ?? 0, order[i] ?? 0];
    }
    for (const i of order) results[i]?.push(await (variants[i] as Variant).run());
  }
  return results;
}
