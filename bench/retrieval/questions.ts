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

export interface BenchQuestion {
  id: string;
  kind: string;
  /** User turns, in order; the facts answer the last. */
  turns: string[];
  facts: string[];
}

export type Language = 'py' | 'go' | 'rs' | 'ts';

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
  const counts: Record<Language, number> = { py: 0, go: 0, rs: 0, ts: 0 };
  for (const rel of git(dir, 'ls-files').split('\n')) {
    const ext = path.extname(rel);
    if (ext === '.py') counts.py++;
    else if (ext === '.go') counts.go++;
    else if (ext === '.rs') counts.rs++;
    else if (['.ts', '.tsx', '.js', '.mjs'].includes(ext)) counts.ts++;
  }
  return (Object.entries(counts).sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'ts') as Language;
}

const DEFINITION: Record<Language, { grep: string; name: RegExp; files: string[] }> = {
  py: { grep: '^\\s*def [a-z][a-z0-9_]{5,}\\(', name: /def ([a-z][a-z0-9_]+)\(/, files: ['*.py'] },
  go: { grep: '^func (\\([^)]*\\) )?[A-Za-z][A-Za-z0-9]{5,}\\(', name: /func (?:\([^)]*\) )?(\w+)\(/, files: ['*.go'] },
  rs: { grep: '^\\s*(pub(\\([a-z]+\\))? )?fn [a-z][a-z0-9_]{5,}', name: /fn ([a-z]\w+)/, files: ['*.rs'] },
  ts: {
    grep: '^\\s*(export )?(async )?function [A-Za-z][A-Za-z0-9]{5,}|^\\s*export const [A-Za-z][A-Za-z0-9]{5,} =',
    name: /(?:function|const) ([A-Za-z]\w+)/,
    files: ['*.ts', '*.js', '*.mjs'],
  },
};

const TEST_PATH = /(^|\/)(tests?|__tests__|testdata)\/|[._-]test\.\w+$|_test\.go$|(^|\/)test_[^/]+$/;
const DOC = /\.(md|rst|txt)$/;

interface GrepLine {
  rel: string;
  line: number;
  text: string;
}

function grepLines(dir: string, args: string[]): GrepLine[] {
  const out = git(dir, 'grep', '-n', '-I', '--untracked', '--exclude-standard', ...args);
  return out
    .split('\n')
    .filter(Boolean)
    .map((record) => {
      const m = /^(.*?):(\d+):(.*)$/.exec(record);
      return m ? { rel: m[1] as string, line: Number(m[2]), text: m[3] as string } : undefined;
    })
    .filter((x): x is GrepLine => x !== undefined);
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
    if (!name || /^(test|main|init|new|setup)/i.test(name)) continue;
    byName.set(name, [...(byName.get(name) ?? []), def]);
  }
  const out: Symbol[] = [];
  for (const [name, list] of shuffled([...byName], ([n]) => n)) {
    if (list.length !== 1 || out.length >= 12) continue;
    const def = list[0] as GrepLine;
    const uses = grepLines(dir, ['-w', '-F', '-e', name]).filter(
      (u) => !(u.rel === def.rel && u.line === def.line) && !DOC.test(u.rel) && u.text.includes(`${name}(`),
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
  const pick = shuffled(
    candidates.filter((c) => c.version.length >= 2 && !/workspace|path/.test(c.version)),
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

const ENV_READ: Record<Language, string> = {
  py: 'os\\.environ(\\.get)?[\\[(]["\'][A-Z][A-Z0-9_]{3,}|os\\.getenv\\(["\'][A-Z][A-Z0-9_]{3,}',
  go: 'os\\.(Getenv|LookupEnv)\\("[A-Z][A-Z0-9_]{3,}',
  rs: 'env::var(_os)?\\("[A-Z][A-Z0-9_]{3,}',
  ts: 'process\\.env\\.[A-Z][A-Z0-9_]{3,}|process\\.env\\[["\'][A-Z][A-Z0-9_]{3,}',
};

function envQuestion(dir: string, lang: Language): BenchQuestion | undefined {
  const hits = grepLines(dir, ['-E', ENV_READ[lang]]).filter((h) => !DOC.test(h.rel) && h.text.trim().length < 200);
  const withName = hits
    .map((h) => ({
      h,
      name: /([A-Z][A-Z0-9_]{3,})/.exec(h.text.replace(/^.*?(environ|getenv|Getenv|LookupEnv|var|env)/, ''))?.[1],
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

const ERROR_LITERAL: Record<Language, string> = {
  py: 'raise [A-Za-z]+(Error|Exception)\\(\\s*["\'][A-Za-z][^"\'{}%]{18,70}["\']',
  go: '(errors\\.New|fmt\\.Errorf)\\("[A-Za-z][^"%]{18,70}"',
  rs: '(panic!|bail!|anyhow!|format_err!|err_msg)\\("[A-Za-z][^"{}]{18,70}"',
  ts: 'new [A-Za-z]*Error\\(\\s*[\'"`][A-Za-z][^\'"`$]{18,70}[\'"`]',
};

function errorQuestion(dir: string, lang: Language): BenchQuestion | undefined {
  const hits = grepLines(dir, ['-E', ERROR_LITERAL[lang]]).filter((h) => !TEST_PATH.test(h.rel) && !DOC.test(h.rel));
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

export function generateQuestions(dir: string, workTreeFact: string): BenchQuestion[] {
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
  return questions;
}
