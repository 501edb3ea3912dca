// The symbols source: what the latest message names, looked up in the symbol
// index (`symbols.def.*`: the definition's code; `symbols.outline.*`: the
// outline of each file in play; `symbols.search.*`: the word-search fallback
// for languages without a grammar) and, in deep mode, the repository map
// (`symbols.map`). The index builds in the background; a request waits for it
// only in a small repository or for the first lookup of an identifier, and
// never longer than `waitMs`.

import { type CpuPool, sharedCpuPool } from '../../shared/cpuPool.ts';
import { historyOfPastedLines } from '../../shared/pastedLine.ts';
import { hasIntent, type Question, subjectIdentifiers, subjectPaths } from '../../shared/question.ts';
import type { ContextItem, ContextSource, SkippedPath } from '../../shared/types.ts';
import { defineSource } from '../defineSource.ts';
import type { SourceDeps } from '../deps.ts';
import { defaultFilesOptions } from '../files.ts';
import { Memo } from '../memo.ts';
import { isGitIgnored } from '../workspace/gitignored.ts';
import { FileGuard, workspaceZone } from '../workspace/guard.ts';
import type { Workspaces } from '../workspace.ts';
import { grammarOf } from './languages.ts';
import {
  defaultLookupLimits,
  definitionItem,
  findDefinitions,
  LineReader,
  outlineItem,
  resolvePaths,
  type Terms,
} from './lookup.ts';
import { sharedParseHost } from './parseHost.ts';
import { defaultRepoMapOptions, type MapSource, repoMap } from './repoMap.ts';
import { defaultIndexOptions, type IndexOptions, SymbolIndex } from './symbolIndex.ts';
import type { SymbolTables } from './symbolTables.ts';
import { wordSearch } from './wordSearch.ts';

export interface SymbolsOptions extends IndexOptions {
  /** The longest a request waits for the index to finish building. */
  waitMs: number;
  /**
   * Repositories with at most this many parseable files are small: a request waits for a running build
   * and for the map's ranking. In larger ones only the first lookup waits, and a map older than the index
   * is served while the new one is ranked.
   */
  waitFiles: number;
  /**
   * A build nobody waits for starts once this long passed without a request (so it does not take the
   * processor from the request that found the index stale, nor from the answer that follows).
   */
  buildDelayMs: number;
  mapChars: number;
  /** Where a large index's map is ranked (the process's CPU pool by default). */
  pool?: CpuPool;
  /**
   * The tables of a workspace's persistent index (by its root), where its symbols are kept across restarts;
   * undefined (or none given): they are kept in memory.
   */
  tables?: (root: string) => SymbolTables | undefined;
}

export const defaultSymbolsOptions: SymbolsOptions = {
  ...defaultIndexOptions,
  waitMs: 2_000,
  waitFiles: 3_000,
  buildDelayMs: 2_000,
  mapChars: defaultRepoMapOptions.maxChars,
};

export interface SymbolsSource {
  source: ContextSource;
  /** Starts building the index of `workspace` in the background (server start). */
  warm(workspace: string): Promise<void>;
  close(): void;
}

const NAMED_FILES = 8;
/** The plan keys a question's lookup answers (the map is deep mode's own). */
const LOOKUP_KEYS = ['symbols.def.', 'symbols.outline.', 'symbols.search.'];

/**
 * A file the question names goes into the context from its head (files.named,
 * the files source's first lines); when every definition sits in those lines
 * its outline only repeats them. A longer file keeps its outline: it is the
 * map of what the head leaves out.
 */
function sentWhole(index: SymbolIndex, rel: string): boolean {
  return index.has(rel) && index.definitionsOf(rel).every((def) => def.endLine <= defaultFilesOptions.namedLines);
}

export function createSymbolsSource(
  deps: SourceDeps,
  workspaces: Workspaces,
  options: Partial<SymbolsOptions> = {},
): SymbolsSource {
  const opts = { ...defaultSymbolsOptions, ...options };
  const indexes = new Map<string, SymbolIndex>();
  /** Per workspace, the build waiting for a quiet moment. */
  const timers = new Map<string, NodeJS.Timeout>();
  const lookups = new Memo<{ items: ContextItem[]; skipped: SkippedPath[] }>(deps, 16);
  const pool = opts.pool ?? sharedCpuPool();
  const mapOptions = { ...defaultRepoMapOptions, maxChars: opts.mapChars };
  /** Per workspace, the map ranked last and the index version it was ranked from; the ranking under way. */
  const maps = new Map<string, { version: number; item: ContextItem | undefined }>();
  const ranking = new Map<string, Promise<void>>();
  let closed = false;

  const indexFor = (root: string) => {
    let index = indexes.get(root);
    if (!index) {
      const host = sharedParseHost({ workerUrl: opts.workerUrl, idleMs: opts.workerIdleMs });
      index = new SymbolIndex(root, deps.isNeverRead, deps.allowedRoots, opts, host, opts.tables?.(root));
      indexes.set(root, index);
    }
    return index;
  };

  const build = (workspace: string, first?: (rel: string) => number) => {
    const ws = workspaces.get(workspace);
    const listing = async () => (await ws.walk()).files;
    // Without an armed watcher an in-place edit does not change the fingerprint: the TTL backstop of the
    // other memos then starts a rebuild (a stat per file) now and then.
    const epoch = ws.watcher.armed ? 0 : Math.floor(deps.clock() / Math.max(1, deps.memoTtlMs));
    // Every build gives way to collecting requests until one waits on it (`hurry`, at the wait below).
    const index = indexFor(ws.root);
    const built = index.ensure(`${ws.gitFingerprint()}|${epoch}`, listing, first, () => ws.whenIdle());
    // Once deep mode asked for this workspace's map, each build ends with a new one, off the request path.
    void built.then(() => (maps.has(index.root) ? rankMap(index) : undefined));
    return built;
  };

  /** Builds once `buildDelayMs` passed without a request for this workspace (each request restarts the wait). */
  const buildLater = (workspace: string) => {
    if (closed) return;
    clearTimeout(timers.get(workspace));
    const timer = setTimeout(() => {
      timers.delete(workspace);
      if (!closed) void build(workspace);
    }, opts.buildDelayMs);
    timer.unref?.();
    timers.set(workspace, timer);
  };

  const waitFor = (promise: Promise<void>) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, opts.waitMs);
      promise.then(() => {
        clearTimeout(timer);
        resolve();
      });
    });

  /**
   * Ranks the map of the index as it is, unless the map is current or a ranking is under way (which this
   * waits for). Ranking an index of thousands of files runs in the CPU pool: this thread packs the index
   * and renders the top of the answer. A ranking that fails keeps the last map.
   */
  const rankMap = (index: SymbolIndex): Promise<void> => {
    const running = ranking.get(index.root);
    if (running) return running;
    if (closed || maps.get(index.root)?.version === index.version) return Promise.resolve();
    const version = index.version;
    const done = repoMap(mapSource(index, deps), mapOptions, pool)
      .then(({ text, files }) => {
        const item: ContextItem | undefined =
          files === 0
            ? undefined
            : {
                key: 'symbols.map',
                source: 'symbols',
                title: 'repository map: most referenced files and their definitions',
                text,
                priority: 40,
                kind: 'text',
                why: 'the most referenced files of the repository and what they define',
              };
        maps.set(index.root, { version, item });
      })
      .catch(() => undefined)
      .finally(() => ranking.delete(index.root));
    ranking.set(index.root, done);
    return done;
  };

  /**
   * The map for this request. A small repository's request waits (at most `waitMs` each time) for a map of
   * the index as it is now; a large one's gets the last map while the next is ranked (after every build
   * too, once a request asked for a map: `build`).
   */
  const mapItem = async (index: SymbolIndex, wait: boolean): Promise<ContextItem | undefined> => {
    const ranked = rankMap(index);
    if (wait) {
      await waitFor(ranked);
      // The ranking waited for may have started before the index's last change.
      await waitFor(rankMap(index));
    }
    return maps.get(index.root)?.item;
  };

  const frame = { name: 'symbols', timeoutMs: opts.waitMs + 2_000, answers: [...LOOKUP_KEYS, 'symbols.map'] };
  const source = defineSource(workspaces, frame, async ({ input, ws, wanted }) => {
    const wantLookup = LOOKUP_KEYS.some(wanted);
    const wantMap = wanted('symbols.map');
    const root = ws.root;
    const index = indexFor(root);
    // Asked which commit brought a pasted line: the names on that line are not asked about (the history answers).
    const pasted = historyOfPastedLines(input.question);
    const terms: Terms = wantLookup
      ? {
          identifiers: subjectIdentifiers(input.question).filter(
            (identifier) => !pasted.some((line) => line.includes(identifier.term)),
          ),
          paths: subjectPaths(input.question).map((named) => named.token),
        }
      : { identifiers: [], paths: [] };
    // Files the message names (paths that exist, bare file names found in the listing): parsed now,
    // whatever the index's state. A bare name costs the listing, which deep mode shares with tree and stats.
    const exact = wantLookup
      ? ws
          .named(deps.homeDir, input.question.paths)
          .inside.map((m) => m.rel)
          // A file in the index came from the listing, which leaves ignored files out: no .gitignore read for it.
          .filter((rel) => grammarOf(rel) !== undefined && (index.has(rel) || !isGitIgnored(root, rel)))
      : [];
    const bare = terms.paths.filter((token) => !token.includes('/') && grammarOf(token) !== undefined);
    const byName =
      bare.length > 0
        ? resolvePaths(
            bare,
            await ws.walk().then(
              (w) => w.files,
              () => [],
            ),
          )
        : [];
    const named = [...new Set([...exact, ...byName])].slice(0, NAMED_FILES);
    await index.refresh(named);
    const fingerprint = ws.gitFingerprint();
    const needsIndex = terms.identifiers.length > 0;
    let state = index.state();
    if (needsIndex || wantMap) {
      // The repository's size decides how long a request may wait; the listing is shared with tree and stats.
      const small = state.ready
        ? state.listed <= opts.waitFiles
        : isSmall(await ws.walk().catch(() => undefined), opts.waitFiles);
      if (small || needsIndex) {
        // Small: wait for the running build (bounded by waitMs). Large: only a question naming an identifier
        // waits, and only for the first build; later ones serve the last index while the next builds.
        const building = build(input.workspace, hinted(terms));
        state = index.state();
        if (!state.current && (small || !state.ready)) {
          // This request is collecting: a build still giving way to requests would wait on it.
          index.hurry();
          await waitFor(building);
        }
        state = index.state();
      } else if (!state.current) {
        // Nobody waits: start after this request, so its other sources keep the processor.
        buildLater(input.workspace);
      }
    } else if (!state.current) {
      buildLater(input.workspace);
    }

    const skipped: SkippedPath[] = [];
    for (const [grammar, reason] of state.off) {
      skipped.push({ path: `(${grammar})`, reason: `symbols off: ${reason}` });
    }
    if (!state.ready) {
      skipped.push({
        path: '(symbol index)',
        reason: `still building: ${state.indexed} of ${state.listed || '?'} files indexed`,
      });
    }
    const items: ContextItem[] = [];
    if (wantMap && state.ready) {
      const item = await mapItem(index, state.listed <= opts.waitFiles);
      if (item) items.push(item);
    }
    if (!wantLookup || (terms.identifiers.length === 0 && named.length === 0)) {
      return { items, skipped };
    }
    // Paths named as they are go to files.named too (the same mentions); bare names found in the listing do not.
    const headSent = new Set(wanted('files.named.') ? exact : []);
    const definersOutlined = outlinesDefiners(input.question);
    const key = `${root}|${terms.identifiers.map((t) => t.term).join(',')}|${named.join(',')}|${[...headSent].join(',')}|${definersOutlined}`;
    const found = await lookups.get(key, `${fingerprint}|${index.version}|${state.ready}`, async () => {
      const guard = new FileGuard(deps.isNeverRead);
      const zone = workspaceZone(root, deps.allowedRoots);
      const reader = new LineReader(guard, zone, root);
      const inPlay = named;
      const { hits, missed } = findDefinitions(index, terms, new Set(inPlay), reader);
      const out: ContextItem[] = [];
      const notes: SkippedPath[] = [];
      for (const hit of hits) {
        const item = definitionItem(hit, reader);
        if (item) out.push(item);
      }
      const outlined = [
        ...new Set([
          ...inPlay.filter((rel) => !(headSent.has(rel) && sentWhole(index, rel))),
          ...(definersOutlined ? hits.map((hit) => hit.rel) : []),
        ]),
      ].slice(0, defaultLookupLimits.outlines);
      for (const rel of outlined) {
        const why = inPlay.includes(rel)
          ? 'the definitions of a file named in the conversation'
          : 'the definitions of a file that defines a name in the question';
        // A file only defining a name asked gets the outline around that definition; one the conversation named,
        // the whole map.
        const near = inPlay.includes(rel)
          ? undefined
          : hits.filter((hit) => hit.rel === rel).map((hit) => hit.def.line);
        const defs = reader.definitions(rel, index.definitionsOf(rel));
        const item = outlineItem(rel, defs, defaultLookupLimits, why, near);
        if (item) out.push(item);
        const refusal = index.skipOf(rel);
        if (refusal) notes.push({ path: rel, reason: refusal });
      }
      for (const rel of named) {
        const refusal = index.skipOf(rel);
        if (refusal && !outlined.includes(rel)) notes.push({ path: rel, reason: refusal });
      }
      if (missed.length > 0 && wanted('symbols.search.')) {
        const listing = (await ws.walk()).files;
        const search = wordSearch(
          missed.flatMap((term) => term.split(/\.|::|#/).slice(-1)),
          listing,
          { guard, zone, root },
        );
        out.push(...search.items);
        if (search.incomplete) notes.push({ path: '(word search)', reason: 'stopped at its file or byte limit' });
      }
      return { items: out, skipped: notes };
    });
    return { items: [...items, ...found.items], skipped: [...skipped, ...found.skipped] };
  });

  return {
    source,
    warm: (workspace) => build(workspace).catch(() => undefined),
    close() {
      closed = true;
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
      for (const index of indexes.values()) index.close();
    },
  };
}

/** The map's view of an index: its tables, and the shown files' definitions read back through the guard. */
function mapSource(index: SymbolIndex, deps: SourceDeps): MapSource {
  const reader = new LineReader(
    new FileGuard(deps.isNeverRead),
    workspaceZone(index.root, deps.allowedRoots),
    index.root,
  );
  return {
    tables: index.tables,
    definitions: (rel) => index.definitionsOf(rel).map((def) => reader.definition(rel, def)),
  };
}

/**
 * Whether a listing holds at most `limit` parseable files. Only the side of the limit matters, so the
 * count stops past it: a cold request in a large repository does not run every listed path through the
 * grammar table while its git processes want the processor. Memoized per listing (the walk is memoized:
 * same object while unchanged) and limit.
 */
const smallListings = new WeakMap<object, Map<number, boolean>>();
export function isSmall(walk: { files: readonly string[] } | undefined, limit: number): boolean {
  if (!walk) return true;
  if (walk.files.length <= limit) return true;
  let known = smallListings.get(walk);
  if (!known) {
    known = new Map();
    smallListings.set(walk, known);
  }
  let small = known.get(limit);
  if (small === undefined) {
    let count = 0;
    small = true;
    for (const rel of walk.files) {
      if (grammarOf(rel) !== undefined && ++count > limit) {
        small = false;
        break;
      }
    }
    known.set(limit, small);
  }
  return small;
}

/**
 * Files to parse first: those whose path holds a word of an identifier or a
 * path token (`OrderService` → `order_service.py`, `rates.py` → `billing/rates.py`).
 */
/**
 * Whether the files that define a name the question asks about get their outline. An outline answers "what is
 * in there" (a definition, an explanation); a question only about uses or tests ("who calls X", "which tests
 * exercise X") is answered by the lines that use it, and the definer's outline (up to 800 tokens) crowds them.
 * Files the conversation names keep theirs.
 */
function outlinesDefiners(question: Question): boolean {
  const aboutUses = hasIntent(question, 'uses') || hasIntent(question, 'tests');
  return !aboutUses || hasIntent(question, 'definition');
}

function hinted(terms: Terms): (rel: string) => number {
  const squash = (text: string) => text.toLowerCase().replace(/[_\-\s]/g, '');
  const words = new Set<string>();
  for (const { tries } of terms.identifiers) {
    const name = tries[0] ?? '';
    // The whole name (`ordersservice` in `orders_service.py`), and its words (`createSymbolsSource` → `symbols`, `source`).
    for (const part of name.split('.')) if (part.length >= 4) words.add(squash(part));
    for (const word of name.split(/[._]|(?<=[a-z0-9])(?=[A-Z])/)) if (word.length >= 4) words.add(word.toLowerCase());
  }
  for (const token of terms.paths) words.add(squash(token.split('/').at(-1) ?? token));
  if (words.size === 0) return () => 0;
  const list = [...words];
  return (rel) => {
    const flat = squash(rel);
    let score = 0;
    for (const word of list) if (flat.includes(word)) score++;
    return score;
  };
}
