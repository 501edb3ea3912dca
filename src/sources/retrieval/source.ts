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
import { pastedLines } from '../../shared/pastedLine.ts';
import { hasIntent, isKindNoun, type Question, subjectIdentifiers, subjectPaths } from '../../shared/question.ts';
import type { ContextItem, ContextSource, ModeName, SkippedPath } from '../../shared/types.ts';
import { defineSource } from '../defineSource.ts';
import type { SourceDeps } from '../deps.ts';
import { branchBase, namedRefs, readHeadRef, refExists } from '../git/gitBranch.ts';
import { type GitRunner, gitErrorReason, readPrefix } from '../git/gitRunner.ts';
import { Memo } from '../memo.ts';
import { refusedByName } from '../symbols/admit.ts';
import type { ReferenceKind } from '../symbols/extract.ts';
import { FileGuard, workspaceZone } from '../workspace/guard.ts';
import type { Workspaces } from '../workspace.ts';
import { type BuildOutputTerm, buildOutputItems, buildOutputReason } from './buildOutput.ts';
import { askedUses, usesOf } from './callers.ts';
import { ENV_READ_SOURCE, readsEnvironment } from './envReads.ts';
import {
  ASKS_ORIGIN,
  type DefinitionAt,
  defaultHistoryLimits,
  definitionHistory,
  originHistory,
  pickaxeHistory,
  recentHistory,
  releaseHistory,
} from './history.ts';
import { askedModules, continuedImports } from './importForms.ts';
import type { HistoryAnswer, IndexAnswer, RetrievalIndex } from './index/registry.ts';
import { askedSide, changesOf, fileHistory } from './indexedHistory.ts';
import { asideRank, hitsByFile, oneLinePerFileFirst } from './listing.ts';
import { MANIFEST_FILES } from './manifestFiles.ts';
import { markersAsked, marks, spellingsSaid } from './markers.ts';
import {
  NAME_PART_WORDS,
  NOUN_PART_WORDS,
  nameParts,
  nearestNames,
  proseNames,
  prosePatterns,
  type ResolvedName,
  sameWord,
  spellingPatterns,
} from './names.ts';
import {
  askedRelations,
  DOC_PATH,
  declaresPackage,
  definitionTest,
  type FileRegions,
  fileRegions,
  isTaskPath,
  isTestPath,
  type RankContext,
  type Relations,
  relationPatterns,
  relationRank,
  renderRegions,
  saysRelation,
} from './regions.ts';
import { type RoleFile, type RoleReader, roleFiles, rolesAsked } from './roleFiles.ts';
import { type GrepHit, grep, NOT_PROXY_OWN } from './search.ts';
import { shortNames, statesVersionOf, versionSearch, versionSubjects } from './versionMentions.ts';

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
/** Version numbers searched: a question compares two or three releases at most. */
const MAX_VERSIONS = 4;

/** Words that say what a task runs, searched in task files when the question is about tests or builds. */
const TASK_WORDS: Record<'tests' | 'build', string[]> = {
  tests: ['test', 'tests', 'pytest', 'jest', 'vitest', 'mocha', 'ava', 'tox', 'nox', 'unittest', 'check'],
  build: ['build', 'install', 'compile', 'lint', 'fmt', 'format', 'release', 'dist', 'check'],
};

/**
 * A build question that says which task it means gets that task's words only: in a CI file with dozens of
 * steps, "the linter" is the step that runs one, not every build line.
 */
const TASK_KINDS: [RegExp, string[]][] = [
  [
    /\b(?:lint\w*|format\w*|fmt|style|clippy|static analysis|type[- ]?check\w*)\b/i,
    [
      'lint',
      'linter',
      'fmt',
      'format',
      'clippy',
      'ruff',
      'eslint',
      'flake8',
      'pylint',
      'mypy',
      'golangci-lint',
      'vet',
      'rubocop',
      'prettier',
      'biome',
      'black',
      'checkstyle',
      'spotless',
      'typecheck',
      'tsc',
    ],
  ],
  [/\b(?:release\w*|publish\w*|deploy\w*)\b/i, ['release', 'publish', 'deploy', 'dist', 'upload', 'goreleaser']],
  [/\binstall\w*|\bset ?up\b|\bbootstrap\w*/i, ['install', 'setup', 'bootstrap', 'requirements', 'sync', 'restore']],
  [/\b(?:build\w*|compil\w*|bundl\w*)\b/i, ['build', 'compile', 'bundle', 'dist', 'make', 'cargo', 'gradle', 'mvn']],
];

/** Asking to run one test: "just the X test", "only the X test", "a single test". */
const ONE_TEST = /\b(?:just|only|single|one|specific|individual)\b/i;

/** Asking who uses a thing in so many words ("can I use it" is not one). */
const ASKS_USES = /\b(?:call(?:s|ed|ers?|ing)?|usages?|used|invok\w*|referenc\w*)\b/i;

/** Words that make a tests question one about running them ("the test suite", "the tests run"). */
const TASK_NOUNS = /\b(?:suites?|run(?:s|ning)?|runner|command|coverage|ci)\b/i;

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
  ':(glob)**/*.csproj',
  ':(glob)**/Directory.Build.props',
  ':(glob)**/global.json',
  ':(glob)**/.nvmrc',
  ':(glob)**/.python-version',
  ':(glob)**/rust-toolchain*',
  ':(glob)**/.tool-versions',
];

/** Where dependencies and their versions are written: the task files and the manifests of rules/manifests.json. */
const MANIFEST_PATHSPECS = [...TASK_PATHSPECS, ...MANIFEST_FILES.pathspecs];

/**
 * A language or runtime named in a question about versions, and the manifest
 * keys that state its minimum (`requires-python`, go.mod's `go` line,
 * `engines.node`, `rust-version`, Maven's release, .NET's target frameworks).
 */
const RUNTIME_KEYS: [RegExp, string[]][] = [
  [/\bpython\b/i, ['requires-python', 'python_requires', 'python']],
  [/\bgo(?:lang)?\b/i, ['go', 'toolchain']],
  [/\bnode(?:\.?js)?\b/i, ['node', 'engines']],
  [/\brust\b|\bmsrv\b/i, ['rust-version', 'channel']],
  [
    /\bjava\b|\bjdk\b/i,
    ['maven.compiler.release', 'maven.compiler.source', 'java.version', 'release', 'sourceCompatibility'],
  ],
  [/\.net\b|\bdotnet\b|\bc#/i, ['TargetFramework', 'TargetFrameworks']],
  [/\bruby\b/i, ['required_ruby_version', 'ruby']],
];

/** Task-file lines kept per file (git grep's per-file limit elsewhere is 20). */
const TASK_LINES_PER_FILE = 80;

/** Reads kept per file: the reads are spread over the files that have them. */
const ENV_READS_PER_FILE = 4;

interface SearchPlan {
  names: string[];
  /** Names guessed from prose (a word beside a kind noun): a name the prose resolves to takes their place. */
  guessed: string[];
  qualified: string[];
  strings: string[];
  /**
   * The strings as code spells them when it handles one (`"--bind"`, `'/login'`): searched apart, so that a
   * file mentioning the string in prose or help text dozens of times still yields the line that handles it.
   */
  literals: string[];
  taskWords: string[];
  /** Version numbers the question writes (`8.1.0`): searched as words, in changelogs, manifests and CI files alike. */
  versions: string[];
  /** Names of packages (and other plain words) looked for in manifests when the question is about versions. */
  manifestWords: string[];
  /** Plain words searched in the code only when the question names nothing code-shaped. */
  looseWords: string[];
  /** The question's plain words, in order: a name said in prose ("the header links parsing"). */
  proseWords: string[];
  /** The prose says a name outright: its words stand before a noun of what code is ("the run all tests part"). */
  proseNamed: boolean;
  /** Asked for a list of what the loose words find ("which files mention retries", "list every fallback"). */
  listing: boolean;
  /**
   * Asked about code carrying a marker ("what is deprecated", "which TODOs are left"), naming nothing: the markers'
   * spellings (rules/markers.json), whose every line is listed, one per file first.
   */
  markers: { ids: string[]; spellings: string[]; said: string[] };
  historyPaths: string[];
  /** The shape of an environment read (envReads.ts), when the question asks about the environment and names no variable. */
  envReads: string[];
  /**
   * Asked which tests exercise or which code uses something, not how a task runs: a plain word the code defines
   * is then the thing asked about ("which tests exercise logout"). In other questions a defined word is more
   * likely English ("before", "open", "license").
   */
  asksAboutCode: boolean;
  /** Asked what changed across releases (tags): the log between them, not the last commit's. */
  releases: boolean;
  /** Asked about the branch against the default one: its diff, not the last commit's. */
  branch: boolean;
}

/** The message of an error line, as the code would spell it: `KeyError: 'x' not found` → `not found`. */
function errorCore(line: string): string | undefined {
  const message = line.replace(/^.*?\b(?:Error|Exception|error(?:\[\w+\])?|panic|fatal)\b[:!]?\s*/, '');
  // Up to the first quote or digit: what follows is usually the value that varied.
  const core = message.split(/["'`\d]/)[0]?.trim() ?? '';
  return core.length >= 12 ? core.slice(0, 80) : undefined;
}

const PLAIN_PATH = /^[\w./@+-]+$/;

const ENV_WORD = /\benv(?:ironment)?\b/i;

/** A question that wants every place of a kind, not the one best: "list them", "all the", "which TODOs are left". */
const ASKS_LIST = /\b(?:list|all|every|are there|any)\b|\bwhich \w+s\b/i;

/**
 * The loose words, each plural followed by its singular (`todos` → `todo`, `fixmes` → `fixme`): code spells the
 * thing once per place, the question counts them.
 */
function withSingulars(words: readonly string[]): string[] {
  const out: string[] = [];
  for (const word of words) {
    out.push(word);
    if (word.length >= 5 && /[^s]s$/.test(word)) out.push(word.slice(0, -1));
  }
  return [...new Set(out)].slice(0, MAX_WORDS);
}

/** A URL's path as a route spells it: `/login`, `/users/:id`, `/api/v1/items` (no file extension). */
const URL_PATH = /^\/[A-Za-z_][\w:./-]*$/;

/** Nouns that close a name said in prose ("the … part"), besides the kinds of code (function, class, …). */
const SPAN_END = /^(?:part|bit|piece|logic|code|routine|steps?|thing)$/;
/** Words of a name said in prose before its closing noun, at most. */
const SPAN_WORDS = 5;
/** Words that open a name said in prose ("the … part", "that … function"): none of its words. */
const SPAN_OPEN =
  /^(?:the|a|an|that|this|these|those|our|my|your|its|their|does|do|did|is|are|was|of|for|in|on|where|which|what|to|with|about)$/;

/**
 * The question's words in order, as a name said in prose would hold them: its plain words, and the function
 * words and general nouns that stand in a run of the name's words (a lone "is" in "where is the" is grammar,
 * a lone "file" is what the question is about; "the class to file part" says `class_to_file`).
 */
function proseWordsOf(question: Question): { words: string[]; closers: string[] } {
  const plain = new Set(question.words);
  const all = question.text.toLowerCase().match(/[a-z][a-z0-9'-]*/g) ?? [];
  const part = (token: string) => NAME_PART_WORDS.has(token) || NOUN_PART_WORDS.has(token);
  const out: string[] = [];
  const keep = (token: string) => {
    if (out.length < 16 && !out.includes(token)) out.push(token);
  };
  // "the get declared fields part", "the run all tests function": the words between an article and a noun
  // of what code is are the name's words, whatever else they are (an intent's `declared`, `tests`, `run`, a
  // relation's `required`). The noun that closes such a run says what kind of thing is named, not what it is
  // called (`part` would choose `TestPartial` over `runAllTests`), unless a longer run holds it ("the mark
  // persistent flag required part").
  const spans: { start: number; end: number }[] = [];
  for (let i = 0; i < all.length; i++) {
    if (!SPAN_END.test(all[i] as string) && !isKindNoun(all[i] as string)) continue;
    let start = i;
    while (start > 0 && i - start < SPAN_WORDS && !SPAN_OPEN.test(all[start - 1] as string)) start--;
    if (start > 0 && i - start >= 2) spans.push({ start, end: i });
  }
  const closers = new Set<string>();
  for (let k = 0; k < spans.length; k++) {
    const span = spans[k] as { start: number; end: number };
    for (const token of all.slice(span.start, span.end)) keep(token);
    // A longer span holding this one's closing noun ends after it and at most SPAN_WORDS words later (spans come
    // in the order of their ends): only those are looked at, not every span of a long question.
    let held = false;
    for (let j = k + 1; j < spans.length && (spans[j]?.end ?? 0) <= span.end + SPAN_WORDS && !held; j++)
      held = (spans[j]?.start ?? Number.POSITIVE_INFINITY) <= span.end;
    if (!held) closers.add(all[span.end] as string);
  }
  // A relation's own words ("create new X objects") say what is asked of the name, not what it is called.
  const relation = askedRelations(question.text) !== undefined;
  const tokens = all.filter((token) => !(relation && saysRelation(token)));
  // Runs of consecutive words that may be parts of a name; a run of two or more keeps its function words and
  // nouns unless it is nouns alone ("the code file"); a plain word is kept wherever it stands.
  for (let i = 0; i < tokens.length && out.length < 16; ) {
    let end = i;
    while (end < tokens.length && (plain.has(tokens[end] as string) || part(tokens[end] as string))) end++;
    const run = tokens.slice(i, end);
    const named = run.length >= 2 && !run.every((token) => NOUN_PART_WORDS.has(token));
    for (const token of run) if ((plain.has(token) || named) && !closers.has(token)) keep(token);
    i = end === i ? i + 1 : end;
  }
  return { words: out, closers: [...closers] };
}

export function searchPlan(question: Question): SearchPlan {
  const identifiers = subjectIdentifiers(question);
  const names = new Set<string>();
  const qualified = new Set<string>();
  // Names written as code (not guessed from prose): they, not a guess, say the question is about one thing.
  const firm = identifiers.filter((identifier) => !identifier.guessed).length;
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
  // A URL path ("the /login route") names no file of the repository: the code spells it as a string.
  for (const named of subjectPaths(question))
    if (URL_PATH.test(named.token) && strings.size < 8) strings.add(named.token);
  const literals = [...strings]
    .filter((text) => !/\s/.test(text) && text.length <= 60)
    .flatMap((text) => [`"${text}"`, `'${text}'`]);
  // "How are the tests run": the task files. "Which tests exercise parseInvoice": the name's hits, not the tasks.
  const taskWords = new Set<string>();
  // "Which version of expect-test …": a package's version, not how the tests run (the `test` in its name).
  if (firm === 0 && !hasIntent(question, 'version')) {
    for (const intent of ['tests', 'build'] as const) {
      if (!hasIntent(question, intent)) continue;
      const specific = intent === 'build' ? TASK_KINDS.filter(([said]) => said.test(question.text)) : [];
      const words = specific.length > 0 ? specific.flatMap(([, list]) => list) : TASK_WORDS[intent];
      for (const word of words) taskWords.add(word);
    }
  }
  const runtimeKeys = RUNTIME_KEYS.filter(([named]) => named.test(question.text)).flatMap(([, keys]) => keys);
  // A package as the question spells it (`IO::Socket::IP`, whose tries are `IO.Socket.IP`), and a runtime of one or
  // two letters (`R`), which are no words of the analysis.
  const written = identifiers.map((identifier) => identifier.term);
  const manifestWords = hasIntent(question, 'version')
    ? [
        ...new Set([
          ...runtimeKeys,
          ...question.packages,
          ...written,
          ...shortNames(question.text),
          ...question.words,
          ...names,
        ]),
      ].slice(0, 16)
    : [];
  // Prose that may name something: nothing code-shaped was written (a name guessed from a kind noun beside it is
  // still prose: "the mark persistent flag required part").
  const proseOnly = identifiers.every((identifier) => identifier.guessed) && strings.size === 0;
  const prose = proseOnly ? proseWordsOf(question) : { words: [], closers: [] };
  // A closing noun guessed as a name beside a kind noun ("the declared fields part": `part`) is no name either.
  for (const closer of prose.closers) names.delete(closer);
  const nothingNamed = names.size === 0 && strings.size === 0 && subjectPaths(question).length === 0;
  // The noun closing a name said in prose ("the … part") is searched for by nothing: it names no code.
  const looseWords = nothingNamed
    ? withSingulars(question.words.filter((word) => word.length >= 4 && !prose.closers.includes(word)))
    : [];
  // A pasted error or trace ("panic: …") is about where it comes from, not about every line that may panic.
  const markers = nothingNamed && question.errors.length === 0 ? markersAsked(question.text) : [];
  const proseWords = prose.words.slice(0, 8);
  const historyPaths = subjectPaths(question)
    .map((named) => named.token.replace(/^\.\//, ''))
    // A token from the root (`/login`, the `/a` of a pasted `</a>`) is a URL's path or markup: as a pathspec it
    // lies outside the repository, and git refuses the whole log.
    .filter((token) => PLAIN_PATH.test(token) && !token.startsWith('-') && !token.startsWith('/'))
    .map((token) => (token.includes('/') ? `:(literal)${token}` : `:(glob)**/${token}`))
    .slice(0, 8);
  return {
    names: [...names],
    guessed: identifiers
      .filter((identifier) => identifier.guessed)
      .flatMap((identifier) => identifier.tries)
      .filter((name) => !prose.closers.includes(name)),
    asksAboutCode:
      (hasIntent(question, 'tests') || ASKS_USES.test(question.text)) &&
      !hasIntent(question, 'build') &&
      !TASK_NOUNS.test(question.text),
    qualified: [...qualified],
    strings: [...strings],
    literals,
    taskWords: [...taskWords],
    versions: question.versions.slice(0, MAX_VERSIONS),
    manifestWords,
    looseWords,
    proseWords,
    proseNamed: prose.closers.length > 0,
    listing:
      looseWords.length > 0 && markers.length === 0 && ASKS_LIST.test(question.text) && !ENV_WORD.test(question.text),
    markers: {
      ids: markers.map((marker) => marker.id),
      spellings: [...new Set(markers.flatMap((marker) => marker.spellings))],
      said: spellingsSaid(
        question.text,
        markers.flatMap((marker) => marker.spellings),
      ),
    },
    historyPaths,
    envReads: firm === 0 && strings.size === 0 && ENV_WORD.test(question.text) ? [ENV_READ_SOURCE] : [],
    releases: firm === 0 && historyPaths.length === 0 && /\b(?:releases?|released|tags?|tagged)\b/i.test(question.text),
    branch: /\b(?:my|this|the current|our) branch\b|\bcompared (?:to|with)\b|\bvs\.? (?:main|master|the default)/i.test(
      question.text,
    ),
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
    const asked = searchPlan(input.question);
    // "Compared to v1.x": a token naming a ref is the base to compare with, not a file or a name to search.
    const comparedTo = asked.branch ? await refsNamed(ws, input.question) : [];
    const plan = comparedTo.length > 0 ? withoutRefs(asked, comparedTo) : asked;
    const wantHistory = wanted('retrieval.history') && depth.history && hasIntent(input.question, 'history');
    // "What includes format.h", "the format module": the module name its importers spell.
    const relations = askedRelations(input.question.text);
    const stems = relations?.imports
      ? askedModules(
          input.question.text,
          subjectPaths(input.question).map((named) => named.token),
        )
      : [];
    // Asked once: the files a question asks for by their role count as something to search, and are part of the
    // memo's key (two questions may share every searched word and differ only in the role they name).
    const roles = rolesAsked(input.question);
    const wantCode =
      wanted('retrieval.code.') &&
      (plan.names.length > 0 ||
        stems.length > 0 ||
        plan.strings.length > 0 ||
        plan.versions.length > 0 ||
        roles.length > 0 ||
        plan.taskWords.length > 0 ||
        plan.manifestWords.length > 0 ||
        plan.looseWords.length > 0 ||
        plan.markers.spellings.length > 0 ||
        plan.envReads.length > 0 ||
        plan.proseWords.length >= 2);
    if (!wantHistory && !wantCode) return { items: [] };
    const asks = [relations, stems, askedUses(input.question.text), roles.map((role) => role.why)];
    const key = JSON.stringify([ws.root, input.mode, plan, input.question.intents, wantHistory, wantCode, asks]);
    const indexed = wantCode && opts.index ? await opts.index.prepare(ws) : undefined;
    const historyIndex = wantHistory && opts.index ? await opts.index.history(ws) : undefined;
    const fingerprint = `${ws.gitFingerprint()}|${indexed?.search ? 'index' : 'grep'}|${historyIndex?.lookup ? 'index' : 'git'}`;
    return memo.get(
      key,
      fingerprint,
      async () => {
        const skipped: SkippedPath[] = indexed?.note ? [{ path: '(retrieval index)', reason: indexed.note }] : [];
        if (historyIndex?.note)
          skipped.push({ path: '(retrieval history index)', reason: historyNote(historyIndex, plan) });
        const deadline = searchDeadline(signal, opts.timeoutMs, skipped);
        const git = deps.git(ws.root, deadline.signal);
        const withPrefix = (args: string[]) => ws.gitArgs(args);
        const failed = (what: string) => (error: unknown) => {
          skipped.push({ path: `(retrieval ${what})`, reason: gitErrorReason(error) });
          return { hits: [] as GrepHit[], cut: false };
        };
        const search = async (
          patterns: string[],
          extra: {
            words: boolean;
            regex?: boolean;
            ignoreCase?: boolean;
            paths?: string[];
            perFile?: number;
            maxBytes?: number;
          },
        ) => {
          const request = { patterns, perFile: opts.perFile, maxBytes: opts.grepBytes, ...extra };
          // The index gives the same hits; a request it cannot narrow (or no ready index) goes to git grep.
          return deadline.inTime(Promise.resolve(indexed?.search?.(request) ?? grep(git, withPrefix, request)), {
            hits: [] as GrepHit[],
            cut: false,
          });
        };
        const none = Promise.resolve({ hits: [] as GrepHit[], cut: false });
        const base = wantHistory && plan.branch ? (comparedTo[0]?.ref ?? (await branchBaseOf(ws))) : undefined;
        // The history of a named thing: the commits of its definition, found by the name search below.
        const releases =
          wantHistory && !base && plan.releases
            ? await releaseHistory(git, withPrefix).catch(() => undefined)
            : undefined;
        const namedHistory =
          wantHistory && wantCode && !base && plan.historyPaths.length === 0 && plan.names.length > 0;
        const markerSearch =
          wantCode && plan.markers.spellings.length > 0
            ? markedSearch(search, plan.markers).catch(failed('markers'))
            : none;
        const relationShapes = wantCode ? relationPatterns([...new Set([...plan.names, ...stems])], relations) : [];
        const [
          byName,
          byString,
          byTask,
          byManifest,
          byWord,
          byFileName,
          status,
          recent,
          byEnv,
          byRelation,
          byLiteral,
          byVersion,
        ] = await Promise.all([
          wantCode ? search(plan.names, { words: true }).catch(failed('names')) : none,
          wantCode ? search(plan.strings, { words: false }).catch(failed('strings')) : none,
          wantCode && plan.taskWords.length > 0
            ? search(plan.taskWords, {
                words: true,
                ignoreCase: true,
                paths: TASK_PATHSPECS,
                // Task files are small and a CI file's steps many: the ranking, not the first lines, picks the step.
                perFile: TASK_LINES_PER_FILE,
              }).catch(failed('tasks'))
            : none,
          wantCode && plan.manifestWords.length > 0
            ? versionSearch(search, plan.manifestWords, MANIFEST_PATHSPECS).catch(failed('manifests'))
            : none,
          wantCode ? search(plan.looseWords, { words: true, ignoreCase: true }).catch(failed('words')) : none,
          wantCode && plan.looseWords.length > 0
            ? filesNamed(git, withPrefix, plan.looseWords).catch(() => new Map<string, string>())
            : Promise.resolve(new Map<string, string>()),
          wantCode
            ? deadline.inTime(
                ws.status().catch(() => undefined),
                undefined,
              )
            : Promise.resolve(undefined),
          wantHistory && !namedHistory && !releases
            ? recentOrIndexed(git, withPrefix, plan.historyPaths, base, historyIndex).catch((error: unknown) => {
                skipped.push({ path: '(retrieval history)', reason: gitErrorReason(error) });
                return undefined;
              })
            : Promise.resolve(undefined),
          wantCode && plan.envReads.length > 0
            ? search(plan.envReads, { words: false, regex: true, perFile: ENV_READS_PER_FILE }).catch(
                failed('environment reads'),
              )
            : none,
          relationShapes.length > 0
            ? search(relationShapes, { words: false, perFile: 8 }).catch(failed('relations'))
            : none,
          wantCode && plan.literals.length > 0
            ? search(plan.literals, { words: false }).catch(failed('literals'))
            : none,
          wantCode && plan.versions.length > 0
            ? search(plan.versions, { words: true }).catch(failed('versions'))
            : none,
        ]);
        // Semantic retrieval (--embed-model): the chunks nearest in meaning, beside the word searches' hits.
        const bySimilarity =
          wantCode && indexed?.semantic ? await deadline.inTime(indexed.semantic(input.question.text), []) : [];
        for (const [what, result] of [
          ['names', byName],
          ['strings', byString],
          ['words', byWord],
        ] as const) {
          if (result.cut)
            skipped.push({ path: `(retrieval ${what})`, reason: 'grep output over its limit; first part used' });
        }
        // Names the question means but the code spells otherwise (case, separators, a typo), and names said in
        // prose: a case-insensitive search for their pieces, then the identifiers on those lines compared.
        const missing = [
          ...plan.names.filter((name) => !byName.hits.some((hit) => hit.text.includes(name))),
          ...unspeltWords(plan.looseWords, byWord),
        ];
        const pieces = [...new Set([...missing.flatMap(spellingPatterns), ...prosePatterns(plan.proseWords)])].slice(
          0,
          32,
        );
        let resolved: ResolvedName[] = [];
        let byResolved = { hits: [] as GrepHit[], cut: false };
        if (wantCode && pieces.length > 0) {
          // Joined pieces (`asset_f`, `headerlink`) are rare; a lone part (`asset`, `form`) may fill the output
          // limit in a large repository before the file that defines the name: each gets its own search.
          const joined = pieces.filter((piece) => piece.includes('_') || piece.length >= 8);
          const single = pieces.filter((piece) => !joined.includes(piece));
          const bySpelling = (list: string[]) =>
            list.length === 0
              ? none
              : search(list, {
                  words: false,
                  ignoreCase: true,
                  // Every line of a file that spells a piece: the first few may all be other names (`MarkFlagRequired`).
                  perFile: 400,
                  maxBytes: opts.grepBytes,
                }).catch(failed('spellings'));
          const found = await Promise.all([bySpelling(joined), bySpelling(single)]);
          const candidates = { hits: found.flatMap((result) => result.hits) };
          const said = new Set(input.question.text.toLowerCase().match(/[a-z0-9]+/g) ?? []);
          resolved = [...nearestNames(missing, candidates.hits), ...proseNames(plan.proseWords, candidates.hits, said)];
          resolved = resolved.filter((r, i) => resolved.findIndex((o) => o.name === r.name) === i).slice(0, 6);
        }
        // A plain word the code defines ("which tests exercise logout", "who last changed sendfile") is that name,
        // when the prose names nothing: in a history question, the name whose definition's history is asked.
        const historyOfWord =
          wantHistory && plan.names.length === 0 && plan.historyPaths.length === 0 && !releases && !base;
        // "How do I run just the acknowledgements test": a plain word a test file defines is that test.
        const oneTest =
          hasIntent(input.question, 'tests') && plan.names.length === 0 && ONE_TEST.test(input.question.text);
        const defined = resolved.some((r) => r.from.startsWith('matched:'))
          ? []
          : plan.asksAboutCode || historyOfWord
            ? definedWords(plan.looseWords, byWord.hits)
            : oneTest
              ? definedWords(plan.looseWords, byWord.hits, true)
              : [];
        resolved = [...defined, ...resolved];
        // A guessed name that is one word of a name the prose resolved to ("the attribute invalid property name part"
        // → `attribute_invalid_property_name`, not `name`) is a piece of that name, not a name of its own.
        // Two words of the name besides kind nouns: "the json module" resolving to `json_module` keeps `json`.
        const proseMatched = resolved.filter(
          (r) =>
            r.from.startsWith('matched:') &&
            r.from
              .slice('matched:'.length)
              .split(',')
              .filter((word) => !isKindNoun(word.trim())).length >= 2,
        );
        const subsumed = new Set(
          plan.guessed.filter((name) =>
            proseMatched.some((r) => nameParts(r.name).some((part) => sameWord(part, name))),
          ),
        );
        const ownNames = plan.names.filter((name) => !subsumed.has(name));
        const nameHits =
          subsumed.size === 0
            ? byName.hits
            : byName.hits.filter((hit) => ownNames.some((name) => hit.text.includes(name)));
        if (wantCode && resolved.length > 0) {
          byResolved = await search(
            resolved.map((r) => r.name),
            { words: true },
          ).catch(failed('resolved names'));
        }
        const items: ContextItem[] = [];
        const definitions =
          namedHistory || (historyOfWord && defined.length > 0)
            ? definitionsOf([...ownNames, ...resolved.map((r) => r.name)], [...nameHits, ...byResolved.hits])
            : [];
        const ofDefinitions =
          definitions.length > 0
            ? await definitionHistory(git, withPrefix, definitions).catch((error: unknown) => {
                skipped.push({ path: '(retrieval history)', reason: gitErrorReason(error) });
                return '';
              })
            : '';
        // No definition found (or git could not follow it): the recent history, as for any history question.
        const fallback =
          namedHistory && ofDefinitions === ''
            ? await recentHistory(git, withPrefix, []).catch(() => undefined)
            : undefined;
        if (releases) {
          items.push({
            key: 'retrieval.history',
            source: 'retrieval',
            title: `commits between ${releases.previous} and ${releases.newest}`,
            text: releases.text,
            priority: 70,
            kind: 'text',
            why: 'asked about releases: the two newest tags',
          });
        }
        if (ofDefinitions !== '') {
          const names = [...new Set(definitions.map((d) => d.name))].join(', ');
          items.push({
            key: 'retrieval.history',
            source: 'retrieval',
            title: `history of ${names}`,
            text: ofDefinitions,
            priority: 70,
            kind: 'text',
            why: `asked about the history of ${names}`,
          });
        }
        // A definition's history answers the question; the recent commits were only read in case none was found.
        const history = ofDefinitions !== '' ? undefined : (recent ?? fallback);
        if (history?.log) {
          const label = history.branch ? "the branch's changes" : "last commit's changes";
          const text = history.patch ? `${history.log}\n\n${label}:\n${history.patch}` : history.log;
          const named = plan.historyPaths.length > 0;
          items.push({
            key: 'retrieval.history',
            source: 'retrieval',
            title: history.branch
              ? `commits of the branch since ${base}`
              : named
                ? 'recent commits of the named files'
                : 'recent commits',
            text,
            priority: 70,
            kind: 'text',
            why: history.branch
              ? `asked about the branch against ${base}`
              : named
                ? 'history of the named files'
                : 'asked about history: last commit',
          });
        }
        // After the history items git gives (a definition's last change, the file's log): under the mode's cap for
        // history they keep their room, and the commits whose changes touch the name take what is left.
        const changes =
          (await indexedChanges(git, withPrefix, historyIndex, {
            names: [...ownNames, ...resolved.map((r) => r.name)],
            strings: plan.strings,
            text: input.question.text,
          })) ??
          // The history index not built yet (a fresh workspace, a long history): a pasted line's commits in the
          // named files are one bounded `git log -S` each, not a gap until the index is ready.
          (wantHistory && !historyIndex?.lookup
            ? await deadline.inTime(pickaxeChanges(git, withPrefix, input.question.text, plan.historyPaths), undefined)
            : undefined);
        if (changes) items.push(changes.item);
        // "When was cli.py first added, and by whom": the commit that brought the file in, which the recent commits
        // of a file with a long history do not reach.
        const origin =
          wantHistory && !changes?.ofLine && plan.historyPaths.length > 0 && ASKS_ORIGIN.test(input.question.text)
            ? await deadline.inTime(
                originHistory(git, withPrefix, plan.historyPaths).catch(() => ''),
                '',
              )
            : '';
        if (origin !== '') {
          items.push({
            key: 'retrieval.history.origin',
            source: 'retrieval',
            title: 'the commit that added the named files',
            text: origin,
            priority: 72,
            kind: 'text',
            why: 'asked when or by whom the named files were added',
          });
        }
        // "Which commit introduced this line": the commit that changed it answers, the current code around the
        // line's names does not (the file, when named, is sent by the files source).
        if (changes?.ofLine && wantCode)
          skipped.push({ path: 'retrieval.code', reason: 'the commit that changed the pasted line answers' });
        if (wantCode && !changes?.ofLine) {
          // A word the code defines is asked about as that name: files merely named like it are not the answer.
          const byRole =
            roles.length > 0
              ? await deadline.inTime(
                  roleFiles(git, withPrefix, roles, input.question.text, roleReader(ws.root, deps)).catch(
                    () => new Map<string, RoleFile>(),
                  ),
                  new Map<string, RoleFile>(),
                )
              : new Map<string, RoleFile>();
          const heads =
            defined.length > 0
              ? new Map<string, string>()
              : new Map([...[...byRole].map(([rel, role]) => [rel, role.why] as const), ...byFileName]);
          const subjects = versionSubjects(plan.manifestWords);
          const context: RankContext = {
            names: [...ownNames, ...resolved.map((r) => r.name)],
            qualified: plan.qualified,
            strings: plan.strings,
            intents: input.question.intents,
            changed: new Set(status?.changedFiles ?? []),
            heads,
            headLines: new Map([...byRole].map(([rel, role]) => [rel, role.lines])),
            headFocus: new Map([...byRole].flatMap(([rel, role]) => (role.focus ? [[rel, role.focus] as const] : []))),
            relations,
            packages: plan.manifestWords,
            subjects,
            versions: plan.versions,
          };
          // A name found from the prose is what the loose words were a guess at; the environment reads' listing is
          // what "which environment variables" asks for, the words' hits (`environment`, `variables`) only noise.
          // A version question whose package's manifest line was found is answered: the word's other hits are noise.
          const declared = byManifest.hits.some(
            (hit) => declaresPackage(plan.manifestWords)(hit.text, undefined) || statesVersionOf(subjects)(hit.text),
          );
          const proseFound =
            resolved.some((r) => r.from.startsWith('matched:')) ||
            defined.length > 0 ||
            declared ||
            byEnv.hits.some((hit) => readsEnvironment(hit.text));
          const hits = [
            ...nameHits,
            ...byResolved.hits,
            ...byString.hits,
            ...byLiteral.hits,
            ...byVersion.hits,
            // A word that names code makes the question about that code, not about how tasks run (unless it is
            // the one test to run).
            // So does a name the prose says outright ("the run all tests part"), once found.
            ...((defined.length > 0 || (plan.proseNamed && resolved.some((r) => r.from.startsWith('matched:')))) &&
            !oneTest
              ? []
              : byTask.hits),
            ...byManifest.hits,
            ...byRelation.hits,
            ...(proseFound ? [] : byWord.hits),
            ...bySimilarity,
            ...[...heads.keys()].map((rel) => ({ rel, line: 1, text: '' })),
          ];
          const from = new Map(resolved.map((r) => [r.name, r.from]));
          // Asked who imports, extends, makes or handles it: every such line, one per file first, answers in
          // fewer tokens than the regions of the few files the depth sends; the regions get the room left.
          // Asked who calls or uses it, or which tests exercise it: the same listing, of the lines that use it.
          const relationNames = [...new Set([...context.names, ...stems])];
          const stored = relations ? storedRelations(indexed, relationNames, relations) : undefined;
          const relationHits = [...(stored?.hits ?? []), ...byRelation.hits, ...nameHits, ...byResolved.hits];
          const listingRoom = Math.min(depth.totalChars / 2, RELATION_LISTING_CHARS);
          const used = relations ? undefined : usedLines(indexed, context.names, input.question.text, relationHits);
          const listed = relations
            ? {
                hits: relationHits,
                rank: withImportForms(
                  stored?.rank(relationRank(relationNames, relations)) ?? relationRank(relationNames, relations),
                  relations.imports ? continuedImports(ws.root, relationHits, relationNames, deps) : undefined,
                ),
              }
            : used;
          const listingOf = (shown: (hit: GrepHit) => boolean) =>
            listed && relationListing(listed.hits.filter(shown), listed.rank, deps, listingRoom);
          const marked = markedListing((await markerSearch).hits, plan.markers, deps, markedRoom(depth));
          const listedChars = [listingOf(() => true), marked].reduce((sum, item) => sum + (item?.text.length ?? 0), 0);
          const room = { ...depth, totalChars: depth.totalChars - listedChars };
          const regions = codeItems(ws.root, hits, context, room, deps, skipped, from);
          // Each line reaches the model once: a use a region already shows is left out of the uses listing.
          const related = listingOf(relations ? () => true : notInRegions(regions));
          if (related) items.push(related);
          if (marked) items.push(marked);
          items.push(...regions);
          // A name or string written nowhere but in build output (a bundle's helper, a map's sourcesContent): cuts
          // of the skipped files, said to be build output, rather than nothing.
          const onlyBuilt = builtOnlyTerms(plan, ownNames, resolved, { byName, byString, byRelation });
          if (onlyBuilt.length > 0) {
            const guard = new FileGuard(deps.isNeverRead);
            const zone = workspaceZone(ws.root, deps.allowedRoots);
            const read = (rel: string, maxBytes: number) =>
              deps.isNeverRead(rel) ? undefined : guard.read(path.join(ws.root, rel), zone, [rel], { maxBytes }).text;
            const built = await deadline.inTime(
              buildOutputItems(git, withPrefix, onlyBuilt, read).catch((error: unknown) => {
                skipped.push({ path: '(retrieval build output)', reason: gitErrorReason(error) });
                return [] as ContextItem[];
              }),
              [] as ContextItem[],
            );
            items.push(...built);
            // Written as code but found nowhere, not even in build output: perhaps misspelt; its nearest spelling
            // there (the sources had none).
            const unfound = onlyBuilt.filter((term) => term.word).map((term) => term.text);
            if (built.length === 0 && unfound.length > 0) {
              const spelt = await deadline.inTime(
                grep(git, withPrefix, {
                  patterns: [...new Set(unfound.flatMap(spellingPatterns))].slice(0, 32),
                  words: false,
                  ignoreCase: true,
                  perFile: 400,
                  maxBytes: opts.grepBytes,
                  buildOutput: true,
                }).catch(failed('build output spellings')),
                { hits: [] as GrepHit[], cut: false },
              );
              const near = nearestNames(unfound, spelt.hits, 1).map((r) => ({ text: r.name, word: true }));
              if (near.length > 0)
                items.push(
                  ...(await deadline.inTime(
                    buildOutputItems(git, withPrefix, near, read).catch(() => [] as ContextItem[]),
                    [] as ContextItem[],
                  )),
                );
            }
          }
          const reads = readListing(byEnv.hits, deps, Math.min(depth.totalChars, ENV_LISTING_CHARS));
          if (reads) items.push(reads);
          const byWords =
            plan.listing && !proseFound
              ? wordListing(byWord.hits, deps, Math.min(depth.totalChars / 2, ENV_LISTING_CHARS))
              : undefined;
          if (byWords) items.push(byWords);
        }
        deadline.done();
        return { items, skipped };
      },
      // An answer cut by the deadline is what a busy machine allowed this time, not what the repository holds.
      (answer) => !answer.skipped.some((skip) => skip.reason === LATE_REASON),
    );
  });
}

/** Time kept after the searches for ranking, reading and rendering, within the source's own limit. */
const RANKING_RESERVE_MS = 1_000;

/** Terms searched in build output: at most this many. */
const BUILT_ONLY_TERMS = 3;

/**
 * The names written as code (not guessed from prose) and the quoted strings no normal file holds: no hit at all,
 * or hits only in files the regions refuse (generated by name). Not a name the sources spell otherwise, nor any
 * name when the prose resolved to one or the name search was cut (a hit may have been past the cut).
 */
function builtOnlyTerms(
  plan: SearchPlan,
  ownNames: readonly string[],
  resolved: readonly ResolvedName[],
  found: Record<'byName' | 'byString' | 'byRelation', { hits: readonly GrepHit[]; cut: boolean }>,
): BuildOutputTerm[] {
  // A name the sources spell otherwise (case, a typo) was found there; a name resolved from prose answers instead.
  const respelt = new Set(resolved.map((r) => r.from.replace(/^nearest to /, '')));
  const fromProse = resolved.some((r) => r.from.startsWith('matched:'));
  const inSources = (hits: readonly GrepHit[], term: string) =>
    hits.some((hit) => buildOutputReason(hit.rel) === undefined && hit.text.includes(term));
  const names =
    found.byName.cut || fromProse
      ? []
      : ownNames.filter(
          (name) =>
            !plan.guessed.includes(name) &&
            !respelt.has(name) &&
            !inSources([...found.byName.hits, ...found.byRelation.hits], name),
        );
  const strings = found.byString.cut ? [] : plan.strings.filter((text) => !inSources(found.byString.hits, text));
  return [...names.map((text) => ({ text, word: true })), ...strings.map((text) => ({ text, word: false }))].slice(
    0,
    BUILT_ONLY_TERMS,
  );
}

const LATE_REASON = 'searches still running at the retrieval deadline were stopped; answered with what was found';

/**
 * A deadline for the searches, ahead of the source's own limit: git still running then is stopped and a search
 * still waiting is answered as empty, so a large repository on a busy machine gets what the finished searches
 * found instead of nothing at all (the source's limit drops the whole answer). The snapshot says so.
 */
function searchDeadline(parent: AbortSignal, limitMs: number, skipped: SkippedPath[]) {
  const cutoff = new AbortController();
  const timer = setTimeout(
    () => {
      skipped.push({ path: '(retrieval)', reason: LATE_REASON });
      cutoff.abort();
    },
    Math.max(limitMs / 2, limitMs - RANKING_RESERVE_MS),
  );
  timer.unref?.();
  const inTime = <T>(work: Promise<T>, fallback: T): Promise<T> => {
    if (cutoff.signal.aborted) {
      // Started after the deadline: its git is stopped at once, and its failure is nobody's to handle.
      work.catch(() => undefined);
      return Promise.resolve(fallback);
    }
    return new Promise<T>((resolve, reject) => {
      const late = () => resolve(fallback);
      cutoff.signal.addEventListener('abort', late, { once: true });
      work.then(
        (value) => {
          cutoff.signal.removeEventListener('abort', late);
          resolve(value);
        },
        (error: unknown) => {
          cutoff.signal.removeEventListener('abort', late);
          reject(error);
        },
      );
    });
  };
  return { signal: AbortSignal.any([parent, cutoff.signal]), inTime, done: () => clearTimeout(timer) };
}

/**
 * The recent commits of the named files from the history index when it is current for HEAD (no walk of a
 * long history), else (the branch's commits, a file older than the index's bound, no index) from git log.
 */
async function recentOrIndexed(
  git: GitRunner,
  withPrefix: (args: string[]) => string[],
  paths: readonly string[],
  base: string | undefined,
  history: HistoryAnswer | undefined,
): ReturnType<typeof recentHistory> {
  if (history?.lookup && !base && paths.length > 0) {
    const indexed = await fileHistory(git, withPrefix, history.lookup, paths, defaultHistoryLimits);
    if (indexed) return indexed;
  }
  return recentHistory(git, withPrefix, paths, undefined, base);
}

/** Commits whose changes touch what the history question names, when the history index is current. */
async function indexedChanges(
  git: GitRunner,
  withPrefix: (args: string[]) => string[],
  history: HistoryAnswer | undefined,
  ask: { names: string[]; strings: string[]; text: string },
): Promise<{ item: ContextItem; ofLine: boolean } | undefined> {
  if (!history?.lookup) return undefined;
  const names = [...new Set(ask.names)].slice(0, 6);
  // A pasted line of code ("which commit introduced `x = a/b`") is what was changed, whatever the analysis
  // took its slashes for (a path): a backticked span with a space is never one.
  const pasted = pastedLines(ask.text);
  const strings = [...new Set(ask.strings)].filter((s) => !pasted.includes(s)).slice(0, 4 - pasted.length);
  if (names.length + strings.length + pasted.length === 0) return undefined;
  const found = await changesOf(
    git,
    withPrefix,
    history.lookup,
    { names, strings, lines: pasted, side: askedSide(ask.text) },
    CHANGES_LIMITS,
  ).catch(() => ({ text: '', ofLine: false }));
  if (found.text === '') return undefined;
  const what = found.ofLine
    ? pasted.map((s) => `"${s.slice(0, 40)}"`).join(', ')
    : [...names, ...[...strings, ...pasted].map((s) => `"${s.slice(0, 40)}"`)].slice(0, 3).join(', ');
  const item: ContextItem = {
    // Its own key: items of one key are one item to the pipeline (the higher priority kept), and this one
    // goes beside the file's log or the definition's last change, not instead of them.
    key: 'retrieval.history.changes',
    source: 'retrieval',
    title: `commits whose changes touch ${what}`,
    text: found.text,
    // The commit that changed a pasted line is the answer itself, above the file's log under the history cap;
    // commits found by a name only fill the room the log and the definition's last change leave.
    priority: found.ofLine ? 80 : 60,
    kind: 'text',
    why: `asked about the history of ${what}: indexed commits whose changed lines hold it first`,
  };
  return { item, ofLine: found.ofLine };
}

/** The commits that added or removed the question's pasted lines in its named files (`git log -S`). */
async function pickaxeChanges(
  git: GitRunner,
  withPrefix: (args: string[]) => string[],
  text: string,
  paths: readonly string[],
): Promise<{ item: ContextItem; ofLine: boolean } | undefined> {
  const pasted = pastedLines(text);
  if (pasted.length === 0 || paths.length === 0) return undefined;
  const found = await pickaxeHistory(git, withPrefix, pasted, paths).catch(() => '');
  if (found === '') return undefined;
  const what = pasted.map((s) => `"${s.slice(0, 40)}"`).join(', ');
  const item: ContextItem = {
    key: 'retrieval.history.changes',
    source: 'retrieval',
    title: `commits that added or removed ${what}`,
    text: found,
    priority: 80,
    kind: 'text',
    why: `asked which commit changed ${what}: git log -S in the named files (history index not ready)`,
  };
  return { item, ofLine: true };
}

/** Commits shown for "which commit changed X", and the characters they take at most. */
const CHANGES_LIMITS = { commits: 3, maxChars: 1_500 };

/** What a history question missed while the history index was not current: git log answered instead. */
function historyNote(history: HistoryAnswer, plan: SearchPlan): string {
  const named = plan.names.length + plan.strings.length > 0;
  return `${history.note}; history read with git log${named ? ', commits that changed the named things not searched' : ''}`;
}

/** Definitions followed for history, at most (each is one bounded `git log -L`). */
const MAX_DEFINITIONS = 2;

/** Where the named things are defined, from the name hits: code before tests, one place per name first. */
function definitionsOf(names: readonly string[], hits: readonly GrepHit[]): DefinitionAt[] {
  const defines = definitionTest(names);
  const found = hits
    .map((hit) => ({ hit, name: defines(hit.text) }))
    .filter((d): d is { hit: GrepHit; name: string } => d.name !== undefined);
  // The code's own definition first: a test's, then a document's example (`def handle_error(...)` in an .rst)
  // define the name only for show.
  const aside = (rel: string) => (DOC_PATH.test(rel) ? 2 : isTestPath(rel) ? 1 : 0);
  found.sort((a, b) => aside(a.hit.rel) - aside(b.hit.rel));
  const out: DefinitionAt[] = [];
  // One place per name first; then a name defined in a second file (a function and a method of that name) is
  // followed there too: which one the conversation meant is not known, and each is one bounded git call.
  for (const second of [false, true]) {
    for (const { hit, name } of found) {
      if (out.length >= MAX_DEFINITIONS) break;
      const known = out.filter((d) => d.name === name);
      if (second ? known.length !== 1 || known[0]?.rel === hit.rel || aside(hit.rel) > 0 : known.length > 0) continue;
      out.push({ name, rel: hit.rel.split(path.sep).join('/'), line: hit.line });
    }
  }
  return out;
}

/** The question's tokens (paths, names) that name a ref of the repository, with the ref as git takes it. */
async function refsNamed(
  ws: Parameters<Parameters<typeof defineSource>[2]>[0]['ws'],
  question: Question,
): Promise<{ token: string; ref: string }[]> {
  const { repo } = await ws.checkedGit();
  if (!repo) return [];
  const tokens = [...subjectPaths(question).map((named) => named.token), ...question.identifiers.map((id) => id.term)];
  return namedRefs(repo, [...new Set(tokens)].slice(0, 16));
}

/** The plan without the tokens that name refs: they are neither files to follow nor names to search. */
function withoutRefs(plan: SearchPlan, refs: readonly { token: string }[]): SearchPlan {
  const tokens = new Set(refs.map((r) => r.token));
  const globs = new Set(refs.flatMap((r) => [`:(glob)**/${r.token}`, `:(literal)${r.token}`]));
  return {
    ...plan,
    names: plan.names.filter((name) => !tokens.has(name)),
    guessed: plan.guessed.filter((name) => !tokens.has(name)),
    historyPaths: plan.historyPaths.filter((spec) => !globs.has(spec)),
  };
}

async function branchBaseOf(ws: Parameters<Parameters<typeof defineSource>[2]>[0]['ws']): Promise<string | undefined> {
  const { repo } = await ws.checkedGit();
  if (!repo) return undefined;
  const headRef = readHeadRef(repo);
  const unborn = headRef !== undefined && !refExists(repo, headRef);
  return branchBase(repo, headRef, unborn);
}

/** Files listed at most when matching the question's words against file names. */
const NAME_LIST_BYTES = 64 * 1024;

/**
 * Files whose name is one of the question's words ("the license" → LICENSE,
 * "the rate limiter" → rate_limiter.py): their head answers what a grep of
 * the word drowns in. Tracked and untracked-not-ignored files, listed up to a
 * byte limit; the shallowest first.
 */
async function filesNamed(
  git: GitRunner,
  withPrefix: (args: string[]) => string[],
  words: readonly string[],
): Promise<Map<string, string>> {
  const safe = words.filter((word) => /^[a-z][a-z0-9-]{3,}$/.test(word)).slice(0, 4);
  if (safe.length === 0) return new Map();
  const args = ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--'];
  for (const word of safe) args.push(`:(icase,glob)**/*${word}*`);
  args.push(NOT_PROXY_OWN);
  const { text } = await readPrefix(git, withPrefix(args), NAME_LIST_BYTES, '\0');
  const scored: { rel: string; score: number; matched: string[] }[] = [];
  for (const rel of new Set(text.split('\0'))) {
    if (rel === '') continue;
    const parts = nameParts(path.posix.basename(rel).replace(/\.[^.]*$/, ''));
    const matched = safe.filter((word) => parts.some((part) => sameWord(part, word)));
    // The whole name is a word of the question, or two of its words are.
    const whole = parts.length === 1 && matched.length === 1;
    if (!whole && matched.length < 2) continue;
    scored.push({ rel, score: matched.length * 10 - rel.split('/').length, matched });
  }
  scored.sort((a, b) => b.score - a.score || a.rel.length - b.rel.length || a.rel.localeCompare(b.rel));
  return new Map(scored.slice(0, 2).map(({ rel, matched }) => [rel, `file name matches: ${matched.join(', ')}`]));
}

/** Loose words looked at as a misspelt name, at most: a short question about one thing ("what does onabrted do?"). */
const MAX_UNSPELT_WORDS = 2;

/**
 * The question's plain words that the repository never spells (its whole-word search found no line), in a
 * short question that names nothing else: most likely a name with a typo, resolved like a misspelt identifier.
 * Not when the search was cut (the word may be past the cut).
 */
function unspeltWords(words: readonly string[], found: { hits: readonly GrepHit[]; cut: boolean }): string[] {
  if (words.length === 0 || words.length > MAX_UNSPELT_WORDS || found.cut) return [];
  return words.filter(
    (word) => word.length >= 6 && !found.hits.some((hit) => hit.text.toLowerCase().includes(word.toLowerCase())),
  );
}

/** A plain word of the question that a code line defines (`def logout():` for "logout"), as the code spells it. */
function definedWords(words: readonly string[], hits: readonly GrepHit[], inTests = false): ResolvedName[] {
  const out: ResolvedName[] = [];
  for (const word of words) {
    if (word.length < 4) continue;
    const spelled = new RegExp(`(?<![\\w$])${word.replace(/[^\w]/g, '')}(?![\\w$])`, 'i');
    for (const hit of hits) {
      // The code's definitions, or with `inTests` a test file's (a test's name).
      if (isTestPath(hit.rel) !== inTests || DOC_PATH.test(hit.rel)) continue;
      const name = spelled.exec(hit.text)?.[0];
      if (name && definitionTest([name])(hit.text) === name) {
        out.push({ name, from: `defined in the code: ${word}` });
        break;
      }
    }
  }
  // One word the code defines is the subject; several are more likely prose that code also spells.
  return out.length === 1 ? out : [];
}

/**
 * The relation's lines the symbol index stored (storedUses.ts), to go before the fixed-string shapes' hits:
 * imports as tree-sitter saw them (a name on its own line inside `from x import (…)` or a `use a::{…}` block,
 * which no one-line shape spells), calls for constructions, type uses for subtypes. A stored import ranks
 * as an import whatever its line looks like; the other kinds are candidates the shapes' ranking still judges.
 */
function storedRelations(
  indexed: IndexAnswer | undefined,
  names: readonly string[],
  relations: Relations,
): { hits: GrepHit[]; rank: (base: (line: string) => number) => (line: string) => number } | undefined {
  if (!indexed?.uses) return undefined;
  const kinds: ReferenceKind[] = [];
  if (relations.imports) kinds.push('import');
  if (relations.constructs) kinds.push('call');
  if (relations.subtypes) kinds.push('type');
  const simple = names.filter((name) => /^[A-Za-z_$][\w$]{2,}$/.test(name)).slice(0, 3);
  if (kinds.length === 0 || simple.length === 0) return undefined;
  const hits = indexed.uses(simple, kinds);
  const imports = new Set(hits.filter((hit) => hit.kind === 'import').map((hit) => hit.text));
  return { hits, rank: (base) => (line) => Math.max(base(line), imports.has(line) ? 1 : 0) };
}

/** Whether a hit's line is not already among the lines of its file's region (compared without indentation). */
function notInRegions(regions: readonly ContextItem[]): (hit: GrepHit) => boolean {
  const shown = new Map<string, Set<string>>();
  for (const item of regions) {
    if (!item.path) continue;
    const lines = shown.get(item.path) ?? new Set<string>();
    for (const line of item.text.split('\n')) lines.add(line.trim());
    shown.set(item.path, lines);
  }
  return (hit) => !shown.get(hit.rel.split(path.sep).join('/'))?.has(hit.text.trim());
}

/** A line inside an import written over several lines (importForms.ts) ranks as the import it is. */
function withImportForms(
  rank: (line: string) => number,
  continued: ReadonlyMap<string, number> | undefined,
): (line: string) => number {
  return continued && continued.size > 0 ? (line) => Math.max(rank(line), continued.get(line) ?? 0) : rank;
}

/** What a uses question's listing holds: the stored uses of the names (calls, types, plain) and their hits. */
function usedLines(
  indexed: IndexAnswer | undefined,
  names: readonly string[],
  text: string,
  hits: readonly GrepHit[],
): ReturnType<typeof usesOf> | undefined {
  const asked = askedUses(text);
  if (!asked) return undefined;
  const simple = names.filter((name) => /^[A-Za-z_$][\w$]{2,}$/.test(name)).slice(0, 3);
  const stored = simple.length > 0 ? (indexed?.uses?.(simple, ['call', 'use', 'type']) ?? []) : [];
  return usesOf(asked, names, stored, hits);
}

/** Characters of a relation's listing, at most (and half the mode's total, whichever is smaller). */
const RELATION_LISTING_CHARS = 2_400;

/** Lines of a relation listed per file, at most. */
const RELATION_LINES_PER_FILE = 3;

/**
 * The lines that relate to the name as asked (imports, subtypes, constructions, handlers), `path:line: text`:
 * one per file first (the project's own module's importers, then code before tests and docs), then the files'
 * further lines. Two files at least, or the regions say it as well.
 */
function relationListing(
  hits: readonly GrepHit[],
  rank: (line: string) => number,
  deps: Pick<SourceDeps, 'isNeverRead'>,
  maxChars: number,
): ContextItem | undefined {
  const byFile = new Map<string, { hit: GrepHit; rank: number }[]>();
  for (const hit of hits) {
    const rel = hit.rel.split(path.sep).join('/');
    const score = rank(hit.text);
    // Prose in the docs says "use" and "import" too; the files that import are code.
    if (score === 0 || DOC_PATH.test(rel) || deps.isNeverRead(rel) || refusedByName(rel)) continue;
    const list = byFile.get(rel) ?? [];
    if (!list.some((known) => known.hit.line === hit.line)) list.push({ hit, rank: score });
    byFile.set(rel, list);
  }
  if (byFile.size < 2) return undefined;
  const best = (rel: string) => Math.max(...(byFile.get(rel) ?? []).map((x) => x.rank));
  const aside = (rel: string) => Number(isTestPath(rel) || DOC_PATH.test(rel));
  const files = [...byFile.keys()].sort((a, b) => best(b) - best(a) || aside(a) - aside(b) || a.localeCompare(b));
  for (const list of byFile.values()) list.sort((a, b) => b.rank - a.rank || a.hit.line - b.hit.line);
  const { lines, cut } = oneLinePerFileFirst(
    files,
    (rel, round) => byFile.get(rel)?.[round]?.hit,
    RELATION_LINES_PER_FILE,
    maxChars,
  );
  return {
    key: 'retrieval.code.(related lines)',
    source: 'retrieval',
    title: `lines relating to the name in ${files.length} files`,
    text: lines.join('\n'),
    priority: 80,
    kind: 'text',
    why: 'asked how other code relates to the name: every such line, one per file first',
    ...(cut ? { truncated: true } : {}),
  };
}

/** Characters of the environment-read listing, at most (before the mode's total, whichever is smaller). */
const ENV_LISTING_CHARS = 3_000;

/**
 * Every environment read found, one compact line each (`path:line: text`): a question about all of them is
 * answered by a list, not by the regions of the few files the depth sends. One line per file first (code before
 * tests and docs), then the files' further reads, until the room is used.
 */
function readListing(
  hits: readonly GrepHit[],
  deps: Pick<SourceDeps, 'isNeverRead'>,
  maxChars: number,
): ContextItem | undefined {
  const byFile = hitsByFile(
    hits,
    (rel, hit) => !deps.isNeverRead(rel) && !refusedByName(rel) && readsEnvironment(hit.text),
  );
  const files = [...byFile.keys()].sort((a, b) => asideRank(a) - asideRank(b) || a.localeCompare(b));
  const { lines, cut } = oneLinePerFileFirst(
    files,
    (rel, round) => byFile.get(rel)?.[round],
    ENV_READS_PER_FILE,
    maxChars,
  );
  if (lines.length === 0) return undefined;
  return {
    key: 'retrieval.code.(environment reads)',
    source: 'retrieval',
    title: `environment reads in ${files.length} files`,
    text: lines.join('\n'),
    priority: 80,
    kind: 'text',
    why: 'asked which environment variables are read: every read, one line each',
    ...(cut ? { truncated: true } : {}),
  };
}

/**
 * Every line the question's words found, one compact line each, one per file first (code before tests and docs):
 * a question asking for a list ("which TODOs are left") is answered by the list, not by the few files' regions.
 */
function wordListing(
  hits: readonly GrepHit[],
  deps: Pick<SourceDeps, 'isNeverRead'>,
  maxChars: number,
): ContextItem | undefined {
  const byFile = hitsByFile(hits, (rel) => !deps.isNeverRead(rel) && !refusedByName(rel));
  if (byFile.size < 2) return undefined;
  const files = [...byFile.keys()].sort((a, b) => asideRank(a) - asideRank(b) || a.localeCompare(b));
  const { lines, cut } = oneLinePerFileFirst(
    files,
    (rel, round) => byFile.get(rel)?.[round],
    LISTED_PER_FILE,
    maxChars,
  );
  return {
    key: 'retrieval.code.(listed lines)',
    source: 'retrieval',
    title: `lines matching the question's words in ${files.length} files`,
    text: lines.join('\n'),
    priority: 75,
    kind: 'text',
    why: 'asked for a list: every matching line, one per file first',
    ...(cut ? { truncated: true } : {}),
  };
}

/** Lines listed per file when a list is asked for. */
const LISTED_PER_FILE = 3;

/** Lines a marker search keeps per file: more than are listed, as a spelling's hit may fail its word boundary. */
const MARKED_SEARCHED_PER_FILE = 12;

/**
 * The marked lines: the spellings the question wrote searched apart from the others of their marker, so that a
 * file's many `XXX` lines do not fill its per-file limit before its `TODO`s.
 */
async function markedSearch(
  search: (
    patterns: string[],
    extra: { words: boolean; perFile?: number },
  ) => Promise<{ hits: GrepHit[]; cut: boolean }>,
  markers: SearchPlan['markers'],
): Promise<{ hits: GrepHit[]; cut: boolean }> {
  const others = markers.spellings.filter((spelling) => !markers.said.includes(spelling));
  const groups = markers.said.length > 0 && others.length > 0 ? [markers.said, others] : [markers.spellings];
  const found = await Promise.all(
    groups.map((patterns) => search(patterns, { words: false, perFile: MARKED_SEARCHED_PER_FILE })),
  );
  return { hits: found.flatMap((result) => result.hits), cut: found.some((result) => result.cut) };
}

/** Stands for a marked line whose text was listed in full above. */
const SAME_MARK = '(the same line as listed above)';

/** Characters of the marked lines' listing, at most. */
const MARKED_LISTING_CHARS = 4_000;

/**
 * The marked lines are the answer; the loose words' regions ("deprecated", "codebase") a guess beside them: the
 * listing takes up to four fifths of the mode's room, the regions what it leaves.
 */
function markedRoom(depth: RetrievalDepth): number {
  return Math.min((depth.totalChars * 4) / 5, MARKED_LISTING_CHARS);
}

/**
 * Every line carrying an asked marker (`@deprecated`, `[Obsolete`, `// TODO`, `t.Skip(`), one compact line each,
 * one per file first (code before tests and docs, then the files' further lines): what is deprecated or left to
 * do is the list of those lines, whether or not the question says "list".
 */
function markedListing(
  hits: readonly GrepHit[],
  markers: SearchPlan['markers'],
  deps: Pick<SourceDeps, 'isNeverRead'>,
  maxChars: number,
): ContextItem | undefined {
  const byFile = hitsByFile(
    hits,
    (rel, hit) => !deps.isNeverRead(rel) && !refusedByName(rel) && marks(hit.text, markers.spellings),
  );
  if (byFile.size === 0) return undefined;
  // The files with the most marked lines first: where the room runs out, the fewest marked lines are left out.
  const count = (rel: string) => byFile.get(rel)?.length ?? 0;
  // The spellings the question wrote (TODO and FIXME, not the XXX beside them) first, in each file and across them.
  const said = (hit: GrepHit) => (markers.said.length > 0 && marks(hit.text, markers.said) ? 0 : 1);
  const saidIn = (rel: string) => Math.min(...(byFile.get(rel) ?? []).map(said));
  const files = [...byFile.keys()].sort(
    (a, b) => asideRank(a) - asideRank(b) || saidIn(a) - saidIn(b) || count(b) - count(a) || a.localeCompare(b),
  );
  for (const list of byFile.values()) list.sort((a, b) => said(a) - said(b) || a.line - b.line);
  // The same mark copied across files ("moved to its own package" on twelve classes) is said once in full; its
  // other places are listed by path and line, so that the room holds more of the distinct marks.
  const { lines, cut } = oneLinePerFileFirst(
    files,
    (rel, round) => byFile.get(rel)?.[round],
    LISTED_PER_FILE,
    maxChars,
    SAME_MARK,
  );
  const what = markers.ids.join(', ');
  return {
    key: 'retrieval.code.(marked lines)',
    source: 'retrieval',
    title: `lines marked ${what} in ${files.length} files`,
    text: lines.join('\n'),
    priority: 80,
    kind: 'text',
    why: `asked about code marked ${what}: every marked line, one per file first`,
    ...(cut ? { truncated: true } : {}),
  };
}

/** The best files' regions, one item per file, best first. */
function codeItems(
  root: string,
  hits: readonly GrepHit[],
  context: RankContext,
  depth: RetrievalDepth,
  deps: SourceDeps,
  skipped: SkippedPath[],
  resolvedFrom: ReadonlyMap<string, string> = new Map(),
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
    // A file asked for by its role is sent by its head: a huge one (a changelog of twenty years) is read bounded.
    const got = readForRegions(guard, zone, root, rel, context.headLines?.has(rel) === true);
    if (!('text' in got)) {
      if ('skip' in got) skipped.push({ path: rel, reason: got.skip });
      continue;
    }
    const lines = got.text.split('\n');
    // A head cut at the bound ends in a part of a line, and hits past it have no line to show.
    if (got.cut) lines.pop();
    const shown = got.cut ? list.filter((hit) => hit.line <= lines.length) : list;
    ranked.push({ file: fileRegions(rel, lines, shown, context), lines });
  }
  ranked.sort((a, b) => b.file.score - a.file.score || a.file.rel.localeCompare(b.file.rel));
  const items: ContextItem[] = [];
  let total = 0;
  // A file far below the best answers less than it costs: a license header beside the LICENSE, a help page
  // beside the function and its test.
  const floor = (ranked[0]?.file.score ?? 0) * WEAK_FILE_RATIO;
  for (const { file, lines } of ranked.slice(0, depth.files)) {
    if (file.score < floor) break;
    const room = Math.min(depth.fileChars, depth.totalChars - total);
    if (room < 200) break;
    const rendered = renderRegions(lines, file.regions, room);
    total += rendered.text.length;
    const best = [...file.regions].sort((a, b) => b.score - a.score)[0];
    const resolvedName = [...resolvedFrom.keys()].find((name) => best?.why.endsWith(` ${name}`));
    const why = best ? `${best.why}${resolvedName ? ` (${resolvedFrom.get(resolvedName)})` : ''}` : undefined;
    items.push({
      key: `retrieval.code.${file.rel}`,
      source: 'retrieval',
      title: `${file.rel} lines ${rendered.ranges.join(', ')}`,
      text: rendered.text,
      // 60-85: above the unchanged files and outlines, below what the question names outright.
      priority: 60 + Math.max(0, Math.min(25, Math.round(file.score / 6))),
      kind: 'code',
      path: file.rel,
      why,
      ...(rendered.cut ? { truncated: true } : {}),
    });
  }
  return items;
}

/** A file whose regions score under this share of the best file's is not sent. */
const WEAK_FILE_RATIO = 0.4;

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
  headOnly = false,
): { text: string; cut?: boolean } | { skip: string } | { missing: true } {
  const byName = refusedForRegions(rel);
  if (byName) return { skip: byName };
  const read = guard.read(path.join(root, rel), zone, [rel], { maxBytes: MAX_READ_BYTES, skipLarger: !headOnly });
  if (read.refused) return { skip: read.refused };
  if (read.text === undefined) return { skip: 'too large to read for regions' };
  if (read.text.slice(0, 8192).includes('\0')) return { skip: 'binary' };
  // Cut at the bound (a replacement character may stand for the last bytes of a cut one).
  const cut = headOnly && read.text.length * 3 >= MAX_READ_BYTES && Buffer.byteLength(read.text) >= MAX_READ_BYTES - 3;
  return cut ? { text: read.text, cut } : { text: read.text };
}

/** Why a file is never read for regions by its name alone (a bundle, generated code), if it is. */
function refusedForRegions(rel: string): string | undefined {
  return isTaskPath(rel) ? undefined : refusedByName(rel);
}

/**
 * The files by role looked at as the regions reader will: a candidate the guard or its name refuses is passed
 * over for the next (a judgement by stats, no read), and a candidate's head is read bounded for its title.
 */
function roleReader(root: string, deps: SourceDeps): RoleReader {
  const guard = new FileGuard(deps.isNeverRead);
  const zone = workspaceZone(root, deps.allowedRoots);
  return {
    readable: (rel) =>
      !deps.isNeverRead(rel) &&
      refusedForRegions(rel) === undefined &&
      guard.check(path.join(root, rel), zone, [rel]).ok,
    head: (rel, maxBytes) => guard.read(path.join(root, rel), zone, [rel], { maxBytes }).text,
  };
}
