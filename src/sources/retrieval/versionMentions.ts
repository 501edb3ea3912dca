// A version question about a tool or runtime that no dependency list names
// ("the minimum CMake version", "which Zig does it need", "which OTP"): the
// answer is a line naming it with a version, wherever a manifest writes it,
// often as one part of a longer key (`cmake_minimum_required(VERSION 3.8)`,
// `.minimum_zig_version = "0.14.0"`, `{minimum_otp_vsn, "22.0"}`,
// `org.clojure/clojure "1.11.1"`), which a whole-word search does not find.
// One rule for every ecosystem: in a manifest (rules/manifests.json) or a
// root-level file, a line where a word of the question is a word or a part of
// an identifier, and a version-shaped value stands beside it.

import { MANIFEST_FILES } from './manifestFiles.ts';
import type { GrepHit } from './search.ts';

/** A version-shaped value: `1.5.0`, `v2`, `^3.1`, `~> 1.0`, `>=3.10`, `[1.2,2)`. */
export const VERSION_VALUE = /\d+\.\d+|\bv\d|[~^]>?\s*\d|[<>=]=?\s*\d|\[\d/;

/**
 * The words a version question is phrased with: they name no tool, and every manifest has lines of them with a
 * version (`version = "1.0"`), so they are not subjects.
 */
const QUESTION_VOCABULARY = new Set(
  (
    'version versions versioned minimum min minimal maximum max lowest oldest newest latest least required require ' +
    'requires requirement requirements need needs needed supported support supports supporting project projects ' +
    'depend depends dependency dependencies use uses used using target targets targeted build builds built run ' +
    'runs release releases compatible compatibility work works pinned pin pins specify specified which what does ' +
    'this that library package code repo repository'
  ).split(' '),
);

/** Capitalised words of one or two letters that are English, not a language's name ("Is", "It", "A"). */
const SHORT_ENGLISH = new Set(
  'A I Is It In If Do Of On Or To At As An Be By My No So Up We Hi Ok OK Me He Us Am'.split(' '),
);

/**
 * The names of one or two letters a question spells with a capital (`R`, `C`, `C++`, `F#`, `Go`, `Qt`): the
 * analysis keeps words of three letters or more, and a runtime named by one letter is still the subject of
 * "what's the minimum R version".
 */
export function shortNames(text: string): string[] {
  const names = new Set<string>();
  for (const match of text.slice(0, 2_000).matchAll(/(?<![\w.+#'’-])([A-Z][a-z]?(?:\+\+|#)?)(?![\w+#'’-])/g)) {
    const name = match[1] as string;
    if (!SHORT_ENGLISH.has(name)) names.add(name);
    if (names.size >= 4) break;
  }
  return [...names];
}

/** The words of a version question that may name the tool or runtime asked about. */
export function versionSubjects(words: readonly string[]): string[] {
  const subjects = words
    .filter((word) => /^[A-Za-z][\w.+#-]*$/.test(word))
    .filter((word) => !QUESTION_VOCABULARY.has(word.toLowerCase()));
  return [...new Set(subjects.map((word) => word.toLowerCase()))].slice(0, 8);
}

/**
 * Whether a line names one of `subjects` as a word or a part of an identifier (a letter or digit on neither
 * side: `_`, `.`, `-`, `/` separate parts) and carries a version-shaped value besides.
 */
export function statesVersionOf(subjects: readonly string[]): (line: string) => boolean {
  if (subjects.length === 0) return () => false;
  const named = new RegExp(
    `(?<![A-Za-z0-9])(?:${subjects.map((word) => word.replace(/[.+]/g, '\\$&')).join('|')})(?![A-Za-z0-9])`,
    'gi',
  );
  return (line) => {
    named.lastIndex = 0;
    if (!named.test(line)) return false;
    return VERSION_VALUE.test(line.replace(named, ' '));
  };
}

/** Where a tool's version is written: the manifests at any depth, and the project's root-level files. */
const VERSION_PATHSPECS = [...MANIFEST_FILES.pathspecs, ':(glob)*'];

/** Lines searched per file before the rule picks: a root CMakeLists.txt names `cmake` on many lines. */
const SUBJECT_LINES_PER_FILE = 200;

type Search = (
  patterns: string[],
  extra: { words: boolean; ignoreCase?: boolean; paths?: string[]; perFile?: number },
) => Promise<{ hits: GrepHit[]; cut: boolean }>;

/**
 * The manifest search of a version question: the words whole in the manifests (a package's line), and the
 * subjects as parts of longer keys in the manifests and root-level files, kept when the line states a version.
 */
export async function versionSearch(
  search: Search,
  words: string[],
  manifestPaths: string[],
): Promise<{ hits: GrepHit[]; cut: boolean }> {
  const subjects = versionSubjects(words);
  const states = statesVersionOf(subjects);
  // A name of one or two letters (`R`, `go`) is a part of too many words: it is searched whole.
  const long = subjects.filter((subject) => subject.length >= 3);
  const short = subjects.filter((subject) => subject.length < 3);
  const none = Promise.resolve({ hits: [] as GrepHit[], cut: false });
  const inVersionFiles = (patterns: string[], whole: boolean) =>
    patterns.length === 0
      ? none
      : search(patterns, { words: whole, ignoreCase: true, paths: VERSION_PATHSPECS, perFile: SUBJECT_LINES_PER_FILE });
  const [whole, parts, named] = await Promise.all([
    search(words, { words: true, ignoreCase: true, paths: manifestPaths }),
    inVersionFiles(long, false),
    inVersionFiles(short, true),
  ]);
  const seen = new Set(whole.hits.map((hit) => `${hit.rel}:${hit.line}`));
  const stated = [...parts.hits, ...named.hits].filter((hit) => {
    const at = `${hit.rel}:${hit.line}`;
    if (seen.has(at) || !states(hit.text)) return false;
    seen.add(at);
    return true;
  });
  return { hits: [...whole.hits, ...stated], cut: whole.cut };
}
