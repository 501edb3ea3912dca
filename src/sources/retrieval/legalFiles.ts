// "Which license is this released under?": the answer is the head of the
// project's own license file, whatever the ecosystem names it (LICENSE,
// LICENCE.txt, COPYING, COPYING.LESSER, LICENSE-MIT, UNLICENSE, NOTICE), and
// the root's before a vendored library's or a test fixture's. A word search
// finds every file that mentions a license (headers, build scripts, fixtures)
// and no file named COPYING; the file names do.

import path from 'node:path';
import type { GitRunner } from '../git/gitRunner.ts';
import { readPrefix } from '../git/gitRunner.ts';
import { isTestPath } from './regions.ts';
import { NOT_PROXY_OWN } from './search.ts';

/** Asking about the license or copyright of the project. */
export const ASKS_LICENSE = /\blicen[cs](?:e[sd]?|ing)\b|\bcopyright/i;

/** The names a license file has, in the order a project's own is most likely to use. */
const LEGAL_NAMES = ['license', 'licence', 'copying', 'unlicense', 'copyright', 'notice'];

/** Legal files sent, at most: the project's own and one beside it (a dual license, a NOTICE). */
const LEGAL_FILES = 2;

const LIST_BYTES = 32 * 1024;

/** The rank of a path as the project's license file (lower is better), undefined when its name is not one. */
export function legalRank(rel: string): number | undefined {
  const base = path.posix.basename(rel).toLowerCase();
  const at = LEGAL_NAMES.findIndex(
    (name) => base === name || (/^[.\-_]/.test(base.slice(name.length)) && base.startsWith(name)),
  );
  if (at < 0) return undefined;
  // Shallower first; a test fixture's or a vendored copy's license is not the project's.
  const aside = isTestPath(rel) || /(^|\/)(vendor|third[_-]?party|node_modules|deps|external)\//i.test(rel);
  return (aside ? 1000 : 0) + rel.split('/').length * 10 + at;
}

/** The project's license files (`path` → why), best first. */
export async function legalFiles(
  git: GitRunner,
  withPrefix: (args: string[]) => string[],
): Promise<Map<string, string>> {
  const args = ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--'];
  for (const name of LEGAL_NAMES) args.push(`:(icase,glob)**/${name}*`);
  args.push(NOT_PROXY_OWN);
  const { text } = await readPrefix(git, withPrefix(args), LIST_BYTES, '\0');
  const ranked = text
    .split('\0')
    .map((rel) => ({ rel, rank: rel === '' ? undefined : legalRank(rel) }))
    .filter((file): file is { rel: string; rank: number } => file.rank !== undefined)
    .sort((a, b) => a.rank - b.rank || a.rel.localeCompare(b.rel));
  return new Map(ranked.slice(0, LEGAL_FILES).map(({ rel }) => [rel, 'asked about the license: the license file']));
}
