// All context sources, wired to one shared per-workspace state (repository
// location, memoized walk and status, the work-tree watcher).

import type { ContextSource } from '../shared/types.ts';
import { defaultSourceDeps, type SourceDeps } from './deps.ts';
import { createEnvSource } from './env.ts';
import { createFilesSource, type FilesSourceOptions } from './files.ts';
import { createGitSource, type GitSourceOptions } from './git.ts';
import { createInstructionsSource } from './instructions.ts';
import { createStackTraceSource, type StackTraceOptions } from './stackTrace.ts';
import { createStatsSource, type StatsOptions } from './stats.ts';
import { createTreeSource, type TreeOptions } from './tree.ts';
import { Workspaces } from './workspace.ts';

export { defaultSourceDeps, type SourceDeps } from './deps.ts';
export { looksLikeStackTrace } from './traceParse.ts';

export interface SourceOptions {
  git?: Partial<GitSourceOptions>;
  files?: Partial<FilesSourceOptions>;
  tree?: Partial<TreeOptions>;
  stats?: Partial<StatsOptions>;
  stacktrace?: Partial<StackTraceOptions>;
}

export interface SourceSet {
  sources: ContextSource[];
  /** Resolves once the work-tree watcher of this workspace is armed (tests and benchmarks). */
  ready(workspace: string): Promise<void>;
  /** Closes the watchers (they never keep the process alive, but tests should tidy up). */
  close(): void;
}

export function createSourceSet(deps: SourceDeps = defaultSourceDeps(), options: SourceOptions = {}): SourceSet {
  const workspaces = new Workspaces(deps);
  return {
    sources: [
      createEnvSource(deps),
      createInstructionsSource(deps, workspaces),
      createGitSource(deps, workspaces, options.git),
      createTreeSource(deps, workspaces, options.tree),
      createFilesSource(deps, workspaces, options.files),
      createStackTraceSource(deps, workspaces, options.stacktrace),
      createStatsSource(deps, workspaces, options.stats),
    ],
    ready: (workspace) => workspaces.get(workspace).armWatcherSoon(),
    close: () => workspaces.closeAll(),
  };
}

export function createSources(deps: SourceDeps = defaultSourceDeps(), options: SourceOptions = {}): ContextSource[] {
  return createSourceSet(deps, options).sources;
}
