// The manifests source (`manifests.<path>`): what the project's manifests say
// about its runtimes and how to build, test and lint it (manifestFacts.ts),
// from the workspace root and the folders in play (those of the files named in
// the conversation or changed in the work tree, up to the root). Every file
// goes through the guard; ignored and never-read manifests are never read.
// An item is sent only when the question can use it (usableBy): it asks for
// versions, tests or builds, names the file, or says a word the item holds.

import path from 'node:path';
import { pathsInPlay } from '../shared/question.ts';
import type { Question } from '../shared/questionTypes.ts';
import type { ContextItem, ContextSource, SkippedPath } from '../shared/types.ts';
import { capHead } from './cap.ts';
import { defineSource } from './defineSource.ts';
import type { SourceDeps } from './deps.ts';
import * as facts from './manifestFacts.ts';
import { TrackedMemo } from './trackedMemo.ts';
import { FileGuard, workspaceZone } from './workspace/guard.ts';
import type { Workspaces } from './workspace.ts';

/** Manifests larger than this are not what their name says; skipped with a note. */
const MAX_BYTES = 256 * 1024;
/** Folders besides the root looked at, at most (nearest to the files in play first). */
const MAX_DIRS = 8;
const MAX_CHARS = 2_500;

type Reader = (text: string) => string[];

const READERS: Record<string, Reader> = {
  'package.json': facts.packageJsonFacts,
  'pyproject.toml': facts.pyprojectFacts,
  'setup.cfg': facts.setupCfgFacts,
  'go.mod': facts.goModFacts,
  'Cargo.toml': facts.cargoFacts,
  'pom.xml': facts.pomFacts,
  'build.gradle': facts.gradleFacts,
  'build.gradle.kts': facts.gradleFacts,
  Makefile: facts.makeTargets,
  GNUmakefile: facts.makeTargets,
  makefile: facts.makeTargets,
  justfile: facts.justRecipes,
  Justfile: facts.justRecipes,
  '.justfile': facts.justRecipes,
  'rust-toolchain.toml': (text) => {
    const table = facts.readToml(text);
    const channel = table && facts.tomlGet(table, 'toolchain', 'channel');
    return typeof channel === 'string' ? [`rust: ${channel}`] : [];
  },
};
for (const name of [
  '.nvmrc',
  '.node-version',
  '.python-version',
  '.ruby-version',
  '.go-version',
  '.java-version',
  '.tool-versions',
  'rust-toolchain',
]) {
  READERS[name] = (text) => facts.versionFileFacts(name, text);
}

function readerFor(name: string): Reader | undefined {
  const own = Object.hasOwn(READERS, name) ? READERS[name] : undefined;
  if (own) return own;
  return /^requirements[\w.-]*\.txt$/.test(name) ? facts.requirementsFacts : undefined;
}

/** The root, then the folders of the files in play and their parents (nearest first), inside the workspace. */
export function foldersInPlay(files: readonly string[], max = MAX_DIRS): string[] {
  const dirs: string[] = [];
  for (const rel of files) {
    for (let dir = path.posix.dirname(rel); dir !== '.' && dir !== '' && !dir.startsWith('..'); ) {
      if (!dirs.includes(dir)) dirs.push(dir);
      const up = path.posix.dirname(dir);
      if (up === dir) break;
      dir = up;
    }
    if (dirs.length >= max) break;
  }
  return ['', ...dirs.slice(0, max)];
}

export function createManifestsSource(deps: SourceDeps, workspaces: Workspaces): ContextSource {
  const memo = new TrackedMemo<{ items: ContextItem[]; skipped: SkippedPath[] }>(deps);
  return defineSource(
    workspaces,
    { name: 'manifests', timeoutMs: 2_000, answers: ['manifests.'] },
    async ({ ws, input }) => {
      const root = ws.root;
      const named = ws.named(deps.homeDir, pathsInPlay(input.question)).inside.map((m) => m.rel);
      const status = await ws.status().catch(() => undefined);
      const dirs = foldersInPlay([...named, ...(status?.changedFiles ?? [])]);
      const found = await memo.get(`${root}|${dirs.join('\0')}`, async (tracker) => {
        const guard = new FileGuard(deps.isNeverRead);
        const zone = workspaceZone(root, deps.allowedRoots);
        const items: ContextItem[] = [];
        const skipped: SkippedPath[] = [];
        const isGitIgnored = (rel: string) => ws.listings.ignored(rel);
        for (const dir of dirs) {
          const abs = path.join(root, dir);
          if (dir !== '' && isGitIgnored(`${dir}/`)) continue;
          for (const entry of ws.listings.list(abs, tracker)) {
            const reader = entry.isFile() || entry.isSymbolicLink() ? readerFor(entry.name) : undefined;
            if (!reader) continue;
            const rel = dir === '' ? entry.name : `${dir}/${entry.name}`;
            if (isGitIgnored(rel)) continue;
            tracker.track(path.join(root, rel));
            const read = guard.read(path.join(root, rel), zone, [rel], { maxBytes: MAX_BYTES, skipLarger: true });
            if (read.refused) {
              skipped.push({ path: rel, reason: read.refused });
              continue;
            }
            if (read.text === undefined) continue;
            const lines = reader(read.text);
            if (lines.length === 0) continue;
            const capped = capHead(lines.join('\n'), MAX_CHARS, `cat ${rel}`);
            items.push({
              key: `manifests.${rel}`,
              source: 'manifests',
              title: rel,
              text: capped.text,
              // The root's manifests first: they say how the whole project runs.
              priority: dir === '' ? 75 : 70,
              kind: 'text',
              path: rel,
              why:
                dir === ''
                  ? 'project manifest: how the project builds and runs'
                  : `manifest of ${dir}/, a folder named in the conversation or changed`,
              ...(capped.truncated ? { truncated: true } : {}),
            });
          }
        }
        return { items, skipped };
      });
      const usable = usableBy(input.question, named);
      return { ...found, items: found.items.filter(usable) };
    },
  );
}

/** Intents a manifest's facts (runtimes, dependency versions, build, test and lint commands) answer. */
const MANIFEST_INTENTS = new Set(['version', 'tests', 'build']);
/** Terms shorter than this match too much of a manifest by chance (`go`, `rs`). */
const MIN_TERM = 3;

/**
 * Whether a manifest's item says something the question can use: the question asks for versions, tests or how
 * to build and lint, or is about the project as a whole; or it names the manifest's file; or one of its terms
 * (a name, a package, a version, a quoted string, a word) is a word of the item. Otherwise the item answers nothing asked (vite's four
 * package.json summaries were ~650 tokens beside every definition question) and is left out.
 */
export function usableBy(question: Question, named: readonly string[]): (item: ContextItem) => boolean {
  // No question to read (a request without user text): every manifest, as nothing says which is not needed.
  if (question.text.trim() === '') return () => true;
  if (question.intents.some((intent) => MANIFEST_INTENTS.has(intent))) return () => true;
  // A question about the project as a whole ("how is this repository laid out?") points at nothing of its own:
  // the manifests are its summary (which packages, where, how they run).
  if (pointsAtNothing(question)) return () => true;
  const terms = new Set<string>();
  for (const id of question.identifiers) for (const name of id.tries) terms.add(name.toLowerCase());
  for (const term of [...question.packages, ...question.versions, ...question.quoted, ...question.words])
    terms.add(term.toLowerCase());
  const words = [...terms].filter((term) => term.length >= MIN_TERM);
  return (item) => {
    if (item.path !== undefined && named.includes(item.path)) return true;
    if (words.length === 0) return false;
    const text = item.text.toLowerCase();
    return words.some((word) => containsWord(text, word));
  };
}

/** No name, path, quoted text, error, package, version or intent: a question about the whole project. */
function pointsAtNothing(q: Question): boolean {
  const named = [q.identifiers, q.paths, q.quoted, q.errors, q.packages, q.versions, q.intents];
  return named.every((list) => list.length === 0) && q.subject === undefined;
}

/** `word` in `text` with no word character on either side (one indexOf scan per occurrence). */
function containsWord(text: string, word: string): boolean {
  const isWord = (ch: string | undefined) => ch !== undefined && /[\w]/.test(ch);
  for (let at = text.indexOf(word); at >= 0; at = text.indexOf(word, at + 1)) {
    if (!isWord(text[at - 1]) && !isWord(text[at + word.length])) return true;
  }
  return false;
}
