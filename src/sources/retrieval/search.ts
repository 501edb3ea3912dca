// The one search behind retrieval: `git grep` of the question's terms over the
// work tree (tracked files and untracked ones that are not ignored), fixed
// strings, whole words for names, run through the hardened git runner and read
// up to a byte limit (git is stopped there). Linear in the repository, with no
// index to build: what a developer would type first.

import type { GitRunner } from '../git/gitRunner.ts';
import { readPrefix } from '../git/gitRunner.ts';
import { BUILD_OUTPUT_GLOBS } from './buildOutput.ts';

export interface GrepHit {
  /** Workspace-relative path, `/`-separated. */
  rel: string;
  /** 1-based. */
  line: number;
  text: string;
}

export interface GrepRequest {
  patterns: readonly string[];
  /** Whole words (`-w`): for names; quoted strings and error text are matched anywhere. */
  words: boolean;
  /** The patterns are extended regular expressions (`-E`), not fixed strings: a shape, not a spelling. */
  regex?: boolean | undefined;
  ignoreCase?: boolean | undefined;
  /** Pathspecs to search (default: the whole work tree). */
  paths?: readonly string[] | undefined;
  /** Matching lines kept per file, at most. */
  perFile: number;
  maxBytes: number;
  /** Search only the tracked build output the other searches skip (buildOutput.ts: the last resort). */
  buildOutput?: boolean | undefined;
}

/** A hit line longer than this is minified or data; only its head is kept. */
const MAX_LINE_CHARS = 400;

/**
 * ctxproxy's own folder (audit log, index) at any depth. Its .gitignore is written just after the
 * folder is made, so a listing or search in between must not read it (the status and the walk skip it too).
 */
export const NOT_PROXY_OWN = ':(exclude,glob)**/.ctxproxy/**';

/** Pathspecs never searched: bundles, maps and vendored trees repeat the sources (buildOutput.ts is the last resort). */
const EXCLUDED = [NOT_PROXY_OWN, ...BUILD_OUTPUT_GLOBS.map((glob) => `:(exclude,glob)${glob}`)];

export function grepArgs(request: GrepRequest): string[] {
  const args = [
    'grep',
    '-z',
    '-n',
    '-I',
    '--no-color',
    // Build output is tracked (committed bundles); elsewhere untracked files that are not ignored count too.
    ...(request.buildOutput ? [] : ['--untracked', '--exclude-standard']),
    request.regex ? '-E' : '-F',
  ];
  if (request.words) args.push('-w');
  if (request.ignoreCase) args.push('-i');
  args.push(`--max-count=${request.perFile}`);
  for (const pattern of request.patterns) args.push('-e', pattern);
  if (request.buildOutput) args.push('--', ...BUILD_OUTPUT_GLOBS.map((glob) => `:(glob)${glob}`), NOT_PROXY_OWN);
  else args.push('--', ...(request.paths ?? ['.']), ...EXCLUDED);
  return args;
}

/** Parses `path\0line\0text` records (`git grep -z -n`). */
export function parseGrep(text: string): GrepHit[] {
  const hits: GrepHit[] = [];
  let at = 0;
  while (at < text.length) {
    const end = text.indexOf('\n', at);
    const record = text.slice(at, end === -1 ? text.length : end);
    at = end === -1 ? text.length : end + 1;
    const first = record.indexOf('\0');
    const second = first < 0 ? -1 : record.indexOf('\0', first + 1);
    if (second < 0) continue;
    const line = Number(record.slice(first + 1, second));
    if (!Number.isInteger(line) || line < 1) continue;
    hits.push({ rel: record.slice(0, first), line, text: record.slice(second + 1, second + 1 + MAX_LINE_CHARS) });
  }
  return hits;
}

/**
 * Runs one grep. Exit 1 (nothing found) is an empty answer, not a failure;
 * `cut` says the byte limit stopped git before it was done.
 */
export async function grep(
  git: GitRunner,
  withPrefix: (args: string[]) => string[],
  request: GrepRequest,
): Promise<{ hits: GrepHit[]; cut: boolean }> {
  if (request.patterns.length === 0) return { hits: [], cut: false };
  try {
    const { text, cut } = await readPrefix(git, withPrefix(grepArgs(request)), request.maxBytes);
    return { hits: parseGrep(text), cut };
  } catch (error) {
    if ((error as { exitCode?: number | null }).exitCode === 1) return { hits: [], cut: false };
    throw error;
  }
}
