// The persistent indexes of the workspaces the sources see, opened on first
// need (`deps.openIndex`: `.ctxproxy/index.db`, made by the composition root
// with the audit folder's care for links), and what retrieval asks of them: an
// index ready to search, or a note saying why `git grep` answers this time.

import type { SourceDeps } from '../../deps.ts';
import type { ReferenceKind } from '../../symbols/extract.ts';
import type { WorkspaceState, Workspaces } from '../../workspace.ts';
import type { GrepHit, GrepRequest } from '../search.ts';
import { defaultHistoryIndexOptions, HistoryIndex, type HistoryIndexOptions } from './historyIndex.ts';
import { HistoryStore } from './historyStore.ts';
import { IndexStore } from './store.ts';
import { storedUses, type UseHit } from './storedUses.ts';
import { defaultWorkspaceIndexOptions, WorkspaceIndex, type WorkspaceIndexOptions } from './workspaceIndex.ts';

/** An index ready to search (`search`), and what the report should say about it (`note`): one or both. */
export interface IndexAnswer {
  search?: ((request: GrepRequest) => { hits: GrepHit[]; cut: boolean } | undefined) | undefined;
  /** Semantic retrieval (`--embed-model`): the chunks nearest in meaning to the question, as hits. */
  semantic?: ((question: string) => Promise<GrepHit[]>) | undefined;
  /**
   * The lines the symbol index stored as uses of the names (of these kinds), read again now (storedUses.ts);
   * none while the symbol index has not parsed the files.
   */
  uses?: ((names: readonly string[], kinds: readonly ReferenceKind[]) => UseHit[]) | undefined;
  note?: string | undefined;
}

/** The history part of the index, current for HEAD (`lookup`), or why not (`note`: git answers meanwhile). */
export interface HistoryAnswer {
  lookup?: HistoryIndex | undefined;
  note?: string | undefined;
}

export interface RetrievalIndex {
  /** For one request: the workspace's index brought up to date, or why not (then git grep answers). */
  prepare(ws: WorkspaceState): Promise<IndexAnswer>;
  /** For a history question: the indexed commits brought up to HEAD, or why not (then git log answers). */
  history(ws: WorkspaceState): Promise<HistoryAnswer>;
}

export interface RetrievalIndexes {
  /** Undefined when no index can be opened here (`deps.openIndex` not given): retrieval greps, as before. */
  index: RetrievalIndex | undefined;
  /** Opens the index of a workspace and starts its pass in the background (server start). */
  warm(workspace: string): Promise<void>;
  /** The index of a workspace, opened if needed (benchmarks and tests look inside). */
  open(workspace: string): WorkspaceIndex | undefined;
  /** The history part of a workspace's index, opened if needed (benchmarks and tests look inside). */
  openHistory(workspace: string): HistoryIndex | undefined;
  close(): void;
}

export function createRetrievalIndexes(
  deps: SourceDeps,
  workspaces: Workspaces,
  options: Partial<WorkspaceIndexOptions> & { history?: Partial<HistoryIndexOptions> } = {},
): RetrievalIndexes {
  const { history: historyOptions, ...indexOptions } = options;
  const opts = { ...defaultWorkspaceIndexOptions, ...indexOptions };
  const historyOpts = { ...defaultHistoryIndexOptions, ...historyOptions };
  const histories = new Map<string, HistoryIndex | { failed: string }>();
  const open = deps.openIndex;
  const indexes = new Map<string, WorkspaceIndex | { failed: string }>();
  let closed = false;

  const indexOf = (ws: WorkspaceState): WorkspaceIndex | { failed: string } => {
    let known = indexes.get(ws.root);
    if (!known) {
      if (!open || closed) return { failed: 'closed' };
      try {
        known = new WorkspaceIndex(
          ws,
          new IndexStore(open(ws.root)),
          deps.isNeverRead,
          deps.allowedRoots,
          opts,
          deps.embedder,
        );
      } catch (error) {
        // Said on every request (a read-only work tree, a file in the way), never fatal: git grep answers.
        const reason = error instanceof Error ? error.message : String(error);
        deps.logger.warn('index.open_failed', { reason: reason.slice(0, 200) });
        known = { failed: reason.slice(0, 200) };
      }
      indexes.set(ws.root, known);
    }
    return known;
  };

  const historyOf = (ws: WorkspaceState): HistoryIndex | { failed: string } => {
    let known = histories.get(ws.root);
    if (!known) {
      const found = indexOf(ws);
      if (!(found instanceof WorkspaceIndex)) return found;
      try {
        known = new HistoryIndex(ws, new HistoryStore(found.store.db, found.store.seed), found.store.seed, historyOpts);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        deps.logger.warn('index.history_open_failed', { reason: reason.slice(0, 200) });
        known = { failed: reason.slice(0, 200) };
      }
      histories.set(ws.root, known);
    }
    return known;
  };

  const index: RetrievalIndex = {
    async history(ws) {
      const found = historyOf(ws);
      if (!(found instanceof HistoryIndex)) return { note: `history index unavailable (${found.failed})` };
      const progress = await found.prepare().catch(() => undefined);
      if (progress?.ready) return { lookup: found };
      return {
        note: progress?.of
          ? `history index not ready (${progress.indexed} of ${progress.of} commits indexed)`
          : 'history index not ready',
      };
    },
    async prepare(ws) {
      const found = indexOf(ws);
      if (!(found instanceof WorkspaceIndex))
        return { note: `index unavailable (${found.failed}); searched with git grep` };
      try {
        if (await found.prepare()) {
          const { overLimit, listed, held, current, catchingUp } = found.progress();
          const vectors = found.vectorStatus();
          // Semantic retrieval said when partial: chunks still being embedded, or the model failing.
          const partial = vectors?.partial;
          const semanticNote = partial
            ? `semantic ranking over ${partial.vectors} of ${partial.chunks} chunks (${partial.why})`
            : undefined;
          return {
            semantic: vectors
              ? (question) =>
                  found.semantic(question).then(
                    (hits) => hits ?? [],
                    () => [],
                  )
              : undefined,
            // Past the file limit the rest of the tree is not searched; a stored index still catching up
            // may miss what changed while no server ran: both said, never a silent gap.
            note:
              [
                !current
                  ? catchingUp
                    ? `index catching up with changes made while no server ran (${catchingUp.checked} of ${catchingUp.of} files checked); a file changed meanwhile may be missed`
                    : 'index catching up with changes made while no server ran (asking git what changed); a file changed meanwhile may be missed'
                  : overLimit > 0
                    ? `index holds the first ${held} of ${listed} files (its limit); the rest were not searched`
                    : undefined,
                semanticNote,
              ]
                .filter(Boolean)
                .join('; ') || undefined,
            search: (request) => {
              try {
                return found.search(request);
              } catch {
                return undefined;
              }
            },
            uses: (names, kinds) => {
              try {
                const read = { root: ws.root, isNeverRead: deps.isNeverRead, allowedRoots: deps.allowedRoots };
                return storedUses(found.store.symbols, read, names, { kinds });
              } catch {
                return [];
              }
            },
          };
        }
      } catch {
        // Counted below as not ready.
      }
      const { checked, listed } = found.progress();
      return { note: `index not ready (${checked} of ${listed || '?'} files checked); searched with git grep` };
    },
  };

  return {
    index: open ? index : undefined,
    async warm(workspace) {
      const ws = workspaces.get(workspace);
      if (!(await ws.checkedRepo())) return;
      const found = indexOf(ws);
      if (!(found instanceof WorkspaceIndex)) return;
      const history = historyOf(ws);
      await Promise.all([found.warm(), history instanceof HistoryIndex ? history.warm() : undefined]);
    },
    open(workspace) {
      const found = indexOf(workspaces.get(workspace));
      return found instanceof WorkspaceIndex ? found : undefined;
    },
    openHistory(workspace) {
      const found = historyOf(workspaces.get(workspace));
      return found instanceof HistoryIndex ? found : undefined;
    },
    close() {
      closed = true;
      for (const history of histories.values()) if (history instanceof HistoryIndex) history.close();
      histories.clear();
      for (const found of indexes.values()) {
        if (!(found instanceof WorkspaceIndex)) continue;
        found.close();
        try {
          found.store.close();
        } catch {
          // Closing a database that failed: nothing more to do.
        }
      }
      indexes.clear();
    },
  };
}
