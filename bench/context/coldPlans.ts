// What run.ts and symbolsCost.ts both measure: the plan keys a git-aware and a
// deep request ask the sources for, and the git commands those sources run,
// spelled exactly as they run them (the floor a cold request is compared with).

import type { CollectInput } from '../../src/shared/types.ts';
import { gitPrefix, NO_DRIVERS } from '../../src/sources/gitSafety.ts';

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
  [...PREFIX, 'diff', ...NO_DRIVERS, '--cached'],
  [...PREFIX, 'diff', ...NO_DRIVERS],
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
    mode: 'deep',
    wanted,
    now: new Date(),
  };
}
