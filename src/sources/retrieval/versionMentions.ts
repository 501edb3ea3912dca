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

/** The words of a version question that may name the tool or runtime asked about. */
export function versionSubjects(words: readonly string[]): string[] {
  const subjects = words
    .filter((word) => /^[A-Za-z][\w.+#-]*$/.test(word) && word.length >= 2)
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
  const [whole, parts] = await Promise.all([
    search(words, { words: true, ignoreCase: true, paths: manifestPaths }),
    subjects.length > 0
      ? search(subjects, { words: false, ignoreCase: true, paths: VERSION_PATHSPECS, perFile: SUBJECT_LINES_PER_FILE })
      : Promise.resolve({ hits: [] as GrepHit[], cut: false }),
  ]);
  const seen = new Set(whole.hits.map((hit) => `${hit.rel}:${hit.line}`));
  const stated = parts.hits.filter((hit) => states(hit.text) && !seen.has(`${hit.rel}:${hit.line}`));
  return { hits: [...whole.hits, ...stated], cut: whole.cut };
}
