// All context sources, wired to one shared per-workspace state (repository
// location, memoized walk and status, the work-tree watcher).

import type { ContextSource } from '../shared/types.ts';
import type { SourceDeps } from './deps.ts';
import { createEnvSource } from './env.ts';
import { createFilesSource, type FilesSourceOptions } from './files.ts';
import { createGitSource, type GitSourceOptions } from './git.ts';
import { createInstructionsSource } from './instructions.ts';
import { createManifestsSource } from './manifests.ts';
import type { HistoryIndexOptions } from './retrieval/index/historyIndex.ts';
import { createRetrievalIndexes } from './retrieval/index/registry.ts';
import type { WorkspaceIndexOptions } from './retrieval/index/workspaceIndex.ts';
import { createRetrievalSource, type RetrievalOptions } from './retrieval/source.ts';
import { createStackTraceSource, type StackTraceOptions } from './stackTrace.ts';
import { createStatsSource, type StatsOptions } from './stats.ts';
import { createSymbolsSource, type SymbolsOptions } from './symbols/source.ts';
import { createTreeSource, type TreeOptions } from './tree.ts';
import { Workspaces } from './workspace.ts';

export { defaultSourceDeps, gitOverridesAllowed, type SourceDeps } from './deps.ts';
export { looksLikeStackTrace } from './traceParse.ts';

export interface SourceOptions {
  git?: Partial<GitSourceOptions>;
  files?: Partial<FilesSourceOptions>;
  tree?: Partial<TreeOptions>;
  stats?: Partial<StatsOptions>;
  stacktrace?: Partial<StackTraceOptions>;
  symbols?: Partial<SymbolsOptions>;
  retrieval?: Partial<RetrievalOptions>;
  /** The persistent index behind retrieval (used when `deps.openIndex` is given). */
  index?: Partial<WorkspaceIndexOptions> & { history?: Partial<HistoryIndexOptions> };
  /** A workspace whose symbol index starts building at once, in the background (the server's). */
  warmWorkspace?: string;
}

export interface SourceSet {
  sources: ContextSource[];
  /** The persistent index of a workspace (opened if needed); undefined without `deps.openIndex` (benchmarks, tests). */
  index(workspace: string): ReturnType<ReturnType<typeof createRetrievalIndexes>['open']>;
  /** Resolves once the work-tree watcher of this workspace is armed (tests and benchmarks). */
  ready(workspace: string): Promise<void>;
  /** Starts building the symbol index of a workspace in the background (server start); resolves when built. */
  warm(workspace: string): Promise<void>;
  /** Resolves once both indexes of a workspace (symbols, retrieval) are built and current. */
  settle(workspace: string): Promise<void>;
  /** Closes the watchers (they never keep the process alive, but tests should tidy up). */
  close(): void;
}

export function createSourceSet(deps: SourceDeps, options: SourceOptions = {}): SourceSet {
  const workspaces = new Workspaces(deps);
  const indexes = createRetrievalIndexes(deps, workspaces, options.index);
  // The symbol index keeps its tables in the workspace's persistent index when there is one.
  const symbols = createSymbolsSource(deps, workspaces, {
    tables: (root) => indexes.open(root)?.store.symbols,
    ...options.symbols,
  });
  if (options.warmWorkspace !== undefined) {
    void symbols.warm(options.warmWorkspace);
    void indexes.warm(options.warmWorkspace).catch(() => undefined);
  }
  return {
    // Order matters a little: spawning a process blocks the event loop for a few
    // milliseconds, so the sources whose git command heads the longest chain
    // (the work-tree listing behind tree and stats) start theirs first.
    sources: [
      createTreeSource(deps, workspaces, options.tree),
      createGitSource(deps, workspaces, options.git),
      createStatsSource(deps, workspaces, options.stats),
      createInstructionsSource(deps, workspaces),
      createFilesSource(deps, workspaces, options.files),
      createManifestsSource(deps, workspaces),
      createEnvSource(deps),
      createStackTraceSource(deps, workspaces, options.stacktrace),
      symbols.source,
      createRetrievalSource(deps, workspaces, { index: indexes.index, ...options.retrieval }),
    ],
    index: (workspace) => indexes.open(workspace),
    ready: (workspace) => workspaces.get(workspace).armWatcherSoon(),
    warm: (workspace) => symbols.warm(workspace),
    settle: async (workspace) => {
      await Promise.all([symbols.warm(workspace), indexes.warm(workspace).catch(() => undefined)]);
    },
    close: () => {
      symbols.close();
      indexes.close();
      workspaces.closeAll();
    },
  };
}
