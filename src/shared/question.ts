// The question, analysed once: what the latest user message names (identifiers,
// paths, quoted strings, error lines, package names) and asks for (its intent
// words), plus what the earlier turns were about, for a follow-up that only
// says "it". The pipeline computes it before collecting; every stage (the
// sources, the budget's ranking) reads this result instead of parsing the
// message again with rules of its own.
//
// Linear in the text: the text is bounded first (parseWindow), split once at
// separators, and every pattern after that runs on one short token.

import { messageText } from './messageText.ts';
import { parseWindow } from './parseWindow.ts';
import type { Intent, Question, QuestionIdentifier, QuestionPath } from './questionTypes.ts';
import { INTENTS } from './questionTypes.ts';
import type { ChatMessage } from './types.ts';

export type { Intent, Question, QuestionIdentifier, QuestionPath } from './questionTypes.ts';

export const EMPTY_QUESTION: Question = {
  text: '',
  identifiers: [],
  paths: [],
  quoted: [],
  errors: [],
  versions: [],
  packages: [],
  words: [],
  intents: [],
  earlierPaths: [],
};

const MAX_IDENTIFIERS = 24;
const MAX_PATHS = 24;
const MAX_LIST = 24;
const MAX_TOKEN = 300;
/** Earlier user turns looked at for a follow-up's subject. */
const SUBJECT_TURNS = 4;
/** Earlier user turns whose named paths count as in play (each bounded like the latest). */
const EARLIER_TURNS = 16;

/** Well-known files without an extension that users name bare. */
const BARE_NAMES =
  /^(Makefile|GNUmakefile|Dockerfile|Containerfile|Justfile|justfile|Procfile|Gemfile|Rakefile|Jenkinsfile|Vagrantfile|LICENSE|CODEOWNERS)$/;
const BARE_NAME_INSIDE = new RegExp(BARE_NAMES.source.slice(1, -1));
/** Extensions that make `name.ext` a file name rather than `object.member`. */
const FILE_EXTENSION = new RegExp(
  `\\.(?:${[
    'ts|tsx|mts|cts|js|jsx|mjs|cjs|py|pyi|go|rs|java|kt|kts|scala|rb|php|cs|fs|c|h|cc|cpp|hpp|m|swift|dart',
    'lua|ex|exs|erl|hs|ml|clj|vue|svelte|json|jsonc|toml|yaml|yml|xml|ini|cfg|conf|md|mdx|rst|txt|csv|sql',
    'sh|bash|zsh|ps1|gradle|lock|mod|sum|html|css|scss|less|proto|graphql|tf|mk|env|log|out|in',
  ].join('|')})$`,
  'i',
);
const IDENTIFIER = /[A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$][\w$]*)*/g;
/**
 * A kebab-case name (`wrap-params`, `string->symbol`, `valid-key?`): Lisps, Clojure, Elisp, Racket, CSS, shell
 * and task names join words with hyphens. Each part starts with a letter or digit; no leading dash (a flag).
 */
const KEBAB = /^[A-Za-z][A-Za-z0-9_]*(?:(?:-|->)[A-Za-z0-9_]+)+[?!*]?$/;
const QUALIFIER = /\.|::|#/;
/**
 * A version number: two to four dotted numbers, an optional `v`, and a pre-release suffix. Not part of a longer
 * token (`a.b.1.2`, `1.2.3.4.5`, `x1.2`), which its look-arounds leave out; each look is one character or two, so
 * the scan stays linear.
 */
const VERSION =
  /(?<![\w.])v?\d{1,6}(?:\.\d{1,6}){1,3}(?:[-+](?:rc|alpha|beta|pre|dev|post|a|b)\.?\d{0,6})?(?![\w-]|\.\d)/gi;
/** Code-shaped words that say nothing on their own. */
const NOISE = new Set(['e.g', 'i.e', 'etc', 'vs', 'self', 'this', 'cls', 'super', 'crate', 'std']);

const INTENT_PATTERNS: Record<Intent, RegExp> = {
  uses: /\b(?:uses?|used|using|usages?|call(?:s|ed|ers?|ing)?|referenc\w*|invok\w*|depends? on it|imports?)\b/i,
  definition:
    /\b(?:defin\w*|declar\w*|implement\w*|signature|arguments?|param(?:eter)?s?|returns?|inherit\w*|extends?|subclass\w*|base class|parent class|traits?|interfaces?|where(?:'s| is)|what does|what is|how does)\b/i,
  history:
    /\b(?:commits?|committed|history|recent(?:ly)?|blame|when did|when was|who (?:last |first |originally )?(?:changed|touched|modified|wrote|edited|created|added)|originally|first (?:added|created|introduced|committed|appeared)|last (?:change[ds]?|modified|touched|updated|edited)|changelog|merged?|introduced|previous|git log|changed in|(?:changed?|changes|differences?) between|what'?s new|my branch|this branch|compared (?:to|with)|since)\b/i,
  version:
    /\b(?:versions?|pinned|pins?|dependenc(?:y|ies)|depend(?:s|ed)? on|requires?|requirements?|which release|minimum)\b/i,
  configuration: /\b(?:config\w*|settings?|options?|env(?:ironment)? var\w*|environment|flags?|keys?|defaults?)\b/i,
  tests: /\b(?:tests?|testing|tested|specs?|pytest|unittest|test suite|coverage)\b/i,
  build:
    /\b(?:build\w*|built|compil\w*|install\w*|lint\w*|format(?:ter|ting)?|ci|makefile|make|scripts?|bundl\w*|release)\b/i,
};

const STOP_WORDS = new Set(
  (
    'a an the and or but if then else of to in on at by for with from into onto about as is are was were be been being ' +
    'do does did done doing have has had having i me my we our you your it its they them their this that these those ' +
    'what which who whom whose where when why how there here all any some each every no not only own same so than too ' +
    'very can could should would will shall may might must just also please tell show explain find give let see get got ' +
    'file files code line lines function method class repo repository project thing stuff something anything way use ' +
    'used uses using does work works called call calls where defined definition change changed changes last commit ' +
    'version test tests run runs build set sets read reads value values new old one two need needs want like look ' +
    'inside within other another more most such like again now still same via per e.g object objects instance instances'
  ).split(' '),
);

/** camelCase, PascalCase with an inner capital, snake_case, SCREAMING_CASE, a leading underscore. */
export function codeShaped(word: string): boolean {
  // An acronym's plural (`TODOs`, `APIs`, `URLs`) is prose, though its capitals before a lower-case letter look like code.
  if (/^[A-Z]{2,}s$/.test(word)) return false;
  return (
    /[a-z][A-Z]/.test(word) ||
    /[A-Z]{2}[a-z]/.test(word) ||
    /^[A-Z][a-z0-9]+[A-Z]/.test(word) ||
    /\w_\w/.test(word) ||
    /^_\w/.test(word)
  );
}

/** Words that say the word beside them is a name: "the retry function", "module testutil". */
const KIND_NOUNS =
  /^(?:function|func|method|class|module|package|crate|struct|trait|interface|type|enum|variable|constant|const|field|property|attribute|macro|decorator|hook|component|command|subcommand|flag|option|helper|handler|middleware|fixture)s?$/i;

/** "module", "functions", "class": a word that says what kind of thing a name beside it is. */
export const isKindNoun = (word: string) => KIND_NOUNS.test(word);

/** Words that describe a kind noun rather than name one ("the environment variable", "a private method"). */
const DESCRIPTORS = new Set(
  'environment env global local private public static abstract base parent child config configuration default different async internal exported given whole entire following above below first second next right wrong main root top helper utility custom generic'.split(
    ' ',
  ),
);

/** Acronyms people write in prose; other all-capital words (`TERM`, `NO_COLOR`, `MAXLEN`) are names. */
const ACRONYMS = new Set(
  'API APIS HTTP HTTPS JSON YAML TOML URL URLS URI CLI SSL TLS SSH CPU GPU RAM SQL CSV XML HTML CSS PDF PNG UTF ASCII TODO FIXME NOTE README LICENSE CHANGELOG AND THE NOT FAQ IDE OSS GUI TCP UDP DNS AWS GCP JWT SDK ENV EOF CRLF'.split(
    ' ',
  ),
);

/** An all-capital name: an environment variable or a constant. */
function constantShaped(word: string): boolean {
  return /^[A-Z][A-Z0-9]{2,}$/.test(word) && !ACRONYMS.has(word);
}

/** Splits markdown into prose and the bodies of fenced code blocks. */
export function splitFences(text: string): { prose: string; code: string } {
  if (!text.includes('```') && !text.includes('~~~')) return { prose: text, code: '' };
  const prose: string[] = [];
  const code: string[] = [];
  let fence: string | undefined;
  for (const line of text.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (fence === undefined || marker[0] === fence)) {
      fence = fence === undefined ? marker[0] : undefined;
      continue;
    }
    (fence === undefined ? prose : code).push(line);
  }
  return { prose: prose.join('\n'), code: code.join('\n') };
}

const CAPITALISED = /[A-Z][a-z0-9]{2,40}\b/g;

/**
 * Capitalised words inside a sentence: proper names, and in a question about
 * code a type's ("which classes extend Adapter", "who implements Printer").
 * The first word of a sentence, a line or a list item is not one.
 */
function properNames(prose: string): Set<string> {
  const names = new Set<string>();
  for (const match of prose.matchAll(CAPITALISED)) {
    if (names.size >= MAX_LIST) break;
    const before = prose.slice(Math.max(0, match.index - 4), match.index);
    if (match.index > 0 && /\w$/.test(before)) continue;
    if (/(?:^|[.!?:\n]|^\s*[-*]|\n\s*[-*\d.)]*)\s*$/.test(before) || match.index === 0) continue;
    names.add(match[0]);
  }
  return names;
}

const TOKEN_SPLIT = /[\s"'`()<>[\]{},;|=]+/;

/** Path-looking tokens, in order of first appearance, without `@`, quotes, trailing punctuation or `:line:col`. */
export function pathCandidates(text: string): string[] {
  const seen = new Set<string>();
  for (const raw of text.split(TOKEN_SPLIT)) {
    const token = pathToken(raw);
    if (token === undefined) continue;
    seen.add(token);
    if (seen.size >= MAX_PATHS * 8) break;
  }
  return [...seen];
}

function pathToken(raw: string): string | undefined {
  if (raw.length < 2 || raw.length > MAX_TOKEN) return undefined;
  if (!raw.includes('/') && !raw.includes('.') && !BARE_NAME_INSIDE.test(raw)) return undefined;
  if (raw.includes('://')) return undefined;
  let token = raw.replace(/^@/, '').replace(/^file:/, '');
  token = token
    .replace(/[.!?]+$/, '')
    .replace(/(?::\d+)+:?$/, '')
    .replace(/[.:!?]+$/, '');
  if (token.length < 2) return undefined;
  const looksLikePath =
    (token.includes('/') && /[\w-]/.test(token)) ||
    /^[\w.-]*\.[A-Za-z][\w-]{0,9}$/.test(token) ||
    BARE_NAMES.test(token);
  if (!looksLikePath || /^\.+$/.test(token)) return undefined;
  return token;
}

/**
 * A path candidate that can only be a path: `a/b`, a known extension, a bare
 * well-known name. `OrderService.create` is a candidate (the file may exist)
 * but also an identifier.
 */
export function surelyPath(token: string): boolean {
  return token.includes('/') || FILE_EXTENSION.test(token) || BARE_NAMES.test(token);
}

/** Names to look up for one term: `a.b.c` → `a.b.c`, `b.c`, `c`. */
function triesFor(term: string): string[] {
  const parts = term.split(QUALIFIER).filter((part) => part !== '' && !NOISE.has(part));
  const tries: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const name = parts.slice(i).join('.');
    if (name.length >= 2 && !tries.includes(name)) tries.push(name);
  }
  return tries;
}

const ERROR_LINE =
  /^\s*(?:(?:[\w.$]*(?:Error|Exception|Warning)|error(?:\[\w+\])?|panic|fatal|FAIL|Traceback)\b[:!]?.*|.*\b(?:failed|cannot|could not|undefined|not found|no such)\b.*)$/;

/** Analyses one user message on its own (no earlier turns). */
export function analyseText(message: string): Question {
  const text = parseWindow(message);
  const { prose, code } = splitFences(text);
  const identifiers = new Map<string, QuestionIdentifier>();
  const addIdentifier = (term: string, quoted: boolean, guessed = false, proper = false) => {
    if (identifiers.size >= MAX_IDENTIFIERS || NOISE.has(term) || term.length > 120) return;
    const known = identifiers.get(term);
    if (known) {
      known.quoted ||= quoted;
      if (!guessed) delete known.guessed;
      if (!proper) delete known.proper;
      return;
    }
    const tries = triesFor(term);
    if (tries.length > 0)
      identifiers.set(term, { term, tries, quoted, ...(guessed ? { guessed } : {}), ...(proper ? { proper } : {}) });
  };

  const quoted: string[] = [];
  // Backticked and quoted spans: code whatever its shape, or a string to search for.
  for (const match of prose.matchAll(/`([^`\n]{1,200})`|"([^"\n]{3,200})"|'([^'\n]{3,200})'/g)) {
    const span = (match[1] ?? match[2] ?? match[3] ?? '').trim();
    const backticked = match[1] !== undefined;
    const bare = span.replace(/\(\)$/, '');
    if (backticked && KEBAB.test(bare)) {
      addIdentifier(bare, true);
    } else if (/^[A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$][\w$]*)*$/.test(bare) && !FILE_EXTENSION.test(bare)) {
      // A single quoted plain word ('the') is prose; backticks make anything code.
      if (backticked || codeShaped(bare) || QUALIFIER.test(bare)) addIdentifier(bare, true);
      else if (quoted.length < MAX_LIST) quoted.push(span);
    } else if (pathToken(span) === undefined && quoted.length < MAX_LIST && span.length >= 3) {
      quoted.push(span);
    }
  }

  // Command-line options (`--no-color`, `-vimgrep` is not one): the code spells them as strings, with their
  // dashes in an argument parser's table, or without them (`"no-color"`) when the parser adds the dashes.
  for (const match of prose.matchAll(/(?:^|[\s(`'"])(--[a-z][a-z0-9]*(?:-[a-z0-9]+)*)(?=$|[\s)`'",.?!:=])/g)) {
    const flag = match[1] as string;
    if (flag.length < 5 || quoted.length >= MAX_LIST - 1) continue;
    if (!quoted.includes(flag)) quoted.push(flag);
    const bare = flag.slice(2);
    if (bare.includes('-') && !quoted.includes(bare)) quoted.push(bare);
  }

  const paths = new Map<string, QuestionPath>();
  const packages = new Set<string>();
  const words = new Set<string>();
  for (const [source, explicit] of [
    [prose, true],
    [code, false],
  ] as const) {
    const proper = explicit ? properNames(source) : new Set<string>();
    // Parentheses stay in the tokens: `Execute()` is a call, so a name.
    const tokens = source.split(/[\s"'`<>[\]{},;|=!?*]+/);
    for (let i = 0; i < tokens.length; i++) {
      const raw = (tokens[i] ?? '').replace(/^\(+/, '').replace(/\)+[.:]?$/, '');
      if (raw.length < 2 || raw.length > MAX_TOKEN) continue;
      const scoped = raw.replace(/[.:]+$/, '');
      if (/^@[\w.-]+\/[\w.-]+$/.test(scoped) && packages.size < MAX_LIST) packages.add(scoped);
      const previous = (tokens[i - 1] ?? '').toLowerCase();
      const twoBack = (tokens[i - 2] ?? '').toLowerCase();
      const clean = raw.replace(/[.:]+$/, '');
      // A package after "package" or "version of", also when it has a slash (`league/uri`, `github.com/x/y`) or
      // colons (Perl's `IO::Socket::IP`, Maven's `com.google.guava:guava`).
      if (
        /^(?:package|crate|module|library|lib|gem|dependency|dep)$/.test(previous) ||
        (previous === 'of' && /^versions?$/.test(twoBack))
      ) {
        if (/^[\w@][\w.@/:-]*$/.test(clean) && !STOP_WORDS.has(clean.toLowerCase()) && packages.size < MAX_LIST) {
          packages.add(clean);
        }
      }
      const asPath = pathToken(raw);
      if (asPath !== undefined) {
        const known = paths.get(asPath);
        if (known) known.explicit ||= explicit;
        else if (paths.size < MAX_PATHS) paths.set(asPath, { token: asPath, explicit });
        if (surelyPath(asPath)) continue;
      }
      if (raw.includes('://')) continue;
      // A kebab-case word may be a name or English ("built-in"): a guess, which retrieval keeps only when the
      // repository spells it; its parts stay words, as any hyphenated word's do.
      if (explicit && KEBAB.test(clean) && clean.split(/->?/).every((part) => part.length >= 2))
        addIdentifier(clean, false, true);
      const next = (tokens[i + 1] ?? '').replace(/[.:,]+$/, '');
      const properName = explicit && proper.has(clean);
      const besideKind =
        KIND_NOUNS.test(previous.replace(/[.:,]+$/, '')) ||
        (KIND_NOUNS.test(next) && !DESCRIPTORS.has(clean.toLowerCase()));
      for (const match of clean.matchAll(IDENTIFIER)) {
        const word = match[0];
        if (word.length < 3) continue;
        const after = clean[match.index + word.length];
        const called = after === '(';
        // A plain word beside a kind noun ("the testutil module") is a name, unless it is a stop word.
        // A capitalised kind noun inside a sentence is a type's name too ("new Command objects").
        const named =
          explicit &&
          ((besideKind && !KIND_NOUNS.test(word)) || properName) &&
          match.index === 0 &&
          !STOP_WORDS.has(word.toLowerCase()) &&
          !INTENT_WORD_SET.has(word.toLowerCase());
        const shaped = called || QUALIFIER.test(word) || codeShaped(word) || constantShaped(word);
        if (shaped || named) {
          if (!QUALIFIER.test(word) || word.split(QUALIFIER).every((part) => part.length > 0)) {
            addIdentifier(word, false, !shaped, !shaped && !(besideKind && !KIND_NOUNS.test(word)));
          }
          // A guessed name is also a word: the prose it stands in may name something else ("the mark flag part").
          if (!shaped && words.size < MAX_LIST) words.add(word.toLowerCase());
        } else if (explicit && /^[A-Za-z][\w-]{2,40}$/.test(word) && !STOP_WORDS.has(word.toLowerCase())) {
          if (words.size < MAX_LIST) words.add(word.toLowerCase());
        }
      }
    }
  }
  // A file name is not also an identifier (`rates.py` is not `rates` . `py`).
  for (const token of paths.keys()) if (surelyPath(token)) identifiers.delete(token);

  const versions = new Set<string>();
  for (const match of prose.matchAll(VERSION)) {
    if (versions.size >= MAX_LIST) break;
    versions.add(match[0].replace(/\.$/, ''));
  }

  const errors: string[] = [];
  for (const line of text.split('\n')) {
    if (errors.length >= 8) break;
    if (line.length >= 6 && line.length <= 500 && ERROR_LINE.test(line)) errors.push(line.trim());
  }
  // A name says what is asked about, not what kind of answer: `BuildConfig`, `build_config`, a misspelt
  // `Buildonfig` or `ConfigLoader` hold an intent's word (build, config) but ask for no build or settings.
  const named = [...identifiers.keys()].filter((term) => /^[\w$.:#-]+$/.test(term));
  const intentText =
    named.length === 0
      ? prose
      : prose.replace(new RegExp(`(?<![\\w$])(?:${named.map(escapeRegExp).join('|')})(?![\\w$])`, 'g'), ' ');
  const intents = INTENTS.filter((intent) => INTENT_PATTERNS[intent].test(intentText));
  for (const word of INTENT_WORDS) words.delete(word);
  return {
    text,
    identifiers: [...identifiers.values()],
    paths: [...paths.values()],
    quoted,
    errors,
    versions: [...versions],
    packages: [...packages],
    words: [...words],
    intents,
    earlierPaths: [],
  };
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Words that only say what kind of answer is wanted; never searched for. */
const INTENT_WORDS = [
  'arguments',
  'argument',
  'parameters',
  'parameter',
  'params',
  'returns',
  'return',
  'inherit',
  'inherits',
  'extends',
  'extend',
  'implement',
  'implements',
  'subclass',
  'subclasses',
  'minimum',
  'supports',
  'support',
  'compared',
  'since',
  'staged',
  'callers',
  'caller',
  'usages',
  'usage',
  'history',
  'recent',
  'recently',
  'config',
  'configuration',
  'setting',
  'settings',
  'option',
  'options',
  'testing',
  'tested',
  'dependency',
  'dependencies',
  'depend',
  'depends',
  'implemented',
  'implementation',
  'declared',
  'pinned',
  'requires',
  'require',
  'building',
  'built',
  'install',
  'lint',
  'format',
  'release',
];

const INTENT_WORD_SET = new Set(INTENT_WORDS);

/** Text of a user message, bounded (images left out). */
function userMessageText(message: ChatMessage): string {
  return parseWindow(messageText(message));
}

/**
 * The question of a conversation: the latest user message analysed, and, when
 * it names no identifier and no path, the subject of the nearest earlier user
 * turn that did.
 */
export function analyseQuestion(messages: readonly ChatMessage[]): Question {
  let latest = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role === 'user') {
      latest = i;
      break;
    }
  }
  if (latest < 0) return EMPTY_QUESTION;
  const question = analyseText(userMessageText(messages[latest] as ChatMessage));
  const needsSubject = question.identifiers.length === 0 && question.paths.length === 0;
  const earlierPaths = new Map<string, QuestionPath>();
  let turnsBack = 0;
  for (let i = latest - 1; i >= 0 && turnsBack < EARLIER_TURNS; i--) {
    const message = messages[i] as ChatMessage;
    if (message.role !== 'user') continue;
    turnsBack++;
    const earlier = analyseText(userMessageText(message));
    for (const named of earlier.paths) {
      const known = earlierPaths.get(named.token);
      if (known) known.explicit ||= named.explicit;
      else if (earlierPaths.size < MAX_PATHS) earlierPaths.set(named.token, { ...named });
    }
    if (needsSubject && !question.subject && turnsBack <= SUBJECT_TURNS) {
      if (earlier.identifiers.length > 0 || earlier.paths.length > 0) {
        question.subject = { identifiers: earlier.identifiers, paths: earlier.paths, turnsBack };
      }
    }
  }
  question.earlierPaths = [...earlierPaths.values()];
  return question;
}

/** The identifiers the question is about: its own, else its subject's. */
export function subjectIdentifiers(question: Question): QuestionIdentifier[] {
  return question.identifiers.length > 0 ? question.identifiers : (question.subject?.identifiers ?? []);
}

/** The paths the question is about: its own, else its subject's. */
export function subjectPaths(question: Question): QuestionPath[] {
  return question.paths.length > 0 ? question.paths : (question.subject?.paths ?? []);
}

export function hasIntent(question: Question, intent: Intent): boolean {
  return question.intents.includes(intent);
}

const inPlay = new WeakMap<Question, QuestionPath[]>();

/**
 * Paths named in the latest turn and the earlier ones (the latest's mark wins):
 * the folders in play for instruction files and manifests. The same array for
 * the same question, so a per-request memo can key on it.
 */
export function pathsInPlay(question: Question): QuestionPath[] {
  let paths = inPlay.get(question);
  if (!paths) {
    const byToken = new Map<string, QuestionPath>();
    for (const named of [...question.paths, ...question.earlierPaths]) {
      const known = byToken.get(named.token);
      if (known) byToken.set(named.token, { token: named.token, explicit: known.explicit || named.explicit });
      else byToken.set(named.token, named);
    }
    paths = [...byToken.values()];
    inPlay.set(question, paths);
  }
  return paths;
}
