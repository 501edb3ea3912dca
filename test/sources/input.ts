// Builds CollectInput and counting deps for the source tests.

import { type SimpleGit, simpleGit } from 'simple-git';
import { DEFAULT_NEVER_READ_FILE } from '../../src/redact/createRedactor.ts';
import { loadNeverRead } from '../../src/redact/loadRules.ts';
import { analyseQuestion } from '../../src/shared/question.ts';
import type { CollectInput, ModeName } from '../../src/shared/types.ts';
import { defaultSourceDeps, gitOverridesAllowed, type SourceDeps } from '../../src/sources/deps.ts';

export function input(workspace: string, options: Partial<CollectInput> & { text?: string } = {}): CollectInput {
  const text = options.text ?? options.lastUserText ?? 'hello';
  const messages = options.messages ?? [{ role: 'user', content: text }];
  return {
    workspace,
    messages,
    lastUserText: text,
    question: options.question ?? analyseQuestion(messages),
    mode: options.mode ?? ('deep' as ModeName),
    wanted: options.wanted ?? ['env.', 'git.', 'instructions.', 'tree.', 'files.', 'stacktrace.', 'stats.'],
    now: options.now ?? new Date('2026-03-04T05:06:07Z'),
  };
}

/**
 * `input` with a question about history by default: the git source sends the default branch's earlier commits
 * only for one (or for no question at all), and its tests look at the whole log.
 */
export function historyInput(workspace: string, options: Partial<CollectInput> & { text?: string } = {}): CollectInput {
  return input(workspace, { text: 'What changed in the recent commits?', ...options });
}

/** Real simple-git, plus a count of the git processes it ran (simple-git's `errors` hook sees every task). */
export function countingGit(): { factory: SourceDeps['git']; processes: () => number; instances: () => number } {
  let processes = 0;
  let instances = 0;
  const factory = (baseDir: string): SimpleGit => {
    instances++;
    return simpleGit({
      baseDir,
      unsafe: gitOverridesAllowed,
      completion: { onClose: true, onExit: false },
      errors: (error) => {
        processes++;
        return error;
      },
    });
  };
  return { factory, processes: () => processes, instances: () => instances };
}

/** The real never-read list (rules/never-read.json), as the server uses it. */
export const realNeverRead = loadNeverRead(DEFAULT_NEVER_READ_FILE);

export function testDeps(overrides: Partial<SourceDeps> = {}): SourceDeps {
  return defaultSourceDeps({
    homeDir: '/nonexistent-home',
    watchWorkTree: false,
    isNeverRead: realNeverRead,
    ...overrides,
  });
}

export const signal = new AbortController().signal;
