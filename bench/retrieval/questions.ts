// Questions about a real repository, with their ground truth computed by git
// and plain text search only (never by ctxproxy): where a function is defined,
// who calls it, which tests exercise it, a follow-up turn ("and where is it
// used?"), a dependency's version from the manifest, what the last commit
// changed, how the tests are run, where an environment variable is read, where
// an error message comes from, what the work-tree edit is, and a named file's
// contents past its head. Deterministic: the same repository state gives the
// same questions. Each fact is a line (or a token) that must appear verbatim
// in what the model receives; no question contains its facts.

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { roleQuestions } from './roleQuestions.ts';

export interface BenchQuestion {
  id: string;
  kind: string;
  /** User turns, in order; the facts answer the last. */
  turns: string[];
  facts: string[];
}

export type Language =
  | 'py'
  | 'go'
  | 'rs'
  | 'ts'
  | 'java'
  | 'cs'
  | 'rb'
  | 'php'
  | 'kt'
  | 'ex'
  | 'swift'
  | 'lua'
  // Seventh round: C, C++, Scala, Dart, Haskell, Zig, Erlang, Clojure.
  | 'c'
  | 'cpp'
  | 'scala'
  | 'dart'
  | 'hs'
  | 'zig'
  | 'erl'
  | 'clj'
  // Eighth round: OCaml, Perl, R, Julia.
  | 'ml'
  | 'pl'
  | 'r'
  | 'jl';

export const git = (dir: string, ...args: string[]): string => {
  try {
    return execFileSync('git', args, { cwd: dir, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  } catch (error) {
    // git grep exits 1 when nothing matched.
    if ((error as { status?: number }).status === 1) return '';
    throw error;
  }
};

const hash = (text: string) => createHash('sha256').update(text).digest('hex');
/** A stable pseudo-random order: by hash of the name. */
const shuffled = <T>(items: T[], key: (item: T) => string) =>
  [...items].sort((a, b) => hash(key(a)).localeCompare(hash(key(b))));

export function mainLanguage(dir: string): Language {
  const counts: Record<Language, number> = {
    py: 0,
    go: 0,
    rs: 0,
    ts: 0,
    java: 0,
    cs: 0,
    rb: 0,
    php: 0,
    kt: 0,
    ex: 0,
    swift: 0,
    lua: 0,
    c: 0,
    cpp: 0,
    scala: 0,
    dart: 0,
    hs: 0,
    zig: 0,
    erl: 0,
    clj: 0,
    ml: 0,
    pl: 0,
    r: 0,
    jl: 0,
  };
  let headers = 0;
  for (const rel of git(dir, 'ls-files').split('\n')) {
    const ext = path.extname(rel);
    if (ext === '.py') counts.py++;
    else if (ext === '.go') counts.go++;
    else if (ext === '.rs') counts.rs++;
    else if (ext === '.java') counts.java++;
    else if (ext === '.cs') counts.cs++;
    else if (ext === '.rb') counts.rb++;
    else if (ext === '.php') counts.php++;
    else if (ext === '.kt' || ext === '.kts') counts.kt++;
    else if (ext === '.ex' || ext === '.exs') counts.ex++;
    else if (ext === '.swift') counts.swift++;
    else if (ext === '.lua') counts.lua++;
    else if (['.ts', '.tsx', '.js', '.mjs'].includes(ext)) counts.ts++;
    else if (ext === '.c') counts.c++;
    else if (['.cpp', '.cc', '.cxx', '.hpp', '.hh'].includes(ext)) counts.cpp++;
    else if (ext === '.h') headers++;
    else if (ext === '.scala' || ext === '.sc') counts.scala++;
    else if (ext === '.dart') counts.dart++;
    else if (ext === '.hs') counts.hs++;
    else if (ext === '.zig') counts.zig++;
    else if (ext === '.erl' || ext === '.hrl') counts.erl++;
    else if (['.clj', '.cljc', '.cljs'].includes(ext)) counts.clj++;
    else if (ext === '.ml' || ext === '.mli') counts.ml++;
    else if (['.pm', '.pl', '.t'].includes(ext)) counts.pl++;
    else if (ext === '.R' || ext === '.r') counts.r++;
    else if (ext === '.jl') counts.jl++;
  }
  // A `.h` is C's or C++'s header: it counts for whichever the sources are written in.
  if (counts.cpp > counts.c) counts.cpp += headers;
  else counts.c += headers;
  return (Object.entries(counts).sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'ts') as Language;
}

interface DefinitionShape {
  grep: string;
  name: RegExp;
  files: string[];
  /** A line that uses the name as a call (default: `name(`); Haskell and Lisps call without parentheses after the name. */
  isCall?: (text: string, name: string) => boolean;
  /** Statements the definition shape also matches (`return foo(`), where the shape has no keyword of its own. */
  notDefinition?: RegExp;
}

const STATEMENT_START =
  /^\s*(return|await|throw|if|else|case|new|yield|do|while|for|switch|sizeof|typedef|goto|delete)\b/;

const DEFINITION: Record<Language, DefinitionShape> = {
  py: { grep: '^\\s*def [a-z][a-z0-9_]{5,}\\(', name: /def ([a-z][a-z0-9_]+)\(/, files: ['*.py'] },
  go: { grep: '^func (\\([^)]*\\) )?[A-Za-z][A-Za-z0-9]{5,}\\(', name: /func (?:\([^)]*\) )?(\w+)\(/, files: ['*.go'] },
  rs: { grep: '^\\s*(pub(\\([a-z]+\\))? )?fn [a-z][a-z0-9_]{5,}', name: /fn ([a-z]\w+)/, files: ['*.rs'] },
  ts: {
    grep: '^\\s*(export )?(async )?function [A-Za-z][A-Za-z0-9]{5,}|^\\s*export const [A-Za-z][A-Za-z0-9]{5,} =',
    name: /(?:function|const) ([A-Za-z]\w+)/,
    files: ['*.ts', '*.js', '*.mjs'],
  },
  java: {
    grep: '^\\s*((public|protected|private|static|final|synchronized|abstract)\\s+)+[A-Za-z][][A-Za-z0-9<>,? ]*\\s+[a-z][A-Za-z0-9]{5,}\\(',
    name: /\s([a-z]\w+)\(/,
    files: ['*.java'],
  },
  cs: {
    grep: '^\\s*((public|internal|protected|private|static|virtual|override|async|sealed|abstract)\\s+)+[A-Za-z][][A-Za-z0-9<>,? ]*\\s+[A-Z][A-Za-z0-9]{5,}\\(',
    name: /\s([A-Z]\w+)\(/,
    files: ['*.cs'],
  },
  rb: {
    grep: '^\\s*def (self\\.)?[a-z][a-z0-9_]{5,}[?!]?(\\(|\\s|$)',
    name: /def (?:self\.)?([a-z]\w+[?!]?)/,
    files: ['*.rb'],
  },
  php: {
    grep: '^\\s*((public|protected|private|static|abstract|final)\\s+)*function [a-zA-Z][A-Za-z0-9]{5,}\\(',
    name: /function ([A-Za-z]\w+)\(/,
    files: ['*.php'],
  },
  kt: {
    grep: '^\\s*((public|private|internal|protected|override|suspend|inline|actual|expect|open|operator|infix)\\s+)*fun (<[^>]+>\\s*)?([A-Za-z][A-Za-z0-9]*\\.)?[a-z][A-Za-z0-9]{5,}\\(',
    name: /fun (?:<[^>]+>\s*)?(?:[A-Za-z][A-Za-z0-9]*\.)?([a-z]\w+)\(/,
    files: ['*.kt', '*.kts'],
  },
  ex: {
    grep: '^\\s*defp? [a-z][a-z0-9_]{5,}[?!]?(\\(|\\s|,|$)',
    name: /defp? ([a-z]\w+[?!]?)/,
    files: ['*.ex', '*.exs'],
  },
  swift: {
    grep: '^\\s*((public|private|internal|fileprivate|open|static|class|final|override|mutating|nonisolated|@\\w+)\\s+)*func [a-z][A-Za-z0-9]{5,}(<[^>]*>)?\\(',
    name: /func ([a-z]\w+)/,
    files: ['*.swift'],
  },
  lua: {
    grep: '^\\s*(local\\s+)?function\\s+([A-Za-z_]\\w*[.:])*[a-z][a-z0-9_]{5,}\\s*\\(',
    name: /function\s+(?:[A-Za-z_]\w*[.:])*([a-z]\w+)\s*\(/,
    files: ['*.lua'],
  },
  c: {
    grep: '^((static|inline|extern|const|unsigned|signed|struct|enum)\\s+)*[A-Za-z_][A-Za-z0-9_]*[ *]+[a-z][a-z0-9_]{5,}\\([^;=]*$|^[a-z][a-z0-9_]{5,}\\([^;=]*$',
    name: /([a-z][a-z0-9_]{5,})\(/,
    files: ['*.c', '*.h'],
    notDefinition: STATEMENT_START,
  },
  cpp: {
    grep: '^\\s*((static|inline|constexpr|virtual|explicit|template\\s*<[^>]*>|[A-Z][A-Z0-9_]{2,})\\s+)*[A-Za-z_][A-Za-z0-9_:<>,]*[ *&]+([A-Za-z_]\\w*::)?[a-z][a-z0-9_]{5,}\\([^;=]*$',
    name: /([a-z][a-z0-9_]{5,})\(/,
    files: ['*.cpp', '*.cc', '*.cxx', '*.hpp', '*.hh', '*.h'],
    notDefinition: STATEMENT_START,
  },
  scala: {
    grep: '^\\s*((override|private|protected|final|implicit|inline|private\\[\\w+\\]|protected\\[\\w+\\])\\s+)*def [a-z][A-Za-z0-9]{5,}',
    name: /def ([a-z]\w+)/,
    files: ['*.scala', '*.sc'],
  },
  dart: {
    grep: '^\\s*((static|external|abstract)\\s+)?[A-Za-z_][A-Za-z0-9_<>?, ]*\\s+[a-z][A-Za-z0-9]{5,}\\([^;=]*$',
    name: /\s([a-z]\w+)\(/,
    files: ['*.dart'],
    notDefinition: STATEMENT_START,
  },
  hs: {
    grep: "^[a-z][A-Za-z0-9_']{5,}\\s*::",
    name: /^([a-z][\w']*)/,
    files: ['*.hs'],
    isCall: (text, name) => !text.startsWith(name) && !/^\s*(--|import\b)/.test(text),
  },
  zig: {
    grep: '^\\s*(pub\\s+)?((inline|export|extern)\\s+)?fn [a-zA-Z][A-Za-z0-9_]{5,}\\(',
    name: /fn (\w+)\(/,
    files: ['*.zig'],
  },
  erl: { grep: '^[a-z][a-z0-9_]{5,}\\(', name: /^([a-z]\w+)\(/, files: ['*.erl', '*.hrl'] },
  clj: {
    grep: '^\\(defn-?\\s+[a-z][a-z0-9-]{5,}[!?]?(\\s|$)',
    name: /\(defn-?\s+([a-z][\w-]*[!?]?)/,
    files: ['*.clj', '*.cljc', '*.cljs'],
    isCall: (text, name) => text.includes(`(${name} `) || text.includes(`(${name})`),
  },
  ml: {
    grep: "^(let|and)( rec)? [a-z][a-z0-9_']{5,}( |$)",
    name: /^(?:let|and)(?: rec)? ([a-z][\w']*)/,
    files: ['*.ml'],
    // OCaml applies a function without parentheses: any use that is not a binding, a signature or a comment.
    isCall: (text, name) =>
      !new RegExp(`^\\s*(let|and|val|external)( rec)? ${name}\\b`).test(text) && !/^\s*\(\*/.test(text),
  },
  pl: {
    grep: '^\\s*sub [a-z][a-z0-9_]{5,}\\b',
    name: /sub ([a-z]\w+)/,
    files: ['*.pm', '*.pl'],
    isCall: (text, name) => !/^\s*(sub|#)/.test(text) && (text.includes(`${name}(`) || text.includes(`->${name}`)),
  },
  r: {
    grep: '^[a-z][A-Za-z0-9_.]{5,}\\s*<-\\s*function\\b',
    name: /^([a-z][\w.]*)\s*<-/,
    files: ['*.R', '*.r'],
  },
  jl: {
    grep: '^\\s*function [a-z][a-z0-9_!]{5,}\\(',
    name: /function ([a-z][\w!]*)\(/,
    files: ['*.jl'],
  },
};

const TEST_PATH =
  /(^|\/)(tests?|__tests__|testdata|spec|Tests)\/|(^|\/)[a-z]+Test\/|_spec\.(rb|lua)$|[._-]test\.\w+$|_test\.go$|(^|\/)test_[^/]+$|\.Tests?\/|Tests?\.(java|cs|swift|kt)$|\.t$/;
const DOC = /\.(md|rst|txt)$/;

interface GrepLine {
  rel: string;
  line: number;
  text: string;
}

/**
 * Files no developer reads to answer a question: build output (`dist/`, bundles, minified files, source maps),
 * vendored or installed packages, and files generated by name. A fact comes from a file someone wrote.
 */
const NOT_WRITTEN =
  /(^|\/)(dist|vendor|node_modules)\/|\.(min|bundle)\.[cm]?js$|[.-]bundle\.[cm]?js$|\.map$|_pb2\.py$|\.pb\.go$|\.generated\.\w+$/;
/** A line this long is minified or data, not a line anyone wrote. */
const MAX_FACT_LINE = 400;

function grepLines(dir: string, args: string[]): GrepLine[] {
  const out = git(dir, 'grep', '-n', '-I', '--untracked', '--exclude-standard', ...args);
  return out
    .split('\n')
    .filter(Boolean)
    .map((record) => {
      const m = /^(.*?):(\d+):(.*)$/.exec(record);
      return m ? { rel: m[1] as string, line: Number(m[2]), text: m[3] as string } : undefined;
    })
    .filter((x): x is GrepLine => x !== undefined && !NOT_WRITTEN.test(x.rel) && x.text.length <= MAX_FACT_LINE);
}

interface Symbol {
  name: string;
  def: GrepLine;
  callers: GrepLine[];
}

/** Functions defined once, used (called) elsewhere a few times. */
function symbols(dir: string, lang: Language): Symbol[] {
  const spec = DEFINITION[lang];
  const defs = grepLines(dir, ['-E', spec.grep, '--', ...spec.files]).filter((d) => !TEST_PATH.test(d.rel));
  const byName = new Map<string, GrepLine[]>();
  for (const def of defs) {
    const name = spec.name.exec(def.text)?.[1];
    if (!name || /^(test|main|init|new|setup)/i.test(name) || spec.notDefinition?.test(def.text)) continue;
    byName.set(name, [...(byName.get(name) ?? []), def]);
  }
  const out: Symbol[] = [];
  for (const [name, list] of shuffled([...byName], ([n]) => n)) {
    if (list.length !== 1 || out.length >= 16) continue;
    const def = list[0] as GrepLine;
    const uses = grepLines(dir, ['-w', '-F', '-e', name]).filter(
      (u) =>
        !(u.rel === def.rel && u.line === def.line) &&
        !DOC.test(u.rel) &&
        (spec.isCall ? spec.isCall(u.text, name) : u.text.includes(`${name}(`)),
    );
    if (uses.length < 1 || uses.length > 12) continue;
    if (def.text.trim().length > 160 || uses.some((u) => u.text.trim().length > 200)) continue;
    out.push({ name, def, callers: uses });
  }
  return out;
}

/** Up to `n` lines from distinct files first. */
function spread(lines: GrepLine[], n: number): GrepLine[] {
  const chosen: GrepLine[] = [];
  const files = new Set<string>();
  for (const line of lines) {
    if (files.has(line.rel) || chosen.length >= n) continue;
    chosen.push(line);
    files.add(line.rel);
  }
  for (const line of lines) if (!chosen.includes(line) && chosen.length < n) chosen.push(line);
  return chosen;
}

const fact = (line: GrepLine) => line.text.trim();

function dependencyQuestion(dir: string): BenchQuestion | undefined {
  const read = (rel: string) =>
    fs.existsSync(path.join(dir, rel)) ? fs.readFileSync(path.join(dir, rel), 'utf8') : '';
  const candidates: { name: string; version: string }[] = [];
  const pkg = read('package.json');
  if (pkg) {
    const json = JSON.parse(pkg) as Record<string, Record<string, string>>;
    for (const [name, version] of Object.entries({ ...json.dependencies, ...json.devDependencies })) {
      candidates.push({ name, version });
    }
  }
  for (const m of read('go.mod').matchAll(/^\s*(?:require\s+)?([\w.-]+\/[\w./-]+)\s+(v[\w.+-]+)/gm)) {
    candidates.push({ name: m[1] as string, version: m[2] as string });
  }
  const cargo = read('Cargo.toml');
  for (const m of cargo.matchAll(/^([a-z][\w-]+)\s*=\s*(?:"([^"]+)"|\{[^}]*version\s*=\s*"([^"]+)")/gm)) {
    candidates.push({ name: m[1] as string, version: (m[2] ?? m[3]) as string });
  }
  for (const m of read('pyproject.toml').matchAll(/^\s*"([A-Za-z][\w.-]+)\s*([<>=!~][^";]+)"/gm)) {
    candidates.push({ name: m[1] as string, version: (m[2] as string).trim() });
  }
  // The other ecosystems' manifests, asked about only where the four above name nothing (so the questions of
  // repositories measured before stay the same).
  if (candidates.length === 0) candidates.push(...otherManifests(dir, read));
  const pick = shuffled(
    candidates.filter((c) => c.version.length >= 2 && !/workspace|path|\$/.test(c.version)),
    (c) => c.name,
  )[0];
  if (!pick) return undefined;
  const short = pick.name.split('/').at(-1) as string;
  return {
    id: `version:${short}`,
    kind: 'version',
    turns: [`Which version of ${short} does this project depend on?`],
    facts: [pick.version],
  };
}

/** Dependencies with a version in Maven, Gradle, NuGet, Bundler, Composer, Mix, SwiftPM, LuaRocks and pip manifests. */
function otherManifests(dir: string, read: (rel: string) => string): { name: string; version: string }[] {
  const out: { name: string; version: string }[] = [];
  const files = git(dir, 'ls-files')
    .split('\n')
    .filter((rel) => rel && !TEST_PATH.test(rel) && !/example|sample/i.test(rel));
  const add = (name: string | undefined, version: string | undefined) => {
    if (name && version) out.push({ name, version: version.trim() });
  };
  for (const rel of files) {
    const base = path.posix.basename(rel);
    const at = (pattern: RegExp) => [...read(rel).matchAll(pattern)];
    if (base === 'pom.xml')
      for (const m of at(/<artifactId>([\w.-]+)<\/artifactId>\s*<version>([^<$]+)<\/version>/g)) add(m[1], m[2]);
    else if (/^build\.gradle(\.kts)?$/.test(base))
      for (const m of at(/["'][\w.-]+:([\w.-]+):(\d[\w.-]*)["']/g)) add(m[1], m[2]);
    else if (base === 'libs.versions.toml') {
      const versions = /\[versions\]([^[]*)/.exec(read(rel))?.[1] ?? '';
      for (const m of versions.matchAll(/^([\w.-]+)\s*=\s*"([^"]+)"/gm)) add(m[1], m[2]);
    } else if (/\.(csproj|props)$/.test(base))
      for (const m of at(/<Package(?:Reference|Version)\s+Include="([\w.-]+)"\s+Version="([^"$]+)"/g)) add(m[1], m[2]);
    else if (base === 'Gemfile' || base.endsWith('.gemspec'))
      for (const m of at(
        /(?:\bgem|add_(?:development_|runtime_)?dependency)[ (]+["']([\w-]+)["'],\s*["']([^"']+)["']/g,
      ))
        add(m[1], m[2]);
    else if (base === 'composer.json') {
      const json = JSON.parse(read(rel) || '{}') as Record<string, Record<string, string>>;
      for (const [name, version] of Object.entries({ ...json.require, ...json['require-dev'] }))
        if (name.includes('/')) add(name, version);
    } else if (base === 'mix.exs') for (const m of at(/\{:(\w+),\s*"([^"]+)"/g)) add(m[1], m[2]);
    else if (/^Package(@[\w.-]+)?\.swift$/.test(base))
      for (const m of at(
        /\.package\(\s*url:\s*"[^"]*\/([\w.-]+?)(?:\.git)?",\s*(?:from:\s*|\.upToNextM\w+\(from:\s*|exact:\s*)"([^"]+)"/g,
      ))
        add(m[1], m[2]);
    else if (base === 'pubspec.yaml') {
      for (const m of at(/^ {2}([a-z][a-z0-9_]*):\s*['"]?([\^>=<~]*\d[\w.+-]*(?:\s*<\s*[\d.]+)?)['"]?\s*$/gm))
        if (m[1] !== 'sdk' && m[1] !== 'flutter') add(m[1], m[2]);
    } else if (base === 'build.sbt' || /^project\/\w+\.scala$/.test(rel))
      for (const m of at(/"[\w.-]+"\s*%%?%?\s*"([\w.-]+)"\s*%\s*"(\d[^"]*)"/g)) add(m[1], m[2]);
    else if (base.endsWith('.cabal'))
      for (const m of at(
        /^\s*(?:build-depends:\s*)?,?\s*([a-z][\w-]+)\s+((?:\^?>=|==|>|<)\s*[\d.]+(?:\s*&&\s*<=?\s*[\d.]+)?)/gm,
      ))
        add(m[1], m[2]);
    else if (base === 'rebar.config') for (const m of at(/\{(\w+),\s*"(\d[^"]*)"\}/g)) add(m[1], m[2]);
    else if (base === 'Makefile' && read(rel).includes('erlang.mk'))
      for (const m of at(/^dep_(\w+)\s*=\s*(?:\w+\s+\S+\s+)?(\d[\w.-]*)\s*$/gm)) add(m[1], m[2]);
    else if (base === 'project.clj') for (const m of at(/\[(?:[\w.-]+\/)?([\w.-]+)\s+"(\d[^"]*)"/g)) add(m[1], m[2]);
    else if (base === 'deps.edn')
      for (const m of at(/([\w.-]+\/[\w.-]+)\s*\{:mvn\/version\s+"([^"]+)"/g)) add(m[1], m[2]);
    else if (base.endsWith('.opam') && !rel.includes('/'))
      for (const m of at(/^\s*"([a-z][\w-]*)"\s*\{[^}]*>=\s*"([^"]+)"/gm)) add(m[1], m[2]);
    else if (rel === 'cpanfile')
      for (const m of at(/\brequires\s+['"]([A-Z][\w:]+)['"]\s*(?:,|=>)\s*['"]?(\d[\d._]*)/g)) add(m[1], m[2]);
    else if (rel === 'Makefile.PL')
      for (const m of at(/['"]([A-Z][\w:]+)['"]\s*=>\s*['"]?(\d[\d._]*)/g)) add(m[1], m[2]);
    else if (rel === 'DESCRIPTION') for (const m of at(/\b([A-Za-z][\w.]+)\s*\(>=\s*([\d.-]+)\)/g)) add(m[1], m[2]);
    else if (rel === 'Project.toml') {
      const compat = /\[compat\]([^[]*)/.exec(read(rel))?.[1] ?? '';
      for (const m of compat.matchAll(/^(\w+)\s*=\s*"([^"]+)"/gm)) if (m[1] !== 'julia') add(m[1], m[2]);
    } else if (base.endsWith('.rockspec'))
      for (const m of at(/["']([a-z][\w-]*)\s*([<>=~][^"']+)["']/g))
        if (m[1] !== 'lua') add(m[1], m[2]);
        else if (/^requirements[\w.-]*\.txt$/.test(base))
          for (const m of at(/^([A-Za-z][\w.-]+)\s*((?:==|>=|~=)[^\s;#]+)/gm)) add(m[1], m[2]);
  }
  return out;
}

function lastCommitQuestion(dir: string): BenchQuestion {
  const subject = git(dir, 'log', '-1', '--format=%s').trim();
  const files = git(dir, 'show', '--name-only', '--format=', 'HEAD').split('\n').filter(Boolean).slice(0, 2);
  return {
    id: 'history:last-commit',
    kind: 'history',
    turns: ['What did the last commit change?'],
    facts: [subject.slice(0, 60), ...files],
  };
}

function testCommandQuestion(dir: string): BenchQuestion | undefined {
  const read = (rel: string) =>
    fs.existsSync(path.join(dir, rel)) ? fs.readFileSync(path.join(dir, rel), 'utf8') : '';
  let command: string | undefined;
  const pkg = read('package.json');
  if (pkg) command = (JSON.parse(pkg) as { scripts?: Record<string, string> }).scripts?.test;
  if (!command) {
    const make = /^test:.*\n((?:\t.*\n?)+)/m.exec(read('Makefile'));
    command = make?.[1]?.split('\n')[0]?.replace(/^\t@?/, '').trim();
  }
  if (!command) {
    for (const rel of git(dir, 'ls-files', '.github/workflows').split('\n').filter(Boolean).sort()) {
      const run = /^\s*(?:-\s*)?run:\s*(.*\b(?:test|pytest|tox|nox)\b.*)$/m.exec(read(rel));
      if (run?.[1] && !run[1].includes('|')) {
        command = run[1].trim();
        break;
      }
    }
  }
  if (!command) return undefined;
  return { id: 'build:run-tests', kind: 'tests-run', turns: ['How do I run the test suite?'], facts: [command] };
}

const ENV_READ: Partial<Record<Language, string>> = {
  py: 'os\\.environ(\\.get)?[\\[(]["\'][A-Z][A-Z0-9_]{3,}|os\\.getenv\\(["\'][A-Z][A-Z0-9_]{3,}',
  go: 'os\\.(Getenv|LookupEnv)\\("[A-Z][A-Z0-9_]{3,}',
  rs: 'env::var(_os)?\\("[A-Z][A-Z0-9_]{3,}',
  ts: 'process\\.env\\.[A-Z][A-Z0-9_]{3,}|process\\.env\\[["\'][A-Z][A-Z0-9_]{3,}',
  java: 'System\\.getenv\\("[A-Z][A-Z0-9_]{3,}',
  cs: 'Environment\\.GetEnvironmentVariable\\("[A-Z][A-Z0-9_]{3,}',
  rb: 'ENV(\\.fetch)?[\\[(]\\s*["\'][A-Z][A-Z0-9_]{3,}',
  php: 'getenv\\(\\s*["\'][A-Z][A-Z0-9_]{3,}|\\$_ENV\\[\\s*["\'][A-Z][A-Z0-9_]{3,}',
  kt: 'System\\.getenv\\("[A-Z][A-Z0-9_]{3,}',
  ex: 'System\\.(get_env|fetch_env!?)\\(\\s*"[A-Z][A-Z0-9_]{3,}',
  swift: 'environment\\["[A-Z][A-Z0-9_]{3,}',
  lua: 'os\\.getenv\\(\\s*["\'][A-Z][A-Z0-9_]{3,}',
  c: '\\bgetenv\\(\\s*"[A-Z][A-Z0-9_]{3,}',
  cpp: '\\bgetenv\\(\\s*"[A-Z][A-Z0-9_]{3,}',
  scala: '(sys\\.env(\\.get)?|System\\.getenv)\\(\\s*"[A-Z][A-Z0-9_]{3,}',
  dart: '(Platform\\.environment\\[|fromEnvironment\\()\\s*[\'"][A-Z][A-Z0-9_]{3,}',
  hs: '(getEnv|lookupEnv)\\s+"[A-Z][A-Z0-9_]{3,}',
  zig: '(getEnvVarOwned\\([^,]*,\\s*|getenv\\(\\s*)"[A-Z][A-Z0-9_]{3,}',
  erl: 'os:getenv\\(\\s*"[A-Z][A-Z0-9_]{3,}',
  clj: 'System/getenv\\s+"[A-Z][A-Z0-9_]{3,}',
  ml: 'Sys\\.getenv(_opt)?\\s+"[A-Z][A-Z0-9_]{3,}',
  pl: '\\$ENV\\{\\s*["\']?[A-Z][A-Z0-9_]{3,}',
  r: 'Sys\\.getenv\\(\\s*["\'][A-Z][A-Z0-9_]{3,}',
  jl: 'ENV\\[\\s*"[A-Z][A-Z0-9_]{3,}|get\\(ENV,\\s*"[A-Z][A-Z0-9_]{3,}',
};

function envQuestion(dir: string, lang: Language): BenchQuestion | undefined {
  const spec = ENV_READ[lang];
  if (!spec) return undefined;
  const hits = grepLines(dir, ['-E', spec]).filter((h) => !DOC.test(h.rel) && h.text.trim().length < 200);
  const withName = hits
    .map((h) => ({
      h,
      name: /([A-Z][A-Z0-9_]{3,})/.exec(
        h.text.replace(/^.*?(environ|getenv|Getenv|LookupEnv|var|env|getEnv|lookupEnv|fromEnvironment)/, ''),
      )?.[1],
    }))
    .filter((x): x is { h: GrepLine; name: string } => x.name !== undefined);
  const pick = shuffled(withName, (x) => x.name)[0];
  if (!pick) return undefined;
  const lines = withName.filter((x) => x.name === pick.name).map((x) => x.h);
  return {
    id: `config:${pick.name}`,
    kind: 'config',
    turns: [`Where is the environment variable ${pick.name} read?`],
    facts: spread(lines, 2).map(fact),
  };
}

const ERROR_LITERAL: Partial<Record<Language, string>> = {
  py: 'raise [A-Za-z]+(Error|Exception)\\(\\s*["\'][A-Za-z][^"\'{}%]{18,70}["\']',
  go: '(errors\\.New|fmt\\.Errorf)\\("[A-Za-z][^"%]{18,70}"',
  rs: '(panic!|bail!|anyhow!|format_err!|err_msg)\\("[A-Za-z][^"{}]{18,70}"',
  ts: 'new [A-Za-z]*Error\\(\\s*[\'"`][A-Za-z][^\'"`$]{18,70}[\'"`]',
  java: 'throw new [A-Za-z]*(Exception|Error)\\(\\s*"[A-Za-z][^"]{18,70}"',
  cs: 'throw new [A-Za-z]*Exception\\(\\s*"[A-Za-z][^"{}]{18,70}"',
  rb: 'raise\\s+([A-Z][\\w:]*,\\s*|[A-Z][\\w:]*\\.new\\(\\s*)?["\'][A-Za-z][^"\'#{}]{18,70}["\']',
  php: 'throw new [A-Za-z\\\\]*(Exception|Error)\\(\\s*["\'][A-Za-z][^"\'$%{}]{18,70}["\']',
  kt: '(throw [A-Za-z]*(Exception|Error)|error|requireNotNull|checkNotNull)\\(\\s*"[A-Za-z][^"$]{18,70}"',
  ex: 'raise\\s+([A-Z][\\w.]*,\\s*(message:\\s*)?)?"[A-Za-z][^"#{}]{18,70}"',
  swift: '(fatalError|preconditionFailure|precondition|assertionFailure)\\(([^"]*,\\s*)?"[A-Za-z][^"\\\\]{18,70}"',
  lua: '\\berror\\(\\s*["\'][A-Za-z][^"\'%]{18,70}["\']',
  c: '\\b(error|die|fatal|errx?|panic|[a-z_]+_error)\\s*\\((\\s*[a-z_]+,)?\\s*"[A-Za-z][^"%]{18,70}"',
  cpp: '\\b[\\w:]*(_error|_exception|Error|Exception)\\(\\s*"[A-Za-z][^"%{}]{18,70}"',
  scala:
    '(throw new [A-Za-z]*(Exception|Error)\\(|sys\\.error\\(|\\b[A-Z]\\w*(Failure|Error|Exception)\\()\\s*"[A-Za-z][^"$]{18,70}"',
  dart: '\\b[A-Z]\\w*(Exception|Error)\\(\\s*[\'"][A-Za-z][^\'"$]{18,70}[\'"]',
  hs: '\\b(error|fail|throwError|die|errorWithoutStackTrace)\\s*\\$?\\s*"[A-Za-z][^"]{18,70}"',
  zig: '(@panic|std\\.debug\\.panic|fatal)\\(\\s*"[A-Za-z][^"{}]{18,70}"',
  erl: '\\b(error|throw|exit)\\(\\s*"[A-Za-z][^"~]{18,70}"',
  clj: '(ex-info|Exception\\.|Error\\.)\\s+"[A-Za-z][^"]{18,70}"',
  ml: '\\b(failwith|invalid_arg|Failure|Invalid_argument)\\s*\\(?\\s*"[A-Za-z][^"%]{18,70}"',
  pl: '\\b(die|croak|confess)\\s*\\(?\\s*["\'][A-Za-z][^"\'$@%]{18,70}["\']',
  r: '\\b(stop|abort|cli_abort)\\(\\s*["\'][A-Za-z][^"\'{}%]{18,70}["\']',
  jl: '\\b(error|[A-Z]\\w*Error)\\(\\s*"[A-Za-z][^"$]{18,70}"',
};

function errorQuestion(dir: string, lang: Language): BenchQuestion | undefined {
  const spec = ERROR_LITERAL[lang];
  if (!spec) return undefined;
  const hits = grepLines(dir, ['-E', spec]).filter((h) => !TEST_PATH.test(h.rel) && !DOC.test(h.rel));
  const pick = shuffled(hits, (h) => h.text)[0];
  if (!pick) return undefined;
  const message = /["'`]([A-Za-z][^"'`]{18,70})["'`]/.exec(pick.text)?.[1];
  if (!message) return undefined;
  return {
    id: `error:${message.slice(0, 20)}`,
    kind: 'error',
    turns: [`I get this error:\n\nError: ${message}\n\nWhere does it come from?`],
    facts: [fact(pick)],
  };
}

/** A named file's line well past its head: a file named goes whole when there is room. */
function namedFileQuestion(dir: string, lang: Language): BenchQuestion | undefined {
  const files = git(dir, 'ls-files', ...DEFINITION[lang].files)
    .split('\n')
    .filter((rel) => rel && !TEST_PATH.test(rel));
  for (const rel of shuffled(files, (f) => f)) {
    const lines = fs.readFileSync(path.join(dir, rel), 'utf8').split('\n');
    if (lines.length < 120 || lines.length > 400) continue;
    const at = Math.floor(lines.length * 0.7);
    const line = lines.slice(at).find((l) => l.trim().length >= 25 && l.trim().length <= 150);
    if (!line) continue;
    return { id: `file:${rel}`, kind: 'named-file', turns: [`Walk me through ${rel}.`], facts: [line.trim()] };
  }
  return undefined;
}

/** What the preparation put in the repository (prepare.ts), for the questions about the developer's own state. */
export interface RepoState {
  editedLine: string;
  stagedLine: string;
  branchSubject: string;
  branchLine: string;
  defaultBranch: string;
}

/**
 * Kinds held back while building retrieval: generated and scored like the
 * others, but their misses were not looked at before the held-out figures
 * were taken (README: how held out they are).
 */
export const HELD_OUT_KINDS = new Set([
  'implementers',
  'lint-command',
  'log-string',
  'test-asserts',
  'env-list',
  'function-author',
  'follow-up-history',
  'typo-name',
  'tag-diff',
  // Added in the third round (2026-12-07), never tuned on.
  'instantiations',
  'catch-site',
]);

const read = (dir: string, rel: string) =>
  fs.existsSync(path.join(dir, rel)) ? fs.readFileSync(path.join(dir, rel), 'utf8') : '';

/** `parse_header_links` / `parseHeaderLinks` → `['parse', 'header', 'links']`. */
export const nameParts = (name: string) =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[\s_]+/)
    .filter(Boolean)
    .map((part) => part.toLowerCase());

/** The parameters a function takes: its signature line. The name is written bare, as in a chat. */
function signatureQuestion(sym: Symbol): BenchQuestion {
  return {
    id: `signature:${sym.name}`,
    kind: 'signature',
    turns: [`What arguments does ${sym.name} take and what does it return?`],
    facts: [fact(sym.def)],
  };
}

/** A function named in prose by the words of its name ("the header links parsing"), not by the identifier. */
function proseNameQuestion(syms: Symbol[]): BenchQuestion | undefined {
  const sym = syms.find((s) => nameParts(s.name).length >= 3) ?? syms.find((s) => nameParts(s.name).length === 2);
  if (!sym) return undefined;
  const words = nameParts(sym.name).join(' ');
  return {
    id: `prose:${sym.name}`,
    kind: 'prose-name',
    turns: [`Where is the code that does the ${words} part? I can't find it.`],
    facts: [fact(sym.def)],
  };
}

/** The name spelled in the other case convention (`parse_header_links` ↔ `parseHeaderLinks`), or all lower-case. */
function caseVariantQuestion(syms: Symbol[]): BenchQuestion | undefined {
  const sym = syms.find((s) => nameParts(s.name).length >= 2);
  if (!sym) return undefined;
  const parts = nameParts(sym.name);
  const variant = sym.name.includes('_')
    ? parts.map((p, i) => (i === 0 ? p : `${p[0]?.toUpperCase()}${p.slice(1)}`)).join('')
    : parts.join('_');
  return {
    id: `case:${sym.name}`,
    kind: 'case-variant',
    turns: [`where's ${variant} defined?`],
    facts: [fact(sym.def)],
  };
}

/** One character dropped from the middle of the name, as a hurried typist does. */
function typoQuestion(syms: Symbol[]): BenchQuestion | undefined {
  const sym = syms.find((s) => s.name.length >= 9);
  if (!sym) return undefined;
  const at = Math.floor(sym.name.length / 2);
  const typo = sym.name.slice(0, at) + sym.name.slice(at + 1);
  return {
    id: `typo:${sym.name}`,
    kind: 'typo-name',
    turns: [`What does ${typo} do?`],
    facts: [fact(sym.def)],
  };
}

const CONSTANT: Partial<Record<Language, string>> = {
  py: '^[A-Z][A-Z0-9_]{4,}\\s*(:[^=]+)?=\\s*[0-9"\'(\\[{A-Za-z-]',
  go: '^\\s*(const\\s+)?[A-Za-z][A-Za-z0-9]{4,}(\\s+[a-z][\\w.]*)?\\s+=\\s+[0-9"]',
  rs: '^\\s*(pub(\\([a-z]+\\))?\\s+)?(const|static)\\s+[A-Z][A-Z0-9_]{4,}\\s*:',
  ts: '^(export\\s+)?const\\s+[A-Za-z][A-Za-z0-9_]{4,}\\s*(:[^=]+)?=\\s*[0-9"\'`-]',
  java: '\\bstatic\\s+final\\s+[A-Za-z<>\\[\\]]+\\s+[A-Z][A-Z0-9_]{4,}\\s*=',
  cs: '\\bconst\\s+[A-Za-z]+\\s+[A-Z][A-Za-z0-9_]{4,}\\s*=',
  rb: '^\\s*[A-Z][A-Z0-9_]{4,}\\s*=\\s*[0-9"\'\\[{:A-Za-z-]',
  php: '\\bconst\\s+[A-Z][A-Z0-9_]{4,}\\s*=',
  kt: '\\bconst\\s+val\\s+[A-Z][A-Za-z0-9_]{4,}\\s*(:[^=]+)?=',
  ex: '^\\s*@[a-z][a-z0-9_]{4,}\\s+[0-9"%~:[]',
  swift:
    '^\\s*((public|private|internal|fileprivate|static|nonisolated)\\s+)*let\\s+[a-zA-Z][A-Za-z0-9]{4,}\\s*(:[^=]+)?=\\s*[0-9"]',
  lua: '^\\s*(local\\s+)?([A-Za-z_]\\w*\\.)?[A-Z][A-Z0-9_]{4,}\\s*=\\s*[0-9"\'{]',
  c: '^#define\\s+[A-Z][A-Z0-9_]{4,}\\s+[0-9"(-]',
  cpp: '^#define\\s+[A-Z][A-Z0-9_]{4,}\\s+[0-9"(-]|\\bconstexpr\\s+[A-Za-z_][\\w:<>]*\\s+[A-Za-z_][A-Za-z0-9_]{4,}\\s*=\\s*[0-9"\'-]',
  scala: '^\\s*((private|protected|final|override)\\s+)*val\\s+[A-Z][A-Za-z0-9_]{4,}\\s*(:[^=]+)?=\\s*[0-9"]',
  dart: '\\b(static\\s+)?const\\s+([A-Za-z<>]+\\s+)?[A-Za-z_][A-Za-z0-9_]{4,}\\s*=\\s*[0-9\'"-]',
  hs: '^[a-z][A-Za-z0-9_\']{4,}\\s*=\\s*[0-9"]',
  zig: '^\\s*(pub\\s+)?const\\s+[A-Za-z_][A-Za-z0-9_]{4,}\\s*(:[^=]+)?=\\s*[0-9"-]',
  erl: '^-define\\(\\s*[A-Z_][A-Z0-9_]{4,}\\s*,\\s*[0-9"<]',
  clj: '^\\(def\\s+(\\^:[a-z-]+\\s+)*[a-z][a-z0-9-]{4,}\\s+[0-9"#{:[]',
  ml: '^let\\s+[a-z][a-z0-9_]{4,}\\s*=\\s*[0-9"]',
  pl: '^use\\s+constant\\s+[A-Z][A-Z0-9_]{4,}\\s*=>',
  jl: '^\\s*const\\s+[A-Za-z_][A-Za-z0-9_]{4,}\\s*=\\s*[0-9"]',
};

/** The constant's name, where the declaration has no `=` after it. */
const CONSTANT_NAME: Partial<Record<Language, RegExp>> = {
  ex: /@([a-z][a-z0-9_]{4,})/,
  c: /#define\s+([A-Z][A-Z0-9_]{4,})/,
  cpp: /(?:#define\s+|constexpr\s+[A-Za-z_][\w:<>]*\s+)([A-Za-z_][A-Za-z0-9_]{4,})/,
  scala: /val\s+([A-Z]\w{4,})/,
  dart: /const\s+(?:[A-Za-z<>]+\s+)?([A-Za-z_]\w{4,})\s*=/,
  hs: /^([a-z][\w']{4,})/,
  erl: /-define\(\s*(\w{5,})/,
  clj: /\(def\s+(?:\^\S+\s+)*([a-z][\w-]{4,})/,
  ml: /^let\s+([a-z]\w{4,})/,
  pl: /use\s+constant\s+([A-Z]\w{4,})/,
};

/** The default value of a constant: its declaration line. */
function constantQuestion(dir: string, lang: Language): BenchQuestion | undefined {
  const spec = DEFINITION[lang].files;
  const shape = CONSTANT[lang];
  if (!shape) return undefined;
  const lines = grepLines(dir, ['-E', shape, '--', ...spec]).filter(
    (l) => !TEST_PATH.test(l.rel) && l.text.trim().length <= 160 && !/BENCH_|bench[A-Z]/.test(l.text),
  );
  const named = lines
    .map((l) => ({
      l,
      name: CONSTANT_NAME[lang]
        ? CONSTANT_NAME[lang].exec(l.text)?.[1]
        : /([A-Za-z][A-Za-z0-9_]{4,})\s*(?::[^=]+)?=/.exec(
            l.text.replace(lang === 'swift' ? /^.*?\blet\b/ : /^.*?\b(const|static|final)\b/, ''),
          )?.[1],
    }))
    .filter((x): x is { l: GrepLine; name: string } => x.name !== undefined);
  for (const { l, name } of shuffled(named, (x) => x.name)) {
    if (named.filter((x) => x.name === name).length !== 1) continue;
    return {
      id: `constant:${name}`,
      kind: 'constant',
      turns: [`What's the default value of ${name}?`],
      facts: [fact(l)],
    };
  }
  return undefined;
}

/** What the developer has staged: the staged line. */
function stagedQuestion(state: RepoState): BenchQuestion {
  return {
    id: 'worktree:staged',
    kind: 'staged',
    turns: ['What have I staged for the next commit?'],
    facts: [state.stagedLine],
  };
}

/** What the branch changes against the default branch: its commit's subject and line. */
function branchQuestion(state: RepoState): BenchQuestion {
  return {
    id: 'branch:vs-default',
    kind: 'branch-diff',
    turns: [`What does my branch change compared to ${state.defaultBranch}?`],
    facts: [state.branchSubject, state.branchLine],
  };
}

/** When a named file last changed and why: the subject of its last commit. */
function fileHistoryQuestion(dir: string, lang: Language): BenchQuestion | undefined {
  const branchFiles = new Set(git(dir, 'show', '--name-only', '--format=', 'HEAD').split('\n'));
  const files = git(dir, 'ls-files', ...DEFINITION[lang].files)
    .split('\n')
    .filter((rel) => rel && !TEST_PATH.test(rel) && !branchFiles.has(rel));
  const rel = shuffled(files, (f) => `history:${f}`)[0];
  if (!rel) return undefined;
  const subject = git(dir, 'log', '-1', '--format=%s', '--', rel).trim();
  if (subject.length < 8) return undefined;
  return {
    id: `file-history:${rel}`,
    kind: 'file-history',
    turns: [`When was ${rel} last changed, and what was that change about?`],
    facts: [subject.slice(0, 60)],
  };
}

/**
 * Which commit introduced a line that is still in the code, and why: an added line of one of the recent
 * commits (not the branch's own), present once in its file at HEAD, that `git log -S` finds added by that
 * commit only; the fact is the commit's subject.
 */
function commitOfLineQuestion(dir: string, lang: Language): BenchQuestion | undefined {
  const exts = DEFINITION[lang].files;
  const shas = git(dir, 'rev-list', '--no-merges', '-n300', 'HEAD~1').split('\n').filter(Boolean);
  for (const sha of shuffled(shas, (s) => `line:${s}`).slice(0, 12)) {
    const subject = git(dir, 'log', '-1', '--format=%s', sha).trim();
    if (subject.length < 10) continue;
    const candidates: { rel: string; text: string }[] = [];
    let rel = '';
    for (const line of git(dir, 'show', '--format=', '--unified=0', '--no-color', sha, '--', ...exts).split('\n')) {
      if (line.startsWith('+++ ')) rel = line.startsWith('+++ b/') ? line.slice(6) : '';
      else if (line.startsWith('+') && rel && !TEST_PATH.test(rel)) {
        const text = line.slice(1).trim();
        if (text.length < 25 || text.length > 100 || text.includes('`') || !/[A-Za-z_]{4,}/.test(text)) continue;
        if (/^(?:\/\/|#|\*|\/\*|--)/.test(text)) continue;
        candidates.push({ rel, text });
      }
    }
    for (const c of shuffled(candidates, (x) => `line:${x.rel}:${x.text}`).slice(0, 4)) {
      const present = git(dir, 'grep', '-F', '-c', '-e', c.text, 'HEAD', '--', c.rel).trim();
      if (!present.endsWith(':1')) continue;
      const adds = git(dir, 'log', '--format=%H', `-S${c.text}`, 'HEAD', '--', c.rel).split('\n').filter(Boolean);
      if (adds.length !== 1 || adds[0] !== sha) continue;
      return {
        id: `commit-of-line:${c.rel}`,
        kind: 'commit-of-line',
        turns: [`Which commit introduced this line in ${c.rel}, and why?\n\`${c.text}\``],
        facts: [subject.slice(0, 60)],
      };
    }
  }
  return undefined;
}

/** What changed in a file recently and why: the subjects of its two newest commits (the branch's own aside). */
function fileRecentQuestion(dir: string, lang: Language): BenchQuestion | undefined {
  const branchFiles = new Set(git(dir, 'show', '--name-only', '--format=', 'HEAD').split('\n'));
  const recent = git(
    dir,
    'log',
    '-n100',
    '--no-merges',
    '--format=',
    '--name-only',
    'HEAD~1',
    '--',
    ...DEFINITION[lang].files,
  )
    .split('\n')
    .filter((rel) => rel && !branchFiles.has(rel) && !TEST_PATH.test(rel));
  for (const rel of shuffled([...new Set(recent)], (f) => `recent:${f}`).slice(0, 10)) {
    const subjects = git(dir, 'log', '-2', '--format=%s', 'HEAD', '--', rel).split('\n').filter(Boolean);
    if (subjects.length < 2 || subjects.some((s) => s.length < 10) || subjects[0] === subjects[1]) continue;
    return {
      id: `file-recent:${rel}`,
      kind: 'file-recent',
      turns: [`What changed in ${rel} recently, and why?`],
      facts: subjects.map((s) => s.slice(0, 60)),
    };
  }
  return undefined;
}

/** The license: the first line of the license file. */
function licenseQuestion(dir: string): BenchQuestion | undefined {
  const rel = git(dir, 'ls-files')
    .split('\n')
    .find((f) => /^(LICEN[CS]E|COPYING)(\.\w+)?$/i.test(f));
  if (!rel) return undefined;
  const first = read(dir, rel)
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l.length >= 3);
  if (!first) return undefined;
  return {
    id: 'license',
    kind: 'license',
    turns: ['Which license is this project released under? Can I use it at work?'],
    facts: [first.slice(0, 80)],
  };
}

/** The minimum language or runtime version, from the manifest. */
function runtimeQuestion(dir: string, lang: Language): BenchQuestion | undefined {
  const found = (language: string, value: string | undefined) =>
    value
      ? {
          id: `runtime:${language}`,
          kind: 'runtime-version',
          turns: [`What's the minimum ${language} version this project supports?`],
          facts: [value],
        }
      : undefined;
  if (lang === 'py') {
    const v = /requires-python\s*=\s*"([^"]+)"/.exec(read(dir, 'pyproject.toml'))?.[1];
    const w = /python_requires\s*=\s*["']?([^"'\n,]+)/.exec(read(dir, 'setup.py') + read(dir, 'setup.cfg'))?.[1];
    return found('Python', v ?? w?.trim());
  }
  if (lang === 'go') return found('Go', /^go\s+(\d[\d.]*)/m.exec(read(dir, 'go.mod'))?.[1]);
  if (lang === 'rs') return found('Rust', /rust-version\s*=\s*"([^"]+)"/.exec(read(dir, 'Cargo.toml'))?.[1]);
  if (lang === 'ts') {
    const pkg = read(dir, 'package.json');
    const node = pkg ? (JSON.parse(pkg) as { engines?: { node?: string } }).engines?.node : undefined;
    return found('Node.js', node);
  }
  if (lang === 'java') {
    const pom = read(dir, 'pom.xml');
    const v = /<(?:maven\.compiler\.(?:release|source)|java\.version|javaVersion)>([^<]+)</.exec(pom)?.[1];
    return found('Java', v);
  }
  if (lang === 'ex') return found('Elixir', /\belixir:\s*"([^"]+)"/.exec(read(dir, 'mix.exs'))?.[1]);
  if (lang === 'swift') return found('Swift', /swift-tools-version:\s*([\d.]+)/.exec(read(dir, 'Package.swift'))?.[1]);
  if (lang === 'lua') {
    const spec = git(dir, 'ls-files', '*.rockspec').split('\n').find(Boolean);
    return found('Lua', spec ? /["']lua\s*([<>=~][^"']+)["']/.exec(read(dir, spec))?.[1]?.trim() : undefined);
  }
  const first = (pattern: string) =>
    git(dir, 'ls-files', pattern)
      .split('\n')
      .filter((rel) => rel && !TEST_PATH.test(rel) && !/example|sample/i.test(rel))
      .sort((x, y) => x.split('/').length - y.split('/').length)[0] ?? '';
  if (lang === 'dart') {
    const v = /^\s+sdk:\s*['"]?([^'"\n]+)/m.exec(read(dir, first('*pubspec.yaml')))?.[1];
    return found('Dart SDK', v?.trim());
  }
  if (lang === 'scala') {
    const v = /scalaVersion\s*:=\s*"([^"]+)"/.exec(read(dir, 'build.sbt'))?.[1];
    return v
      ? {
          id: 'runtime:scala',
          kind: 'runtime-version',
          turns: ['Which Scala version does this build use?'],
          facts: [v],
        }
      : undefined;
  }
  if (lang === 'hs') {
    const v = /^tested-with:\s*([^\n]+)/im.exec(read(dir, first('*.cabal')))?.[1]?.trim();
    return v
      ? {
          id: 'runtime:ghc',
          kind: 'runtime-version',
          turns: ['Which GHC versions is this project tested with?'],
          facts: [v],
        }
      : undefined;
  }
  if (lang === 'zig') return found('Zig', /minimum_zig_version\s*=\s*"([^"]+)"/.exec(read(dir, 'build.zig.zon'))?.[1]);
  if (lang === 'erl') return found('Erlang/OTP', /minimum_otp_vsn,\s*"([^"]+)"/.exec(read(dir, 'rebar.config'))?.[1]);
  if (lang === 'clj')
    return found(
      'Clojure',
      /org\.clojure\/clojure\s+(?:\{:mvn\/version\s+)?"([^"]+)"/.exec(
        read(dir, first('project.clj') || 'deps.edn'),
      )?.[1],
    );
  if (lang === 'ml') {
    const opam = git(dir, 'ls-files', '*.opam')
      .split('\n')
      .filter((rel) => rel && !rel.includes('/'));
    const v =
      /\(ocaml\s+\(>=\s*([\d.]+)\)/.exec(read(dir, 'dune-project'))?.[1] ??
      opam.map((rel) => /"ocaml"\s*\{\s*>=\s*"([^"]+)"/.exec(read(dir, rel))?.[1]).find(Boolean);
    return found('OCaml', v);
  }
  if (lang === 'pl') {
    const v =
      /MIN_PERL_VERSION['"]?\s*=>\s*['"]?(v?[\d._]+)/.exec(read(dir, 'Makefile.PL'))?.[1] ??
      /^use\s+(v?5[\d._]*)\s*;/m.exec(read(dir, 'Makefile.PL'))?.[1] ??
      /requires\s+['"]perl['"]\s*(?:,|=>)\s*['"]?(v?[\d._]+)/.exec(read(dir, 'cpanfile'))?.[1];
    return found('Perl', v);
  }
  if (lang === 'r') return found('R', /\bR\s*\(>=\s*([\d.]+)\)/.exec(read(dir, 'DESCRIPTION'))?.[1]);
  if (lang === 'jl')
    return found('Julia', /\[compat\][^[]*^julia\s*=\s*"([^"]+)"/m.exec(read(dir, 'Project.toml'))?.[1]);
  if (lang === 'c' || lang === 'cpp')
    return found(
      'CMake',
      /cmake_minimum_required\s*\(\s*VERSION\s+([\d.]+(?:\.\.\.[\d.]+)?)/i.exec(read(dir, 'CMakeLists.txt'))?.[1],
    );
  const project = git(dir, 'ls-files', '*.csproj')
    .split('\n')
    .filter(Boolean)
    .find((rel) => !TEST_PATH.test(rel) && !/test/i.test(rel));
  const frameworks = project ? /<TargetFrameworks?>([^<]+)</.exec(read(dir, project))?.[1] : undefined;
  return frameworks
    ? {
        id: 'runtime:dotnet',
        kind: 'runtime-version',
        turns: ['Which .NET versions does the library target?'],
        facts: [frameworks],
      }
    : undefined;
}

const IMPORT: Partial<Record<Language, { grep: string; module: RegExp }>> = {
  py: { grep: '^\\s*from\\s+[\\w.]*\\.([a-z_]{4,})\\s+import\\b', module: /from\s+[\w.]*?\.?([a-z_]{4,})\s+import/ },
  ts: {
    grep: 'from\\s+[\'"]\\.{1,2}/([\\w./-]*/)?[a-z][\\w-]{3,}(\\.[jt]s)?[\'"]',
    module: /\/([a-z][\w-]{3,})(?:\.[jt]s)?['"]/,
  },
  rs: { grep: '^\\s*use\\s+crate::[a-z_]{4,}', module: /crate::([a-z_]{4,})/ },
  java: { grep: '^import\\s+[\\w.]+\\.([A-Z]\\w{4,});', module: /\.([A-Z]\w{4,});/ },
  rb: { grep: '^\\s*require(_relative)?\\s+[\'"]([\\w./-]*/)?[a-z_]{4,}[\'"]', module: /\/?([a-z_]{4,})['"]\s*$/ },
  php: { grep: '^use\\s+[\\w\\\\]+\\\\[A-Z]\\w{4,};', module: /\\([A-Z]\w{4,});/ },
  kt: { grep: '^import\\s+[\\w.]+\\.[A-Z]\\w{4,}$', module: /\.([A-Z]\w{4,})$/ },
  ex: {
    grep: '^\\s*(alias|import|require|use)\\s+[A-Z]\\w*(\\.[A-Z]\\w*)*\\.[A-Z]\\w{3,}\\b',
    module: /^\s*(?:alias|import|require|use)\s+[\w.]*\.([A-Z]\w{3,})\b/,
  },
  lua: {
    grep: 'require\\s*\\(?\\s*["\'][\\w.]*\\.[a-z_]{4,}["\']',
    module: /require\s*\(?\s*["'][\w.]*\.([a-z_]{4,})["']/,
  },
  c: { grep: '^#include\\s+"([\\w./-]*/)?[a-z_]{4,}\\.h"', module: /([a-z_]{4,})\.h"/ },
  cpp: { grep: '^#include\\s+[<"]([\\w./-]*/)?[a-z_]{4,}\\.(h|hpp)[>"]', module: /([a-z_]{4,})\.(?:h|hpp)[>"]/ },
  scala: { grep: '^import\\s+[\\w.]+\\.[A-Z]\\w{4,}$', module: /\.([A-Z]\w{4,})$/ },
  dart: {
    grep: '^import\\s+[\'"]([\\w:./-]*/)?[a-z_]{4,}\\.dart[\'"]',
    module: /([a-z_]{4,})\.dart['"]/,
  },
  hs: {
    grep: '^import\\s+(qualified\\s+)?[A-Z][\\w.]*\\.[A-Z]\\w{3,}',
    module: /import\s+(?:qualified\s+)?[\w.]*\.([A-Z]\w{3,})/,
  },
  zig: { grep: '@import\\("([\\w./-]*/)?[a-z_]{4,}\\.zig"\\)', module: /([a-z_]{4,})\.zig"/ },
  clj: {
    grep: '^\\s*\\(?:?(require\\s+)?\\[[a-z][a-z0-9.-]*\\.[a-z][a-z0-9-]{3,}(\\s|\\])',
    module: /\[[a-z][\w.-]*\.([a-z][\w-]{3,})/,
  },
};

/** Which files import a module of the project: their paths. */
function importersQuestion(dir: string, lang: Language): BenchQuestion | undefined {
  const spec = IMPORT[lang];
  if (!spec) return undefined;
  const lines = grepLines(dir, ['-E', spec.grep, '--', ...DEFINITION[lang].files]);
  const byModule = new Map<string, GrepLine[]>();
  for (const l of lines) {
    const module = spec.module.exec(l.text)?.[1];
    if (module && !/^(index|utils?|types?|mod)$/.test(module))
      byModule.set(module, [...(byModule.get(module) ?? []), l]);
  }
  const pick = shuffled(
    [...byModule].filter(
      ([, ls]) => new Set(ls.map((l) => l.rel)).size >= 2 && new Set(ls.map((l) => l.rel)).size <= 8,
    ),
    ([m]) => m,
  )[0];
  if (!pick) return undefined;
  const [module, ls] = pick;
  return {
    id: `importers:${module}`,
    kind: 'importers',
    turns: [`Which files import the ${module} module?`],
    facts: spread(ls, 3).map((l) => l.rel),
  };
}

const CLASS_WITH_BASE: Partial<Record<Language, { grep: string; parse: RegExp }>> = {
  py: { grep: '^\\s*class\\s+[A-Z]\\w{3,}\\(\\s*[A-Z][\\w.]{3,}', parse: /class\s+(\w+)\(\s*([\w.]+)/ },
  ts: {
    grep: '\\bclass\\s+[A-Z]\\w{3,}(<[^>]*>)?\\s+extends\\s+[A-Z]\\w{3,}',
    parse: /class\s+(\w+)(?:<[^>]*>)?\s+extends\s+(\w+)/,
  },
  java: {
    grep: '\\bclass\\s+[A-Z]\\w{3,}(<[^>]*>)?\\s+(extends|implements)\\s+[A-Z]\\w{3,}',
    parse: /class\s+(\w+)(?:<[^>]*>)?\s+(?:extends|implements)\s+(\w+)/,
  },
  cs: {
    grep: '\\bclass\\s+[A-Z]\\w{3,}(<[^>]*>)?\\s*:\\s*[A-Z]\\w{3,}',
    parse: /class\s+(\w+)(?:<[^>]*>)?\s*:\s*(\w+)/,
  },
  rs: {
    grep: '^\\s*impl(<[^>]*>)?\\s+[A-Z]\\w{3,}(<[^>]*>)?\\s+for\\s+[A-Z]\\w{3,}',
    parse: /impl(?:<[^>]*>)?\s+(\w+)(?:<[^>]*>)?\s+for\s+(\w+)/,
  },
  rb: { grep: '^\\s*class\\s+[A-Z]\\w{3,}\\s*<\\s*[A-Z][\\w:]{3,}', parse: /class\s+(\w+)\s*<\s*(?:\w+::)*(\w+)/ },
  php: {
    grep: '\\bclass\\s+[A-Z]\\w{3,}\\s+(extends|implements)\\s+[A-Z]\\w{3,}',
    parse: /class\s+(\w+)\s+(?:extends|implements)\s+(\w+)/,
  },
  kt: {
    grep: '\\bclass\\s+[A-Z]\\w{3,}(<[^>]*>)?(\\s*(private |internal )?(constructor)?\\([^)]*\\))?\\s*:\\s*[A-Z]\\w{3,}',
    parse: /class\s+(\w+)(?:<[^>]*>)?(?:\s*(?:private |internal )?(?:constructor)?\([^)]*\))?\s*:\s*(\w+)/,
  },
  scala: {
    grep: '\\b(class|object)\\s+[A-Z]\\w{3,}(\\[[^]]*\\])?(\\([^)]*\\))?\\s+extends\\s+[A-Z]\\w{3,}',
    parse: /(?:class|object)\s+(\w+)(?:\[[^\]]*\])?(?:\([^)]*\))?\s+extends\s+(\w+)/,
  },
  dart: {
    grep: '\\bclass\\s+[A-Z]\\w{3,}(<[^>]*>)?\\s+(extends|implements|with)\\s+[A-Z]\\w{3,}',
    parse: /class\s+(\w+)(?:<[^>]*>)?\s+(?:extends|implements|with)\s+(\w+)/,
  },
  cpp: {
    grep: '\\b(class|struct)\\s+[A-Za-z_]\\w{3,}\\s*(final\\s*)?:\\s*(public|private|protected)?\\s*[A-Za-z_:]*[A-Za-z_]\\w{3,}',
    parse: /(?:class|struct)\s+(\w+)\s*(?:final\s*)?:\s*(?:public|private|protected)?\s*(?:\w+::)*(\w+)/,
  },
  hs: {
    grep: '^instance\\s+(\\([^)]*\\)\\s*=>\\s*)?[A-Z]\\w{3,}\\s+\\(?[A-Z]\\w{3,}',
    parse: /instance\s+(?:\([^)]*\)\s*=>\s*)?(\w+)\s+\(?(\w+)/,
  },
};

/** What a class extends (or which traits a Rust type implements), and which classes extend a base. */
function inheritanceQuestions(dir: string, lang: Language): BenchQuestion[] {
  const spec = CLASS_WITH_BASE[lang];
  if (!spec) return [];
  const lines = grepLines(dir, ['-E', spec.grep, '--', ...DEFINITION[lang].files]).filter(
    (l) => !TEST_PATH.test(l.rel) && l.text.trim().length <= 200 && !/^\s*(\*|\/\/|#)/.test(l.text),
  );
  const pairs = lines
    .map((l) => {
      const m = spec.parse.exec(l.text);
      // Rust: `impl Trait for Type` → the type is the subject, the trait the base.
      return m
        ? lang === 'rs' || lang === 'hs'
          ? { l, name: m[2] as string, base: m[1] as string }
          : { l, name: m[1] as string, base: m[2] as string }
        : undefined;
    })
    .filter((x): x is { l: GrepLine; name: string; base: string } => x !== undefined);
  const out: BenchQuestion[] = [];
  const single = shuffled(
    pairs.filter((p) => pairs.filter((q) => q.name === p.name).length === 1),
    (p) => p.name,
  )[0];
  if (single) {
    out.push({
      id: `inherits:${single.name}`,
      kind: 'inherits',
      turns: [
        lang === 'rs'
          ? `Which traits does ${single.name} implement?`
          : lang === 'hs'
            ? `Which type class instances does ${single.name} have?`
            : `What does the ${single.name} class inherit from?`,
      ],
      facts: [fact(single.l)],
    });
  }
  const byBase = new Map<string, GrepLine[]>();
  for (const p of pairs) byBase.set(p.base, [...(byBase.get(p.base) ?? []), p.l]);
  const base = shuffled(
    [...byBase].filter(([b, ls]) => ls.length >= 2 && ls.length <= 10 && b !== single?.base),
    ([b]) => b,
  )[0];
  if (base) {
    out.push({
      id: `implementers:${base[0]}`,
      kind: 'implementers',
      turns: [
        lang === 'rs'
          ? `Which types implement ${base[0]}?`
          : lang === 'hs'
            ? `Which types are instances of ${base[0]}?`
            : `Which classes extend or implement ${base[0]}?`,
      ],
      facts: spread(base[1], 3).map(fact),
    });
  }
  return out;
}

/** How to lint: the lint task. */
function lintQuestion(dir: string): BenchQuestion | undefined {
  let command: string | undefined;
  const pkg = read(dir, 'package.json');
  if (pkg) {
    const scripts = (JSON.parse(pkg) as { scripts?: Record<string, string> }).scripts ?? {};
    command = scripts.lint ?? Object.entries(scripts).find(([k]) => /lint/.test(k))?.[1];
  }
  if (!command) {
    const make = /^lint:.*\n((?:\t.*\n?)+)/m.exec(read(dir, 'Makefile'));
    command = make?.[1]?.split('\n')[0]?.replace(/^\t@?/, '').trim();
  }
  if (!command) {
    for (const rel of git(dir, 'ls-files', '.github/workflows').split('\n').filter(Boolean).sort()) {
      const run =
        /^\s*(?:-\s*)?run:\s*(.*\b(?:lint|clippy|ruff|flake8|golangci-lint|eslint|xo|checkstyle|spotless|rustfmt|fmt)\b.*)$/m.exec(
          read(dir, rel),
        );
      if (run?.[1] && !run[1].includes('|')) {
        command = run[1].trim();
        break;
      }
    }
  }
  if (!command || command.length > 150) return undefined;
  return {
    id: 'build:lint',
    kind: 'lint-command',
    turns: ['How do I run the linter before I open a PR?'],
    facts: [command],
  };
}

const LOG_CALL: Partial<Record<Language, string>> = {
  py: '\\b(print|log(ger)?\\.(info|warning|debug|error)|warnings\\.warn|click\\.echo)\\(\\s*f?["\'][A-Z][^"\'{}%]{15,60}["\']',
  go: '\\b(fmt\\.(Print|Fprint)\\w*|log\\.\\w+)\\([^"]*"[A-Z][^"%]{15,60}"',
  rs: '\\b(e?println!|eprint!|warn!|info!|debug!|error!)\\(\\s*"[A-Z][^"{}]{15,60}"',
  ts: '\\b(console\\.(log|warn|error|info)|debug|log)\\(\\s*[\'"`][A-Z][^\'"`$]{15,60}[\'"`]',
  java: '\\b(System\\.(out|err)\\.print\\w*|log(ger)?\\.(info|warn|debug|error))\\(\\s*"[A-Z][^"]{15,60}"',
  cs: '\\b(Console\\.Write\\w*|SelfLog\\.WriteLine|Log\\.\\w+|_?logger\\.\\w+)\\(\\s*\\$?"[A-Z][^"{}]{15,60}"',
  rb: '\\b(puts|warn|print|logger\\.(info|warn|debug|error))\\(?\\s*["\'][A-Z][^"\'#{}%]{15,60}["\']',
  php: '\\b(echo|print|printf|trigger_error|error_log)\\(?\\s*["\'][A-Z][^"\'$%{}]{15,60}["\']',
  kt: '\\b(println|print|logger\\.\\w+|log\\.\\w+)\\(\\s*"[A-Z][^"$]{15,60}"',
  ex: '\\b(Logger\\.\\w+|IO\\.puts|IO\\.warn|Mix\\.shell\\(\\)\\.\\w+)\\(?\\s*"[A-Z][^"#{}]{15,60}"',
  swift: '\\b(print|debugPrint|NSLog|logger\\.\\w+|os_log)\\(\\s*"[A-Z][^"\\\\]{15,60}"',
  lua: '\\b(print|printout|printerr|warning|warn|io\\.write|:write)\\(\\s*["\'][A-Z][^"\'%]{15,60}["\']',
  c: '\\b(printf\\(|puts\\(|fputs\\(|fprintf\\(std(err|out),|warnx?\\()\\s*"[A-Z][^"%\\\\]{15,60}"',
  cpp: '(std::cout\\s*<<|std::cerr\\s*<<|\\bprintf\\(|\\bprint\\()\\s*"[A-Z][^"%{}\\\\]{15,60}"',
  scala: '\\b(println|print|logger\\.\\w+|log\\.\\w+)\\(\\s*s?"[A-Z][^"$]{15,60}"',
  dart: '\\b(print|stdout\\.write\\w*|stderr\\.write\\w*|log|_?logger\\.\\w+)\\(\\s*[\'"][A-Z][^\'"$]{15,60}[\'"]',
  hs: '\\b(putStrLn|putStr|hPutStrLn\\s+stderr|trace|logInfo|logWarn)\\s*\\$?\\s*"[A-Z][^"]{15,60}"',
  zig: '\\b(std\\.debug\\.print|log\\.\\w+|std\\.log\\.\\w+)\\(\\s*"[A-Z][^"{}]{15,60}"',
  erl: '\\b(io:format|logger:\\w+|error_logger:\\w+)\\(\\s*"[A-Z][^"~]{15,60}"',
  clj: '\\((println|print|prn|log/\\w+)\\s+"[A-Z][^"]{15,60}"',
};

/** Where a printed or logged message comes from. */
function logStringQuestion(dir: string, lang: Language): BenchQuestion | undefined {
  const shape = LOG_CALL[lang];
  if (!shape) return undefined;
  const hits = grepLines(dir, ['-E', shape, '--', ...DEFINITION[lang].files]).filter(
    (h) => !TEST_PATH.test(h.rel) && h.text.trim().length <= 200,
  );
  const pick = shuffled(hits, (h) => h.text)[0];
  const message = pick ? /["'`]([A-Z][^"'`{}%$]{15,60})["'`]/.exec(pick.text)?.[1] : undefined;
  if (!pick || !message) return undefined;
  return {
    id: `log:${message.slice(0, 20)}`,
    kind: 'log-string',
    turns: [`My terminal printed "${message}". Which part of the code prints that?`],
    facts: [fact(pick)],
  };
}

const TEST_START: Partial<
  Record<
    Language,
    {
      grep: string;
      name: RegExp;
      assert: RegExp;
      /** Tests written beside the code (`test "…" {}` in Zig): the shape alone says it is a test. */
      inSource?: boolean;
    }
  >
> = {
  py: {
    grep: '^\\s*def test_[a-z0-9_]{6,}\\(',
    name: /def (test_\w+)/,
    assert: /^\s*(assert\b|self\.assert|with pytest\.raises)/,
  },
  go: {
    grep: '^func Test[A-Z]\\w{5,}\\(t \\*testing\\.T\\)',
    name: /func (Test\w+)/,
    assert: /\bt\.(Error|Fatal)f?\(|\bassert\.|\brequire\./,
  },
  rs: { grep: '^\\s*fn [a-z][a-z0-9_]{8,}\\(\\)', name: /fn (\w+)/, assert: /\bassert(_eq|_ne)?!\(/ },
  ts: {
    grep: '^\\s*(test|it)\\(\\s*[\'"][^\'"]{10,60}[\'"]',
    name: /\(\s*['"]([^'"]+)['"]/,
    assert: /\b(t\.\w+\(|expect\(|assert\.)/,
  },
  java: {
    grep: '^\\s*(public\\s+)?void\\s+test[A-Z]\\w{5,}\\(|^\\s*(public\\s+)?void\\s+[a-z]\\w{8,}\\(\\)\\s*(throws [\\w, ]+)?\\{',
    name: /void\s+(\w+)\(/,
    assert: /\b(assert\w*|fail)\(/,
  },
  cs: {
    grep: '^\\s*public\\s+(async\\s+)?(void|Task)\\s+[A-Z]\\w{8,}\\(\\)',
    name: /(?:void|Task)\s+(\w+)\(/,
    assert: /\bAssert\.\w+\(/,
  },
  rb: {
    grep: '^\\s*(it|test|specify)\\s*\\(?\\s*["\'][^"\']{10,60}["\']',
    name: /["']([^"']+)["']/,
    assert: /\b(expect|assert\w*|refute\w*)\b|\.should\b/,
  },
  php: {
    grep: '^\\s*public function test[A-Za-z0-9_]{6,}\\(',
    name: /function (test\w+)\(/,
    assert: /(\$this->|self::|static::)assert\w+\(|\bexpect\(/,
  },
  kt: {
    grep: '^\\s*(@Test\\s+)?fun\\s+(`[^`]{10,60}`|[a-z]\\w{8,})\\(\\)',
    name: /fun\s+`?([^`(]+)`?\(/,
    assert: /\b(assert\w*|check|expect)\(|\bshouldBe\b/,
  },
  ex: {
    grep: '^\\s*test\\s+"[^"]{10,60}"',
    name: /"([^"]+)"/,
    assert: /\b(assert|refute|assert_raise|assert_received)\b/,
  },
  swift: {
    grep: '^\\s*(@Test\\s+)?func\\s+test[A-Z]\\w{5,}\\(\\)',
    name: /func\s+(test\w+)\(/,
    assert: /\bXCT\w+\(|#expect\(|#require\(/,
  },
  lua: { grep: '^\\s*it\\s*\\(\\s*["\'][^"\']{10,60}["\']', name: /["']([^"']+)["']/, assert: /\bassert[.\w]*\s*\(/ },
  c: {
    grep: '^\\s*(static\\s+)?(void|int)\\s+test_?[a-z0-9_]{6,}\\(',
    name: /\s(test_?\w+)\(/,
    assert: /\bassert\w*\s*\(|\b(CHECK|EXPECT|ASSERT)\w*\(/,
  },
  cpp: {
    grep: '^\\s*TEST(_F|_P)?\\(\\s*\\w+\\s*,\\s*\\w{6,}\\s*\\)|^\\s*TEST_CASE\\(\\s*"[^"]{10,60}"',
    name: /(?:TEST\w*\(\s*\w+\s*,\s*|TEST_CASE\(\s*")(\w[^",)]*)/,
    assert: /\b(EXPECT|ASSERT|CHECK|REQUIRE)_?\w*\(/,
  },
  scala: {
    grep: '^\\s*(test|property)\\(\\s*"[^"]{10,60}"|^\\s*"[^"]{10,60}"\\s+(should|in|must|>>)\\b',
    name: /"([^"]+)"/,
    assert: /\b(assert\w*|expect)\(|\bshould(Be|Equal)?\b|\s===\s|\bmust(Be|Equal)?\b/,
  },
  dart: {
    grep: '^\\s*test\\(\\s*[\'"][^\'"]{10,60}[\'"]',
    name: /\(\s*['"]([^'"]+)['"]/,
    assert: /\bexpect(Later)?\(/,
  },
  hs: {
    grep: '^\\s*(it|testCase|testProperty|specify)\\s+"[^"]{10,60}"',
    name: /"([^"]+)"/,
    assert: /\bshould\w*\b|@\?=|@=\?|\bassert\w*\b/,
  },
  zig: {
    grep: '^\\s*test\\s+"[^"]{10,60}"\\s*\\{',
    name: /"([^"]+)"/,
    assert: /\btesting\.expect\w*\(|\bexpect\w*\(/,
    inSource: true,
  },
  erl: {
    grep: '^[a-z][a-z0-9_]{6,}(_test)?\\((Config|_Config|_)?\\)\\s*->',
    name: /^(\w+)\(/,
    assert: /\?assert\w*\(|^\s*\{[^}]*\}\s*=\s/,
  },
  clj: { grep: '^\\s*\\(deftest\\s+[a-z][a-z0-9-]{6,}', name: /deftest\s+([\w-]+)/, assert: /\((is|are)\s/ },
};

/** What a test checks: its first assertion. */
function testAssertsQuestion(dir: string, lang: Language): BenchQuestion | undefined {
  const spec = TEST_START[lang];
  if (!spec) return undefined;
  const starts = grepLines(dir, ['-E', spec.grep, '--', ...DEFINITION[lang].files]).filter(
    (h) => spec.inSource || TEST_PATH.test(h.rel) || /Tests?\.(cs|java)$/.test(h.rel),
  );
  for (const start of shuffled(starts, (h) => h.text).slice(0, 20)) {
    const name = spec.name.exec(start.text)?.[1];
    if (!name || starts.filter((s) => spec.name.exec(s.text)?.[1] === name).length !== 1) continue;
    const lines = read(dir, start.rel).split('\n');
    // The test's own body: up to the next test of the file or the closer at the test's indentation (a
    // neighbour's assertion is not what this test checks).
    const next = Math.min(...starts.filter((s) => s.rel === start.rel && s.line > start.line).map((s) => s.line));
    const indent = start.text.length - start.text.trimStart().length;
    const body: string[] = [];
    for (let i = start.line; i < Math.min(start.line + 25, next - 1, lines.length); i++) {
      const line = lines[i] as string;
      if (/^\s*(\}|end\b|\)+;?\s*$)/.test(line) && line.length - line.trimStart().length <= indent) break;
      body.push(line);
    }
    const assertion = body.find((l) => spec.assert.test(l) && l.trim().length <= 160 && l.trim().length >= 12);
    if (!assertion) continue;
    return {
      id: `test-asserts:${name.slice(0, 30)}`,
      kind: 'test-asserts',
      turns: [
        /\s/.test(name) ? `What does the test "${name}" actually check?` : `What does the test ${name} actually check?`,
      ],
      facts: [assertion.trim()],
    };
  }
  return undefined;
}

/** Which environment variables the project reads: reading lines from two files. */
function envListQuestion(dir: string, lang: Language): BenchQuestion | undefined {
  const spec = ENV_READ[lang];
  if (!spec) return undefined;
  const hits = grepLines(dir, ['-E', spec]).filter(
    (h) => !DOC.test(h.rel) && !TEST_PATH.test(h.rel) && h.text.trim().length < 200,
  );
  if (hits.length === 0) return undefined;
  return {
    id: 'env-list',
    kind: 'env-list',
    turns: ['Which environment variables does this project read?'],
    facts: spread(hits, 2).map(fact),
  };
}

/** Who last changed a function: the author of the last commit that touched its lines (`git log -L`). */
function functionAuthorQuestion(dir: string, sym: Symbol | undefined): BenchQuestion | undefined {
  if (!sym) return undefined;
  let author: string | undefined;
  try {
    author = git(dir, 'log', '-1', '--format=%an', '-s', `-L${sym.def.line},+5:${sym.def.rel}`).trim().split('\n')[0];
  } catch {
    return undefined;
  }
  if (!author || author.length < 3) return undefined;
  return {
    id: `author:${sym.name}`,
    kind: 'function-author',
    turns: [`Who last changed ${sym.name}?`],
    facts: [author],
  };
}

/** A follow-up about history: "and when was it last changed?" after naming a function. */
function followUpHistoryQuestion(dir: string, sym: Symbol | undefined): BenchQuestion | undefined {
  if (!sym) return undefined;
  const subject = git(dir, 'log', '-1', '--format=%s', '--', sym.def.rel).trim();
  if (subject.length < 8) return undefined;
  return {
    id: `followup-history:${sym.name}`,
    kind: 'follow-up-history',
    turns: [`Where is \`${sym.name}\` defined?`, 'When was that file last changed, and why?'],
    facts: [subject.slice(0, 60)],
  };
}

/** What changed between the last two release tags: subjects of commits between them. */
function tagDiffQuestion(dir: string): BenchQuestion | undefined {
  const tags = git(dir, 'tag', '--sort=-creatordate', '--merged', 'HEAD').split('\n').filter(Boolean);
  const [newest, previous] = tags;
  if (!newest || !previous) return undefined;
  const subjects = git(dir, 'log', '--format=%s', '--no-merges', `${previous}..${newest}`)
    .split('\n')
    .filter((s) => s.length >= 10);
  if (subjects.length === 0 || subjects.length > 60) return undefined;
  return {
    id: `tag-diff:${newest}`,
    kind: 'tag-diff',
    turns: ['What changed between the last two releases?'],
    facts: spread(
      subjects.map((s, i) => ({ rel: String(i), line: i, text: s.slice(0, 60) })),
      2,
    ).map((l) => l.text),
  };
}

/** A command-line option spelt with its dashes in the code: where it is defined or handled. */
function cliFlagQuestion(dir: string, lang: Language): BenchQuestion | undefined {
  const lines = grepLines(dir, ['-E', '["\']--[a-z][a-z0-9-]{3,}["\']', '--', ...DEFINITION[lang].files]).filter(
    (l) => !TEST_PATH.test(l.rel) && !DOC.test(l.rel) && l.text.trim().length <= 200 && !/^\s*(\*|\/\/|#)/.test(l.text),
  );
  const byFlag = new Map<string, GrepLine[]>();
  for (const l of lines) {
    for (const m of l.text.matchAll(/["'](--[a-z][a-z0-9-]{3,})["']/g)) {
      const flag = m[1] as string;
      byFlag.set(flag, [...(byFlag.get(flag) ?? []), l]);
    }
  }
  const pick = shuffled(
    [...byFlag].filter(([, ls]) => ls.length <= 3),
    ([flag]) => flag,
  )[0];
  if (!pick) return undefined;
  return {
    id: `flag:${pick[0]}`,
    kind: 'cli-flag',
    turns: [`What does the ${pick[0]} option do? Where is it handled?`],
    facts: [fact(pick[1][0] as GrepLine)],
  };
}

/** How each language spells making an object of a class: the class name is the first group. */
const CONSTRUCTION: Partial<Record<Language, string>> = {
  py: '=\\s*[A-Z][a-z][A-Za-z0-9]{3,}\\(',
  go: '&[A-Z][A-Za-z0-9]{3,}\\{',
  rs: '\\b[A-Z][a-z][A-Za-z0-9]{3,}::new\\(',
  ts: '\\bnew [A-Z][A-Za-z0-9]{3,}\\(',
  java: '\\bnew [A-Z][A-Za-z0-9]{3,}(<[^>]*>)?\\(',
  cs: '\\bnew [A-Z][A-Za-z0-9]{3,}(<[^>]*>)?\\(',
  rb: '\\b[A-Z][a-z][A-Za-z0-9]{3,}\\.new\\b',
  php: '\\bnew [A-Z][A-Za-z0-9]{3,}\\(',
  kt: '=\\s*[A-Z][a-z][A-Za-z0-9]{3,}\\(',
  ex: '%[A-Z][A-Za-z0-9]*(\\.[A-Z][A-Za-z0-9]*)*\\{',
  swift: '=\\s*[A-Z][a-z][A-Za-z0-9]{3,}\\(',
  lua: '\\b[A-Z][a-z][A-Za-z0-9]{3,}[.:]new\\(',
  cpp: '\\bnew [A-Z][A-Za-z0-9]{3,}\\(',
  scala: '\\bnew [A-Z][A-Za-z0-9]{3,}\\(|=\\s*[A-Z][a-z][A-Za-z0-9]{3,}\\(',
  dart: '=\\s*(const\\s+|new\\s+)?[A-Z][a-z][A-Za-z0-9]{3,}\\(',
  zig: '=\\s*[A-Z][a-z][A-Za-z0-9]{3,}\\{',
};

/** Where objects of one of the project's classes are made: up to two construction lines. */
function instantiationsQuestion(dir: string, lang: Language): BenchQuestion | undefined {
  const shape = CONSTRUCTION[lang];
  if (!shape) return undefined;
  const lines = grepLines(dir, ['-E', shape, '--', ...DEFINITION[lang].files]).filter(
    (l) => !TEST_PATH.test(l.rel) && l.text.trim().length <= 200 && !/^\s*(\*|\/\/|#)/.test(l.text),
  );
  const byClass = new Map<string, GrepLine[]>();
  for (const l of lines) {
    const name = /(?:new |&|=\s*)?([A-Z][A-Za-z0-9]{3,})(?:<[^>]*>)?(?:\(|\{|::new\(|[.:]new\b)/.exec(
      l.text.slice(l.text.search(new RegExp(shape))),
    )?.[1];
    if (name) byClass.set(name, [...(byClass.get(name) ?? []), l]);
  }
  for (const [name, ls] of shuffled([...byClass], ([n]) => n)) {
    const files = new Set(ls.map((l) => l.rel)).size;
    if (ls.length < 2 || ls.length > 8 || files < 2) continue;
    // One of the project's own classes: declared in it.
    const declared = grepLines(dir, [
      '-E',
      `\\b(class|struct|record|type|enum|protocol|actor|defmodule)\\s+([\\w.]*\\.)?${name}\\b|^local\\s+${name}\\s*=|\\bconst\\s+${name}\\s*=\\s*(packed\\s+|extern\\s+)?(struct|union|enum)\\b`,
      '--',
      ...DEFINITION[lang].files,
    ]);
    if (declared.length === 0) continue;
    return {
      id: `new:${name}`,
      kind: 'instantiations',
      turns: [`Where do we create new ${name} objects?`],
      facts: [...new Set(spread(ls, 2).map(fact))],
    };
  }
  return undefined;
}

/** How each language catches an error type: the type is the first group. */
const CATCH: Partial<Record<Language, RegExp | undefined>> = {
  py: /^\s*except\s+\(?([A-Z]\w+(?:Error|Exception))\b/,
  go: /\berrors\.Is\(\s*\w+,\s*(?:\w+\.)?(Err\w{3,})\)/,
  rs: undefined,
  ts: undefined,
  java: /\bcatch\s*\(\s*(?:final\s+)?([A-Z]\w+(?:Exception|Error))\b/,
  cs: /\bcatch\s*\(\s*([A-Z]\w+Exception)\b/,
  rb: /\brescue\s+(?:\w+::)*([A-Z]\w+(?:Error|Exception))\b/,
  php: /\bcatch\s*\(\s*\\?(?:\w+\\)*([A-Z]\w+(?:Exception|Error))\b/,
  kt: /\bcatch\s*\(\s*\w+\s*:\s*([A-Z]\w+(?:Exception|Error))\b/,
  ex: /\b(?:rescue\s+)?\w+\s+in\s+\[?(?:[A-Z]\w*\.)*([A-Z]\w+(?:Error|Exception))\b/,
  swift: /\bcatch\s+(?:let\s+\w+\s+as\s+)?(?:\w+\.)*([A-Z]\w*Error)\b/,
  lua: undefined,
  cpp: /\bcatch\s*\(\s*(?:const\s+)?(?:\w+::)*(\w+(?:_error|_exception|Error|Exception))\b/,
  scala: /\bcase\s+\w+\s*:\s*(?:\w+\.)*([A-Z]\w+(?:Exception|Error|Failure))\b/,
  dart: /\bon\s+([A-Z]\w*(?:Exception|Error))\b/,
  clj: /\(catch\s+(?:[\w.]+\.)?([A-Z]\w*(?:Exception|Error))\b/,
};

/** Where an error type is caught or checked: up to two such lines outside tests. */
function catchSiteQuestion(dir: string, lang: Language): BenchQuestion | undefined {
  const spec = CATCH[lang];
  if (!spec) return undefined;
  const lines = grepLines(dir, [
    '-E',
    '\\b(except|catch|rescue|errors\\.Is)\\b|\\w in \\[?[A-Z][\\w.]*(Error|Exception)\\b|\\bcase \\w+\\s*:\\s*[\\w.]*(Exception|Error|Failure)\\b',
    '--',
    ...DEFINITION[lang].files,
  ]).filter((l) => !TEST_PATH.test(l.rel) && l.text.trim().length <= 200);
  const byType = new Map<string, GrepLine[]>();
  for (const l of lines) {
    const type = spec.exec(l.text)?.[1];
    if (type && !/^(Exception|Error|RuntimeException|Throwable)$/.test(type))
      byType.set(type, [...(byType.get(type) ?? []), l]);
  }
  const pick = shuffled(
    [...byType].filter(([, ls]) => ls.length <= 6),
    ([t]) => t,
  )[0];
  if (!pick) return undefined;
  return {
    id: `catch:${pick[0]}`,
    kind: 'catch-site',
    turns: [`Where do we handle ${pick[0]}? I want to see what happens when it is raised.`],
    facts: [...new Set(spread(pick[1], 2).map(fact))],
  };
}

/**
 * Kinds added in the seventh round (2026-12-07) from questions developers ask of a repository they do not know:
 * which handler serves a route, how to run one test, what is deprecated, which TODOs are left. Their held-back
 * part is every repository outside the dev set: run.ts prints their misses for the dev set only.
 */
export const NEW_KINDS = new Set(['route', 'single-test', 'deprecated', 'todo']);

/** A route registered with a literal path, as web frameworks spell it (Flask, Express, Sinatra, Plug, Laravel, Go, Spring). */
const ROUTE_LINE =
  '\\b(route|get|post|put|delete|patch|any|match|HandleFunc|Handle|GetMapping|PostMapping|PutMapping|DeleteMapping|RequestMapping|Get|Post)\\s*\\(?\\s*(value\\s*=\\s*)?["\'](/[a-z][A-Za-z0-9_/:<>{}.-]*)["\']';

/** Where a route is handled: the line that registers its path. */
function routeQuestion(dir: string, lang: Language): BenchQuestion | undefined {
  const lines = grepLines(dir, ['-E', ROUTE_LINE, '--', ...DEFINITION[lang].files]).filter(
    (l) => !TEST_PATH.test(l.rel) && !DOC.test(l.rel) && l.text.trim().length <= 200,
  );
  const byPath = new Map<string, GrepLine[]>();
  for (const l of lines) {
    const route = /["'](\/[a-z][\w/:<>{}.-]*)["']/.exec(l.text)?.[1];
    if (route && route.length >= 4) byPath.set(route, [...(byPath.get(route) ?? []), l]);
  }
  const pick = shuffled(
    [...byPath].filter(([, ls]) => ls.length <= 2),
    ([route]) => route,
  )[0];
  if (!pick) return undefined;
  return {
    id: `route:${pick[0]}`,
    kind: 'route',
    turns: [`Which handler serves the ${pick[0]} route?`],
    facts: [fact(pick[1][0] as GrepLine)],
  };
}

/** How to run one test: the file it is in (a runner is given a file, and a name). */
function singleTestQuestion(dir: string, lang: Language): BenchQuestion | undefined {
  const spec = TEST_START[lang];
  if (!spec) return undefined;
  const starts = grepLines(dir, ['-E', spec.grep, '--', ...DEFINITION[lang].files]).filter(
    (h) => spec.inSource || TEST_PATH.test(h.rel) || /Tests?\.(cs|java)$/.test(h.rel),
  );
  for (const start of shuffled(starts, (h) => `single:${h.text}`).slice(0, 20)) {
    const name = spec.name.exec(start.text)?.[1];
    if (!name || starts.filter((s) => spec.name.exec(s.text)?.[1] === name).length !== 1) continue;
    return {
      id: `single-test:${name.slice(0, 30)}`,
      kind: 'single-test',
      turns: [/\s/.test(name) ? `How do I run just the test "${name}"?` : `How do I run just the ${name} test?`],
      facts: [start.rel],
    };
  }
  return undefined;
}

/** What is deprecated: deprecation marks from two files. */
function deprecatedQuestion(dir: string, lang: Language): BenchQuestion | undefined {
  const lines = grepLines(dir, [
    '-E',
    '@[Dd]eprecated\\b|#\\[deprecated|\\[Obsolete|DeprecationWarning|\\bDeprecated:|\\bdeprecated\\(',
    '--',
    ...DEFINITION[lang].files,
  ]).filter((l) => !TEST_PATH.test(l.rel) && l.text.trim().length >= 24 && l.text.trim().length <= 160);
  if (new Set(lines.map((l) => l.rel)).size < 2) return undefined;
  return {
    id: 'deprecated',
    kind: 'deprecated',
    turns: ['What is deprecated in this codebase? I want to stop using it before it is removed.'],
    facts: spread(
      shuffled(lines, (l) => `deprecated:${l.rel}:${l.line}`),
      2,
    ).map(fact),
  };
}

/** Which TODOs are left: TODO/FIXME comments from two files. */
function todoQuestion(dir: string, lang: Language): BenchQuestion | undefined {
  const lines = grepLines(dir, ['-E', '\\b(TODO|FIXME)\\b', '--', ...DEFINITION[lang].files]).filter(
    (l) => !TEST_PATH.test(l.rel) && l.text.trim().length >= 15 && l.text.trim().length <= 160,
  );
  if (new Set(lines.map((l) => l.rel)).size < 2) return undefined;
  return {
    id: 'todo',
    kind: 'todo',
    turns: ['Are there TODOs or FIXMEs left in the code? List them.'],
    facts: spread(
      shuffled(lines, (l) => `todo:${l.rel}:${l.line}`),
      2,
    ).map(fact),
  };
}

export function generateQuestions(dir: string, state: RepoState): BenchQuestion[] {
  const workTreeFact = state.editedLine;
  const lang = mainLanguage(dir);
  const questions: BenchQuestion[] = [];
  const syms = symbols(dir, lang);
  const [a, b, c, d] = syms;
  if (a)
    questions.push({
      id: `def:${a.name}`,
      kind: 'definition',
      turns: [`Where is \`${a.name}\` defined?`],
      facts: [fact(a.def)],
    });
  if (b) {
    questions.push({
      id: `callers:${b.name}`,
      kind: 'callers',
      turns: [`Who calls ${b.name}?`],
      facts: spread(b.callers, 3).map(fact),
    });
  }
  const tested = syms.find((s) => s.callers.some((u) => TEST_PATH.test(u.rel)));
  if (tested) {
    questions.push({
      id: `tests:${tested.name}`,
      kind: 'tests-of',
      turns: [`Which tests exercise ${tested.name}?`],
      facts: spread(
        tested.callers.filter((u) => TEST_PATH.test(u.rel)),
        2,
      ).map(fact),
    });
  }
  const follow = syms.find((s) => s !== a && s !== b && s !== tested) ?? c ?? d;
  if (follow) {
    questions.push({
      id: `followup:${follow.name}`,
      kind: 'follow-up',
      turns: [`What does \`${follow.name}\` do?`, 'And where is it used?'],
      facts: spread(follow.callers, 2).map(fact),
    });
  }
  for (const q of [
    dependencyQuestion(dir),
    lastCommitQuestion(dir),
    testCommandQuestion(dir),
    envQuestion(dir, lang),
    errorQuestion(dir, lang),
    namedFileQuestion(dir, lang),
  ]) {
    if (q) questions.push(q);
  }
  questions.push({
    id: 'worktree:diff',
    kind: 'work-tree',
    turns: ['What have I changed so far?'],
    facts: [workTreeFact],
  });
  // The kinds added for issue 23's generality: signatures, constants, names in prose or another spelling, the
  // developer's staged edit and branch, a file's history, the license, the runtime, importers, inheritance.
  const rest = syms.filter((s) => s !== a && s !== b && s !== tested && s !== follow);
  const [e, f, g, h, i] = rest;
  if (e) questions.push(signatureQuestion(e));
  const prose = proseNameQuestion(rest.slice(1));
  const variant = caseVariantQuestion([...rest.slice(1)].reverse());
  const typo = typoQuestion(rest.filter((s) => s !== f && s !== g));
  for (const q of [
    prose,
    variant,
    constantQuestion(dir, lang),
    stagedQuestion(state),
    branchQuestion(state),
    fileHistoryQuestion(dir, lang),
    commitOfLineQuestion(dir, lang),
    fileRecentQuestion(dir, lang),
    licenseQuestion(dir),
    runtimeQuestion(dir, lang),
    importersQuestion(dir, lang),
    ...inheritanceQuestions(dir, lang),
    lintQuestion(dir),
    logStringQuestion(dir, lang),
    testAssertsQuestion(dir, lang),
    envListQuestion(dir, lang),
    functionAuthorQuestion(dir, h ?? e),
    followUpHistoryQuestion(dir, i ?? f),
    typo,
    tagDiffQuestion(dir),
    cliFlagQuestion(dir, lang),
    instantiationsQuestion(dir, lang),
    catchSiteQuestion(dir, lang),
    routeQuestion(dir, lang),
    singleTestQuestion(dir, lang),
    deprecatedQuestion(dir, lang),
    todoQuestion(dir, lang),
    ...roleQuestions(dir),
  ]) {
    if (q) questions.push(q);
  }
  if (tested) {
    questions.push({
      id: `followup-tests:${tested.name}`,
      kind: 'follow-up-tests',
      turns: [`What does \`${tested.name}\` do?`, 'Which tests call that function?'],
      facts: spread(
        tested.callers.filter((u) => TEST_PATH.test(u.rel)),
        2,
      ).map(fact),
    });
  }
  return questions;
}
