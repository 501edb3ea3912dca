// Files asked for by their role, not their words. "Which license is this
// under?", "what's in the changelog?", "how does CI run the tests?", "how do I
// contribute?": the answer is the project's own license file, changelog, CI
// workflow or contributing guide, whatever the ecosystem names it (COPYING,
// CHANGES.rst, NEWS, .gitlab-ci.yml, Jenkinsfile), and the root's before a
// vendored library's or a test fixture's. A word search finds every file that
// mentions a license or a change, and no file named COPYING; the names do.
// One table of roles: a role is the words that ask for it and the names its
// files have.

import path from 'node:path';
import type { Question } from '../../shared/question.ts';
import type { GitRunner } from '../git/gitRunner.ts';
import { readPrefix } from '../git/gitRunner.ts';
import { isTestPath } from './regions.ts';
import { NOT_PROXY_OWN } from './search.ts';

interface Role {
  /** Words that ask for the role's files. */
  asks: RegExp;
  /**
   * Names of its files (lower case), in the order a project most likely uses: a file whose name is one, or one
   * followed by `.`, `-` or `_` (`LICENSE-MIT`, `CHANGES.rst`, `Dockerfile.dev`).
   */
  names?: readonly string[];
  /** Extensions a named file may have (documents, not a `changes.py`); any when absent. */
  extension?: RegExp;
  /** Fixed places (git globs from the root): a CI service's configuration. */
  places?: readonly string[];
  /** Files sent, at most. */
  files: number;
  /** Asked only by a question that names no package, name or path: "what does it depend on", not "…on urllib3". */
  namesNothing?: boolean;
  /** Files after the first only when the question names them (`release.yml` for "the release workflow"). */
  othersNamed?: boolean;
  /**
   * The line that gives a file of the role its title (a workflow's `name:`), when files are asked for by it: "what
   * does the 'C/C++ CI' workflow run" names `test.yml`. Its first group is the title.
   */
  titled?: RegExp;
  /** Lines of each file's head sent: what the role's file says first (a licence's terms, the latest release). */
  lines: number;
  /**
   * Where in the file the role's answer starts, when not at its head (a manifest's dependency table): the first
   * line matching the first of these patterns that any line matches.
   */
  focus?: readonly RegExp[];
  why: string;
}

const DOCUMENT = /^(?:\.(?:md|markdown|rst|txt|adoc|asciidoc|org|textile))?$/i;

/** The roles, each with what asks for it. */
const ROLES: readonly Role[] = [
  {
    asks: /\blicen[cs](?:e[sd]?|ing)\b|\bcopyright/i,
    names: ['license', 'licence', 'copying', 'unlicense', 'copyright', 'notice'],
    // A dual license, or the license and its NOTICE.
    files: 2,
    lines: 12,
    why: 'asked about the license: the license file',
  },
  {
    asks: /\bchange ?logs?\b|\brelease notes?\b|\bwhat'?s new\b|\bnews file\b|\bchanges file\b/i,
    names: ['changelog', 'changes', 'history', 'news', 'releases', 'release-notes', 'release_notes', 'whatsnew'],
    extension: DOCUMENT,
    files: 1,
    lines: 30,
    why: 'asked about the changelog: its newest entries',
  },
  {
    asks: /\bCI\b|\bcontinuous integration\b|\b(?:github actions?|workflows?|pipelines?|gitlab-ci|jenkins|travis|circleci|buildkite)\b/i,
    places: [
      '.github/workflows/*.yml',
      '.github/workflows/*.yaml',
      '.gitlab-ci.yml',
      '.gitlab-ci.yaml',
      '.circleci/config.yml',
      'Jenkinsfile',
      'azure-pipelines.yml',
      '.travis.yml',
      'bitbucket-pipelines.yml',
      '.drone.yml',
      'appveyor.yml',
      '.buildkite/*.yml',
      '.woodpecker.yml',
      '.woodpecker/*.yml',
      '.gitea/workflows/*.yml',
      '.forgejo/workflows/*.yml',
      'cloudbuild.yaml',
    ],
    files: 2,
    othersNamed: true,
    // GitHub's, Gitea's and Forgejo's workflows, Azure's pipelines; a title in quotes or not. A comment starts
    // after a blank (`C# build` is a title, `CI  # nightly` is "CI").
    titled: /^name:[ \t]*(?:(["'])(.+?)\1|(.+?))(?:[ \t]+#.*)?[ \t]*$/m,
    lines: 80,
    why: 'asked about CI: its configuration',
  },
  {
    asks: /\bcontribut(?:e|ing|ion|ions|ors?)\b/i,
    names: ['contributing', 'hacking', 'development'],
    extension: DOCUMENT,
    files: 1,
    lines: 40,
    why: 'asked how to contribute: the contributing guide',
  },
  {
    asks: /\bsecurity (?:polic(?:y|ies)|issues?|vulnerabilit\w*|reports?|advisor\w*|contact)\b|\b(?:report|disclos)\w* (?:a |security )?vulnerabilit/i,
    names: ['security'],
    extension: DOCUMENT,
    files: 1,
    lines: 30,
    why: 'asked about security reports: the security policy',
  },
  {
    asks: /\bcode of conduct\b/i,
    names: ['code_of_conduct', 'code-of-conduct'],
    extension: DOCUMENT,
    files: 1,
    lines: 20,
    why: 'asked about the code of conduct',
  },
  {
    asks: /\bcode ?owners?\b|\bwho (?:owns|maintains|reviews)\b|\bmaintainers?\b/i,
    names: ['codeowners', 'maintainers', 'owners'],
    files: 1,
    lines: 30,
    why: 'asked who owns or maintains the code',
  },
  {
    // Listing them: a question naming one package is about its version, which the version search answers.
    asks: /\b(?:dependencies|deps|depend on|third[- ]party (?:packages|libraries|code))\b|\b(?:what|which) (?:[\w-]+ ){0,2}(?:packages|libraries|crates|gems|modules) (?:does|do|are|is)\b/i,
    namesNothing: true,
    names: [
      'package.json',
      'pyproject.toml',
      'cargo.toml',
      'go.mod',
      'gemfile',
      'composer.json',
      'pom.xml',
      'build.gradle',
      'build.gradle.kts',
      'requirements',
      'pipfile',
      'setup.cfg',
      'mix.exs',
      'package.swift',
      'pubspec.yaml',
      'deno.json',
      'project.clj',
      'deps.edn',
      'cabal.project',
      'dune-project',
      'build.zig.zon',
    ],
    // A gem's, a .NET project's, a Haskell or R package's manifest is named after the package.
    places: ['*.gemspec', '*.csproj', '*.fsproj', '*.cabal', '*.nimble', '*.rockspec', 'DESCRIPTION'],
    files: 1,
    lines: 40,
    // The runtime table before the development one, each ecosystem's spelling; the first that a line matches.
    focus: [
      /^\s*"dependencies"\s*:\s*\{/,
      /^\s*\[(?:[\w.-]+\.)?dependencies\]/,
      /^\s*(?:dependencies|install_requires)\s*=/,
      /^\s*"require"\s*:\s*\{/,
      /^require\s*\(/,
      /<dependencies>/,
      /^\s*(?:dependencies|defp deps)\b/,
      /\badd_(?:runtime_)?dependency\b/,
      /<PackageReference\b/,
      /^(?:Depends|Imports):|^\s*build-depends:/i,
      /^\s*gem\s/,
      /^\s*[A-Za-z][\w.-]*\s*(?:[=<>~!]=|>=)/,
    ],
    why: 'asked for the dependencies: the manifest that lists them',
  },
  {
    asks: /\bdocker(?:file)?\b|\b(?:docker[- ])?compose file\b|\bcontainer(?:file| image)s?\b|\bpodman\b/i,
    names: ['dockerfile', 'containerfile', 'docker-compose', 'compose'],
    files: 2,
    lines: 60,
    why: 'asked about the container: its build file',
  },
];

/**
 * How the chosen files are looked at: whether the guard lets one be read (a symlink out of the workspace, a FIFO,
 * a never-read path: the next candidate answers instead), and the first bytes of one, bounded.
 */
export interface RoleReader {
  readable(rel: string): boolean;
  head(rel: string, maxBytes: number): string | undefined;
}

const EVERY_FILE: RoleReader = { readable: () => true, head: () => undefined };

/** Candidates of one role looked at, at most: each costs the guard's stats, a titled one a bounded read. */
const CANDIDATES = 8;

/** Bytes of a candidate's head searched for its title. */
const TITLE_BYTES = 2048;

/** A file chosen for its role: why, how many lines, and where they start when not at the head. */
export interface RoleFile {
  why: string;
  lines: number;
  focus?: readonly RegExp[] | undefined;
}

const LIST_BYTES = 32 * 1024;

/** Paths that are not the project's own (a fixture's, a vendored library's): ranked after its own. */
const ASIDE = /(^|\/)(vendor|third[_-]?party|node_modules|deps|external)\//i;

/** A place as a pattern: `*` stands for any characters but a slash (the places' only wildcard). */
function placeTest(place: string): RegExp {
  return new RegExp(`^${place.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replaceAll('*', '[^/]*')}$`);
}

const PLACE_TESTS = new Map(ROLES.map((role) => [role, (role.places ?? []).map(placeTest)]));

/** The rank of a path as a file of `role` (lower is better), undefined when it is not one. */
function rankAs(role: Role, rel: string): number | undefined {
  const base = path.posix.basename(rel).toLowerCase();
  let at = -1;
  if (role.names) {
    at = role.names.findIndex((name) => {
      if (!base.startsWith(name)) return false;
      const rest = base.slice(name.length);
      if (rest !== '' && !/^[.\-_]/.test(rest)) return false;
      return !role.extension || role.extension.test(path.posix.extname(base)) || /^[-_]/.test(rest);
    });
  }
  if (at < 0) at = (PLACE_TESTS.get(role) ?? []).findIndex((place) => place.test(rel));
  if (at < 0) return undefined;
  // Shallower first; a test fixture's or a vendored copy's is not the project's.
  const aside = isTestPath(rel) || ASIDE.test(rel);
  return (aside ? 1000 : 0) + rel.split('/').length * 10 + at;
}

/** The rank of a path as the project's license file (lower is better), undefined when its name is not one. */
export function legalRank(rel: string): number | undefined {
  return rankAs(ROLES[0] as Role, rel);
}

/** The roles the question asks for. */
export function rolesAsked(question: Question): readonly Role[] {
  const namesSomething =
    question.packages.length > 0 || question.identifiers.some((id) => !id.guessed) || question.paths.length > 0;
  return ROLES.filter((role) => role.asks.test(question.text) && !(role.namesNothing && namesSomething));
}

/**
 * The files of the roles asked for (`path` → why and head lines), best first. Among a role's several files (CI
 * workflows), one named by a word of the question comes first ("how does CI run the tests": `tests.yml`).
 */
export async function roleFiles(
  git: GitRunner,
  withPrefix: (args: string[]) => string[],
  roles: readonly Role[],
  question: string,
  reader: RoleReader = EVERY_FILE,
): Promise<Map<string, RoleFile>> {
  const out = new Map<string, RoleFile>();
  if (roles.length === 0) return out;
  // Two listings, each bounded: the root's names first, then those anywhere. One listing comes in path order, and
  // a bounded read of it keeps the first paths, not the best: a folder sorting before the root's files with
  // thousands of `CHANGELOG-n.md` (a monorepo's packages, a hostile repository) would leave no room for them.
  const rootSpecs: string[] = [];
  const deepSpecs: string[] = [];
  for (const role of roles) {
    for (const name of role.names ?? []) {
      rootSpecs.push(`:(icase,glob)${name}*`);
      deepSpecs.push(`:(icase,glob)*/**/${name}*`);
    }
    for (const place of role.places ?? []) rootSpecs.push(`:(glob)${place}`);
  }
  const list = async (specs: string[]) => {
    if (specs.length === 0) return [];
    const args = ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', ...specs, NOT_PROXY_OWN];
    const { text } = await readPrefix(git, withPrefix(args), LIST_BYTES, '\0');
    return text.split('\0').filter((rel) => rel !== '');
  };
  const [atRoot, anywhere] = await Promise.all([list(rootSpecs), list(deepSpecs)]);
  const listed = [...new Set([...atRoot, ...anywhere])];
  const said = saidBy(question);
  const titleSaid = titleSaidBy(question);
  for (const role of roles) {
    const ranked = listed
      .map((rel) => ({ rel, rank: rankAs(role, rel) }))
      .filter((file): file is { rel: string; rank: number } => file.rank !== undefined)
      .map((file) => ({ ...file, rank: file.rank - (said(file.rel) ? 5 : 0) }))
      .sort((a, b) => a.rank - b.rank || a.rel.localeCompare(b.rel));
    // The guard judges the best few only, and only those it lets be read compete: a refused best file leaves
    // its place to the next, not the role empty.
    const candidates = ranked.slice(0, CANDIDATES).filter((file) => reader.readable(file.rel));
    // A title the question quotes or says outright names the file more surely than a word its name starts with.
    const byTitle = new Set<string>();
    const { titled } = role;
    if (titled && candidates.length > 1) {
      for (const file of candidates) {
        const title = reader.head(file.rel, TITLE_BYTES)?.match(titled);
        const bonus = title ? titleSaid(title[2] ?? title[3] ?? '') : 0;
        if (bonus > 0) byTitle.add(file.rel);
        file.rank -= bonus;
      }
      candidates.sort((a, b) => a.rank - b.rank || a.rel.localeCompare(b.rel));
    }
    const chosen = candidates
      .filter((file, i) => i === 0 || !role.othersNamed || said(file.rel) || byTitle.has(file.rel))
      .slice(0, role.files);
    for (const { rel } of chosen)
      if (!out.has(rel)) out.set(rel, { why: role.why, lines: role.lines, focus: role.focus });
  }
  return out;
}

/** Letters of a title compared at most: a workflow's name is a few words. */
const MAX_TITLE = 80;

/**
 * How surely the question names a file by its title: written whole ("the 'C/C++ CI' workflow", 10), every word of
 * it said ("the ABI check workflow", 6), else 0. Either outranks a file whose stem is merely a word of the question
 * (5): `test.yml` for "the tests" gives way to the workflow titled "Build and test" when that title is asked for.
 */
function titleSaidBy(question: string): (title: string) => number {
  const lower = question.toLowerCase();
  const words = new Set(lower.match(/[a-z0-9]+/g) ?? []);
  return (raw) => {
    const title = raw.trim().toLowerCase().slice(0, MAX_TITLE);
    const titleWords = title.match(/[a-z0-9]+/g) ?? [];
    if (titleWords.length === 0) return 0;
    // Whole, between non-word characters (`CI` is not in "circle"); each place it occurs, bounded by the question.
    for (let at = lower.indexOf(title); at >= 0; at = lower.indexOf(title, at + 1)) {
      const before = lower[at - 1] ?? ' ';
      const after = lower[at + title.length] ?? ' ';
      if (!/[a-z0-9]/.test(before) && !/[a-z0-9]/.test(after)) return 10;
    }
    return titleWords.every((word) => words.has(word)) ? 6 : 0;
  };
}

/** Letters of a word or a file's stem compared at most: names are short, a pasted blob's "word" is not. */
const MAX_STEM = 64;

/**
 * Whether a file's stem is a word of the question, or one starts the other (`tests.yml` for "the tests",
 * `test.yml` for "tested", `ci.yml` for "CI"). Sets of the words and their prefixes, not a scan of every word
 * for every file: a 128 KB question holds tens of thousands of words, and a listing thousands of files.
 */
function saidBy(question: string): (rel: string) => boolean {
  const words = new Set((question.toLowerCase().match(/[a-z0-9]+/g) ?? []).map((word) => word.slice(0, MAX_STEM)));
  const prefixes = new Set<string>();
  for (const word of words) for (let n = 4; n <= word.length; n++) prefixes.add(word.slice(0, n));
  return (rel) => {
    const stem = path.posix
      .basename(rel)
      .toLowerCase()
      .replace(/\.[^.]*$/, '')
      .slice(0, MAX_STEM);
    if (words.has(stem) || (stem.length >= 4 && prefixes.has(stem))) return true;
    for (let n = 4; n <= stem.length; n++) if (words.has(stem.slice(0, n))) return true;
    return false;
  };
}
