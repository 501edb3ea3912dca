// Question kinds about the files a project keeps by role and about a file's
// origin, generated from the repository with git and plain text alone: a
// release's entries in the changelog, the commands a CI workflow runs, the
// commit that first added a file, the manifest's runtime dependencies. Each fact is a line a developer would read
// in the answer, never the heading or the name the question says.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type BenchQuestion, git } from './questions.ts';

const CHANGELOG = /^(?:changelog|changes|history|news|releases|release[-_]notes)(?:\.(?:md|markdown|rst|txt|adoc))?$/i;
/** A heading naming a version: Markdown's `#`, or a title over an underline (checked by the caller). */
const VERSION_IN = /(?<![\w.])v?(\d{1,4}(?:\.\d{1,4}){1,3})(?![\w-]|\.\d)/;
const ATX = /^#{1,6}\s+\S/;
const UNDERLINE = /^([=\-~^"'`#*+])\1{2,}\s*$/;

const readText = (dir: string, rel: string) => {
  try {
    return readFileSync(path.join(dir, rel), 'utf8');
  } catch {
    return '';
  }
};

/** "What changed in 2.4.0?": an entry under an older release's heading (the newest is a file's head). */
function changelogQuestion(dir: string, files: readonly string[]): BenchQuestion | undefined {
  const rel = files.filter((f) => CHANGELOG.test(path.posix.basename(f))).sort((a, b) => a.length - b.length)[0];
  if (!rel) return undefined;
  const lines = readText(dir, rel).split('\n');
  const headings: { at: number; version: string }[] = [];
  for (let i = 0; i < lines.length && headings.length < 8; i++) {
    const line = lines[i] ?? '';
    const underlined = UNDERLINE.test(lines[i + 1] ?? '') && line.trim() !== '' && !UNDERLINE.test(line);
    const version = VERSION_IN.exec(line)?.[1];
    if (version && (ATX.test(line) || underlined)) headings.push({ at: underlined ? i + 1 : i, version });
  }
  // The third release's heading: older than what a changelog's head shows.
  const chosen = headings[2] ?? headings[1];
  if (!chosen || headings.filter((h) => h.version === chosen.version).length > 1) return undefined;
  for (let i = chosen.at + 1; i < Math.min(lines.length, chosen.at + 12); i++) {
    const line = (lines[i] ?? '').trim();
    if (ATX.test(line) || UNDERLINE.test(line) || UNDERLINE.test(lines[i + 1] ?? '')) continue;
    // An entry: prose of some length, without the version (so the heading alone does not answer).
    if (line.length >= 16 && !line.includes(chosen.version) && /[a-z]{3}/i.test(line)) {
      return {
        id: `changelog:${chosen.version}`,
        kind: 'changelog-release',
        turns: [`What changed in version ${chosen.version}?`],
        facts: [line.slice(0, 60)],
      };
    }
  }
  return undefined;
}

/** "Which commands does the CI run?": a `run:` step (or a script line) of the busiest CI workflow. */
function ciQuestion(dir: string, files: readonly string[]): BenchQuestion | undefined {
  const workflows = files.filter((f) => /^\.github\/workflows\/[^/]+\.ya?ml$|^\.gitlab-ci\.ya?ml$/.test(f));
  let best: { rel: string; runs: string[]; name: string } | undefined;
  for (const rel of workflows) {
    const text = readText(dir, rel);
    const runs = [...text.matchAll(/^[ \t]*(?:-[ \t]*)?run:[ \t]*([^|>\s].{7,})$/gm)].map((m) => (m[1] ?? '').trim());
    const name =
      /^name:\s*["']?([^"'\n]+)/m.exec(text)?.[1]?.trim() ?? path.posix.basename(rel).replace(/\.ya?ml$/, '');
    if (runs.length > (best?.runs.length ?? 0)) best = { rel, runs, name };
  }
  if (!best) return undefined;
  const run = best.runs.find((r) => !/^echo\b/.test(r)) ?? best.runs[0];
  if (!run) return undefined;
  return {
    id: `ci:${best.rel}`,
    kind: 'ci-config',
    turns: [`What does the "${best.name}" CI workflow run?`],
    facts: [run.slice(0, 60)],
  };
}

/** "When was src/x.py first added, and by whom?": the subject of the commit that added a long-lived file. */
function fileOriginQuestion(dir: string, files: readonly string[]): BenchQuestion | undefined {
  const candidates = files.filter(
    (f) =>
      /\.(?:py|ts|js|go|rs|rb|java|c|cc|cpp|h|cs|php|kt|swift)$/.test(f) &&
      !/(?:^|\/)(?:dist|build|vendor|third_party|node_modules)\/|\.min\./.test(f),
  );
  // A file changed many times since it was added: its recent commits do not reach the first.
  const touched = new Map<string, number>();
  for (const line of git(dir, 'log', '-n400', '--format=', '--name-only').split('\n'))
    if (line !== '') touched.set(line, (touched.get(line) ?? 0) + 1);
  const rel = candidates
    .filter((f) => (touched.get(f) ?? 0) >= 8)
    .sort((a, b) => (touched.get(b) ?? 0) - (touched.get(a) ?? 0) || a.localeCompare(b))[0];
  if (!rel) return undefined;
  const added = git(dir, 'log', '--diff-filter=AR', '--format=%s', '--', rel).trim().split('\n').at(-1)?.trim();
  if (!added || added.length < 8) return undefined;
  return {
    id: `origin:${rel}`,
    kind: 'file-origin',
    turns: [`When was ${rel} first added to the repository, and by whom?`],
    facts: [added.slice(0, 60)],
  };
}

/**
 * "What are the project's dependencies?": the last entry of the root manifest's runtime table (so the whole table,
 * not its first line, has to arrive), from package.json, Cargo.toml, pyproject.toml, go.mod or composer.json.
 */
function dependencyListQuestion(dir: string, files: readonly string[]): BenchQuestion | undefined {
  const tables: [string, RegExp, RegExp][] = [
    ['package.json', /^\s*"dependencies"\s*:\s*\{/, /^\s*\}/],
    ['Cargo.toml', /^\[dependencies\]/, /^\[/],
    ['pyproject.toml', /^dependencies\s*=\s*\[/, /^\]/],
    ['go.mod', /^require\s*\(/, /^\)/],
    ['composer.json', /^\s*"require"\s*:\s*\{/, /^\s*\}/],
  ];
  for (const [rel, open, close] of tables) {
    if (!files.includes(rel)) continue;
    const lines = readText(dir, rel).split('\n');
    const start = lines.findIndex((line) => open.test(line));
    if (start < 0) continue;
    const entries: string[] = [];
    for (let i = start + 1; i < lines.length && !close.test(lines[i] ?? ''); i++) {
      const line = (lines[i] ?? '').trim();
      if (line !== '' && !line.startsWith('#') && !line.startsWith('//')) entries.push(line);
    }
    const last = entries.at(-1);
    if (!last || entries.length < 2) continue;
    return {
      id: `deps:${rel}`,
      kind: 'dependency-list',
      turns: ['What are the runtime dependencies of this project?'],
      facts: [last.replace(/,$/, '').slice(0, 60)],
    };
  }
  return undefined;
}

/** The role and origin questions a repository has material for. */
export function roleQuestions(dir: string): BenchQuestion[] {
  const files = git(dir, 'ls-files').split('\n').filter(Boolean);
  return [
    changelogQuestion(dir, files),
    ciQuestion(dir, files),
    fileOriginQuestion(dir, files),
    dependencyListQuestion(dir, files),
  ].filter((q): q is BenchQuestion => q !== undefined);
}
