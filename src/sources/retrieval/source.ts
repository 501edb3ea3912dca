// The retrieval source: one mechanism for any question whose answer is in the
// repository. It searches the work tree for what the question names
// (search.ts: identifiers as whole words, quoted strings and error text as
// written; a follow-up's subject when the turn names nothing), ranks the hit
// regions by how directly they answer (regions.ts), and sends the best files'
// regions (`retrieval.code.<path>`), each line once. The intent words add
// evidence of their kind: task and manifest lines for tests, builds and
// versions, the recent commits for history (`retrieval.history`). How much it
// sends is the mode's depth.

import path from 'node:path';
import { hasIntent, type Question, subjectIdentifiers, subjectPaths } from '../../shared/question.ts';
import type { ContextItem, ContextSource, ModeName, SkippedPath } from '../../shared/types.ts';
import { defineSource } from '../defineSource.ts';
import type { SourceDeps } from '../deps.ts';
import { gitErrorReason } from '../gitRunner.ts';
import { FileGuard, workspaceZone } from '../guard.ts';
import { Memo } from '../memo.ts';
import { refusedByName } from '../symbols/admit.ts';
import type { Workspaces } from '../workspace.ts';
import { recentHistory } from './history.ts';
import type { RetrievalIndex } from './index/registry.ts';
import { type FileRegions, fileRegions, isTaskPath, type RankContext, renderRegions } from './regions.ts';
import { type GrepHit, grep } from './search.ts';

export interface RetrievalDepth {
  /** Files sent at most. */
  files: number;
  /** Characters of regions per file, at most. */
  fileChars: number;
  /** Characters of all regions together, at most. */
  totalChars: number;
  history: boolean;
}

/** Depth per mode: quick has a small window, deep a large one. */
export const defaultDepths: Record<Exclude<ModeName, 'off'>, RetrievalDepth> = {
  quick: { files: 3, fileChars: 1_500, totalChars: 3_000, history: true },
  'git-aware': { files: 5, fileChars: 2_000, totalChars: 5_000, history: true },
  debug: { files: 5, fileChars: 2_400, totalChars: 5_000, history: true },
  deep: { files: 10, fileChars: 3_000, totalChars: 12_000, history: true },
};

export interface RetrievalOptions {
  depths: Record<Exclude<ModeName, 'off'>, RetrievalDepth>;
  /** Bytes of grep output read at most per search (git is stopped there). */
  grepBytes: number;
  /** Matching lines kept per file and search. */
  perFile: number;
  timeoutMs: number;
  /** The persistent index (index/): searched first; git grep answers while it is not ready, and says so. */
  index?: RetrievalIndex | undefined;
}

export const defaultRetrievalOptions: RetrievalOptions = {
  depths: defaultDepths,
  grepBytes: 512 * 1024,
  perFile: 20,
  timeoutMs: 4_000,
};

const MAX_NAMES = 16;
const MAX_WORDS = 6;

/** Words that say what a task runs, searched in task files when the question is about tests or builds. */
const TASK_WORDS: Record<'tests' | 'build', string[]> = {
  tests: ['test', 'tests', 'pytest', 'jest', 'vitest', 'mocha', 'ava', 'tox', 'nox', 'unittest', 'check'],
  build: ['build', 'install', 'compile', 'lint', 'fmt', 'format', 'release', 'dist', 'check'],
};

/** The task and manifest files searched for task words and package names. */
const TASK_PATHSPECS = [
  ':(glob)**/Makefile',
  ':(glob)**/GNUmakefile',
  ':(glob)**/makefile',
  ':(glob)**/justfile',
  ':(glob)**/Justfile',
  ':(glob)**/package.json',
  ':(glob)**/pyproject.toml',
  ':(glob)**/setup.cfg',
  ':(glob)**/setup.py',
  ':(glob)**/tox.ini',
  ':(glob)**/noxfile.py',
  ':(glob)**/Cargo.toml',
  ':(glob)**/go.mod',
  ':(glob)**/requirements*.txt',
  ':(glob)**/Gemfile',
  ':(glob)**/pom.xml',
  ':(glob)**/build.gradle*',
  ':(glob)**/deno.json*',
  ':(glob)**/Taskfile.y*ml',
  ':(glob)**/CONTRIBUTING.md',
  ':(glob).github/workflows/*.y*ml',
];

interface SearchPlan {
  names: string[];
  qualified: string[];
  strings: string[];
  taskWords: string[];
  /** Names of packages (and other plain words) looked for in manifests when the question is about versions. */
  manifestWords: string[];
  /** Plain words searched in the code only when the question names nothing code-shaped. */
  looseWords: string[];
  historyPaths: string[];
}

/** The message of an error line, as the code would spell it: `KeyError: 'x' not found` → `not found`. */
function errorCore(line: string): string | undefined {
  const message = line.replace(/^.*?\b(?:Error|Exception|error(?:\[\w+\])?|panic|fatal)\b[:!]?\s*/, '');
  // Up to the first quote or digit: what follows is usually the value that varied.
  const core = message.split(/["'`\d]/)[0]?.trim() ?? '';
  return core.length >= 12 ? core.slice(0, 80) : undefined;
}

const PLAIN_PATH = /^[\w./@+-]+$/;

export function searchPlan(question: Question): SearchPlan {
  const identifiers = subjectIdentifiers(question);
  const names = new Set<string>();
  const qualified = new Set<string>();
  for (const { term, tries } of identifiers) {
    if (tries.length > 1) qualified.add(term.replace(/::|#/g, '.'));
    if (term.includes('::')) qualified.add(term);
    for (const name of tries) if (name.length >= 3 && names.size < MAX_NAMES) names.add(name);
  }
  const strings = new Set<string>();
  for (const quoted of question.quoted) if (quoted.length >= 3 && strings.size < 8) strings.add(quoted);
  for (const line of question.errors) {
    const core = errorCore(line);
    if (core && strings.size < 8) strings.add(core);
  }
  // "How are the tests run": the task files. "Which tests exercise parseInvoice": the name's hits, not the tasks.
  const taskWords = new Set<string>();
  if (names.size === 0) {
    for (const intent of ['tests', 'build'] as const) {
      if (hasIntent(question, intent)) for (const word of TASK_WORDS[intent]) taskWords.add(word);
    }
  }
  const manifestWords = hasIntent(question, 'version')
    ? [...new Set([...question.packages, ...question.words, ...names])].slice(0, 12)
    : [];
  const nothingNamed = names.size === 0 && strings.size === 0 && subjectPaths(question).length === 0;
  const looseWords = nothingNamed ? question.words.filter((word) => word.length >= 4).slice(0, MAX_WORDS) : [];
  const historyPaths = subjectPaths(question)
    .map((named) => named.token.replace(/^\.\//, ''))
    .filter((token) => PLAIN_PATH.test(token) && !token.startsWith('-'))
    .map((token) => (token.includes('/') ? `:(literal)${token}` : `:(glob)**/${token}`))
    .slice(0, 8);
  return {
    names: [...names],
    qualified: [...qualified],
    strings: [...strings],
    taskWords: [...taskWords],
    manifestWords,
    looseWords,
    historyPaths,
  };
}

export function createRetrievalSource(
  deps: SourceDeps,
  workspaces: Workspaces,
  options: Partial<RetrievalOptions> = {},
): ContextSource {
  const opts = { ...defaultRetrievalOptions, ...options };
  const memo = new Memo<{ items: ContextItem[]; skipped: SkippedPath[] }>(deps, 32);
  const frame = { name: 'retrieval', timeoutMs: opts.timeoutMs, answers: ['retrieval.code.', 'retrieval.history'] };

  return defineSource(workspaces, frame, async ({ input, signal, ws, wanted }) => {
    // The repository check first (gitSafety.ts): a refused repository gets no git at all.
    if (input.mode === 'off' || !(await ws.checkedRepo())) return { items: [] };
    const depth = opts.depths[input.mode];
    const plan = searchPlan(input.question);
    const wantHistory = wanted('retrieval.history') && depth.history && hasIntent(input.question, 'history');
    const wantCode =
      wanted('retrieval.code.') &&
      (plan.names.length > 0 ||
        plan.strings.length > 0 ||
        plan.taskWords.length > 0 ||
        plan.manifestWords.length > 0 ||
        plan.looseWords.length > 0);
    if (!wantHistory && !wantCode) return { items: [] };
    const key = JSON.stringify([ws.root, input.mode, plan, input.question.intents, wantHistory, wantCode]);
    const indexed = wantCode && opts.index ? await opts.index.prepare(ws) : undefined;
    const fingerprint = `${ws.gitFingerprint()}|${indexed?.search ? 'index' : 'grep'}`;
    return memo.get(key, fingerprint, async () => {
      const git = deps.git(ws.root, signal);
      const withPrefix = (args: string[]) => ws.gitArgs(args);
      const skipped: SkippedPath[] = indexed?.note ? [{ path: '(retrieval index)', reason: indexed.note }] : [];
      const failed = (what: string) => (error: unknown) => {
        skipped.push({ path: `(retrieval ${what})`, reason: gitErrorReason(error) });
        return { hits: [] as GrepHit[], cut: false };
      };
      const search = async (patterns: string[], extra: { words: boolean; ignoreCase?: boolean; paths?: string[] }) => {
        const request = { patterns, perFile: opts.perFile, maxBytes: opts.grepBytes, ...extra };
        // The index gives the same hits; a request it cannot narrow (or no ready index) goes to git grep.
        return indexed?.search?.(request) ?? grep(git, withPrefix, request);
      };
      const none = Promise.resolve({ hits: [] as GrepHit[], cut: false });
      const [byName, byString, byTask, byManifest, byWord, status, history] = await Promise.all([
        wantCode ? search(plan.names, { words: true }).catch(failed('names')) : none,
        wantCode ? search(plan.strings, { words: false }).catch(failed('strings')) : none,
        wantCode && plan.taskWords.length > 0
          ? search(plan.taskWords, { words: true, ignoreCase: true, paths: TASK_PATHSPECS }).catch(failed('tasks'))
          : none,
        wantCode && plan.manifestWords.length > 0
          ? search(plan.manifestWords, { words: true, ignoreCase: true, paths: TASK_PATHSPECS }).catch(
              failed('manifests'),
            )
          : none,
        wantCode ? search(plan.looseWords, { words: true, ignoreCase: true }).catch(failed('words')) : none,
        wantCode ? ws.status().catch(() => undefined) : Promise.resolve(undefined),
        wantHistory
          ? recentHistory(git, withPrefix, plan.historyPaths).catch((error: unknown) => {
              skipped.push({ path: '(retrieval history)', reason: gitErrorReason(error) });
              return undefined;
            })
          : Promise.resolve(undefined),
      ]);
      for (const [what, result] of [
        ['names', byName],
        ['strings', byString],
        ['words', byWord],
      ] as const) {
        if (result.cut)
          skipped.push({ path: `(retrieval ${what})`, reason: 'grep output over its limit; first part used' });
      }
      const items: ContextItem[] = [];
      if (history?.log) {
        const text = history.patch ? `${history.log}\n\nlast commit's changes:\n${history.patch}` : history.log;
        items.push({
          key: 'retrieval.history',
          source: 'retrieval',
          title: plan.historyPaths.length > 0 ? 'recent commits of the named files' : 'recent commits',
          text,
          priority: 70,
          kind: 'text',
        });
      }
      if (wantCode) {
        const context: RankContext = {
          names: plan.names,
          qualified: plan.qualified,
          strings: plan.strings,
          intents: input.question.intents,
          changed: new Set(status?.changedFiles ?? []),
        };
        const hits = [...byName.hits, ...byString.hits, ...byTask.hits, ...byManifest.hits, ...byWord.hits];
        items.push(...codeItems(ws.root, hits, context, depth, deps, skipped));
      }
      return { items, skipped };
    });
  });
}

/** The best files' regions, one item per file, best first. */
function codeItems(
  root: string,
  hits: readonly GrepHit[],
  context: RankContext,
  depth: RetrievalDepth,
  deps: SourceDeps,
  skipped: SkippedPath[],
): ContextItem[] {
  const byFile = new Map<string, GrepHit[]>();
  for (const hit of hits) {
    const rel = hit.rel.split(path.sep).join('/');
    // Never-read files are not even looked at (git grep read them; nothing of theirs goes further).
    if (deps.isNeverRead(rel)) continue;
    const list = byFile.get(rel) ?? [];
    if (!list.some((known) => known.line === hit.line)) list.push(hit);
    byFile.set(rel, list);
  }
  const guard = new FileGuard(deps.isNeverRead);
  const zone = workspaceZone(root, deps.allowedRoots);
  // Cheap first ranking from the hit lines alone, so only the likely files are read.
  const ranked: { file: FileRegions; lines: string[] }[] = [];
  const preliminary = [...byFile].map(([rel, list]) => ({
    rel,
    list,
    score: fileRegions(
      rel,
      list.map((hit) => hit.text),
      renumbered(list),
      context,
    ).score,
  }));
  preliminary.sort((a, b) => b.score - a.score || a.rel.localeCompare(b.rel));
  for (const { rel, list } of preliminary.slice(0, depth.files * 3)) {
    const got = readForRegions(guard, zone, root, rel);
    if (!('text' in got)) {
      if ('skip' in got) skipped.push({ path: rel, reason: got.skip });
      continue;
    }
    const lines = got.text.split('\n');
    ranked.push({ file: fileRegions(rel, lines, list, context), lines });
  }
  ranked.sort((a, b) => b.file.score - a.file.score || a.file.rel.localeCompare(b.file.rel));
  const items: ContextItem[] = [];
  let total = 0;
  for (const { file, lines } of ranked.slice(0, depth.files)) {
    const room = Math.min(depth.fileChars, depth.totalChars - total);
    if (room < 200) break;
    const rendered = renderRegions(lines, file.regions, room);
    total += rendered.text.length;
    items.push({
      key: `retrieval.code.${file.rel}`,
      source: 'retrieval',
      title: `${file.rel} lines ${rendered.ranges.join(', ')}`,
      text: rendered.text,
      // 60-85: above the unchanged files and outlines, below what the question names outright.
      priority: 60 + Math.max(0, Math.min(25, Math.round(file.score / 6))),
      kind: 'code',
      path: file.rel,
      ...(rendered.cut ? { truncated: true } : {}),
    });
  }
  return items;
}

/** The hits as if their lines were the whole file (the first ranking reads no file). */
function renumbered(hits: readonly GrepHit[]): GrepHit[] {
  return hits.map((hit, i) => ({ ...hit, line: i + 1 }));
}

/** Files larger than this are not read for regions (git grep found the line; the file is not hand-sized). */
const MAX_READ_BYTES = 2 * 1024 * 1024;

/**
 * A file with hits, read through the guard. Unlike the symbol index's
 * admission, one long line does not refuse a file (a hand-written file may hold
 * a long string; lines are cut when rendered): only bundles and generated
 * files by name, binary content and the size limit do.
 */
function readForRegions(
  guard: FileGuard,
  zone: ReturnType<typeof workspaceZone>,
  root: string,
  rel: string,
): { text: string } | { skip: string } | { missing: true } {
  const byName = isTaskPath(rel) ? undefined : refusedByName(rel);
  if (byName) return { skip: byName };
  const read = guard.read(path.join(root, rel), zone, [rel], { maxBytes: MAX_READ_BYTES, skipLarger: true });
  if (read.refused) return { skip: read.refused };
  if (read.text === undefined) return { skip: 'too large to read for regions' };
  if (read.text.slice(0, 8192).includes('\0')) return { skip: 'binary' };
  return { text: read.text };
}
