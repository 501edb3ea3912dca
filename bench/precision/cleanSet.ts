// The clean set: the pinned packages' configuration, tests, fixtures and docs
// (from the cache that fetch.ts fills) and the committed trap files, each
// with the kind it is counted under and the path the redactor is told.

import { type Dirent, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { packageDir, SOURCES } from './fetch.ts';

export interface CleanFile {
  kind: string;
  /** Where it came from: `npm:name@version`, `debian:name_version` or `trap`. */
  origin: string;
  /** The path inside its package (or trap folder), as a repository would hold it. */
  path: string;
  text: string;
}

export const SET_KINDS = ['config', 'tests/fixtures', 'docs'] as const;
export const TRAPS_DIR = join(import.meta.dirname, 'traps');
const MAX_BYTES = 200_000;

const TEST_PATH =
  /(?:^|\/)(?:tests?|__tests__|spec|specs|fixtures?|testdata|test-fixtures|molecule)\/|_test\.go$|\.(?:test|spec)\.[a-z]+$|(?:^|\/)test_[^/]*\.py$/;
const DOC_FILE = /\.(?:md|markdown|rst|txt|html|adoc)$|(?:^|\/)(?:README|CHANGELOG|NEWS|CONTRIBUTING)[^/]*$/i;
const DOC_PATH = /(?:^|\/)(?:docs?|usr\/share\/doc)\//;
const CONFIG_FILE =
  /\.(?:ya?ml|json|toml|ini|cfg|conf|j2|tf|tfvars|hcl|properties|xml|env|example|sample|template)$|(?:^|\/)(?:Dockerfile|Makefile|\.env[^/]*|\.gitlab-ci\.yml)$/;
/** Sources: only test files count (a library's own code is not what this set measures). */
const TEST_SOURCE = /\.(?:[cm]?[jt]sx?|py|go|rb)$/;
const SKIP = /(?:^|\/)(?:LICEN[CS]E|COPYING|copyright|\.complete)[^/]*$|\.d\.[cm]?ts$|\.min\.js$|\.map$/i;

/** The kind a package file counts under, or undefined if it is not in the set. */
export function kindOf(path: string): string | undefined {
  if (SKIP.test(path)) return undefined;
  if (TEST_PATH.test(path) && (CONFIG_FILE.test(path) || DOC_FILE.test(path) || TEST_SOURCE.test(path))) {
    return 'tests/fixtures';
  }
  if (DOC_FILE.test(path) || (DOC_PATH.test(path) && !TEST_SOURCE.test(path))) return 'docs';
  if (CONFIG_FILE.test(path)) return 'config';
  return undefined;
}

function* walk(dir: string): Generator<string> {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else if (entry.isFile() && statSync(path).size < MAX_BYTES) yield path;
  }
}

function readText(path: string): string | undefined {
  const text = readFileSync(path, 'utf8');
  return text.includes('\u0000') || text.includes('\uFFFD') ? undefined : text;
}

export function loadCleanSet(cache: string): { files: CleanFile[]; missing: string[] } {
  const files: CleanFile[] = [];
  const missing: string[] = [];
  const packages = [
    ...SOURCES.npm.map((s) => ({ dir: packageDir(cache, 'npm', s), origin: `npm:${s.name}@${s.version}` })),
    ...SOURCES.debian.map((s) => ({ dir: packageDir(cache, 'debian', s), origin: `debian:${s.name}_${s.version}` })),
  ];
  for (const { dir, origin } of packages) {
    let any = false;
    for (const full of walk(dir)) {
      any = true;
      const path = relative(dir, full).replaceAll('\\', '/');
      const kind = kindOf(path);
      if (!kind) continue;
      const text = readText(full);
      if (text !== undefined) files.push({ kind, origin, path, text });
    }
    if (!any) missing.push(origin);
  }
  for (const trapKind of readdirSync(TRAPS_DIR).sort()) {
    const dir = join(TRAPS_DIR, trapKind);
    for (const full of walk(dir)) {
      const text = readText(full);
      if (text !== undefined) {
        // Trap files end in `.fixture` so that the linter and type checker leave their bytes alone.
        const path = relative(dir, full).replace(/\.fixture$/, '');
        files.push({ kind: `trap: ${trapKind}`, origin: 'trap', path, text });
      }
    }
  }
  return { files, missing };
}
