// Git run as on an untrusted repository. The workspace may be a clone, an
// unpacked archive or a folder with a committed `evilgit/` that a `.git` file
// points at; its git configuration is then written by a stranger, and several
// keys in it make git run commands even for the read-only calls we make
// (status, diff, log, ls-files):
//   core.fsmonitor            run on every index refresh (status, diff)
//   filter.<name>.clean/process  run by status and diff on modified files that
//                             `.gitattributes` assigns to the filter
//   diff.external, diff.<name>.command / .textconv  run by diff (and --stat)
//   core.hooksPath            hooks (post-index-change can fire on an index write)
//   core.pager / core.editor, log.showSignature + gpg.program, core.sshCommand,
//   credential.helper, lazy fetches of a partial clone (remote helpers)
// Command-line `-c` wins over every config file, so each call starts with
// overrides that switch these off; diffs add `--no-ext-diff --no-textconv`;
// `protocol.allow=never` makes any fetch (a lazy one included) fail instead of
// running a transport. Filters have per-name keys, so the repository's own
// config is read (it is a small INI file) and every filter it defines is
// overridden by name with an empty command; a config that includes other files
// turns git off, since their filters cannot be known without following them.
// Finally git must work on the repository we checked: a `.git` file, a
// `commondir`, `core.worktree` or an alternates file that leads outside the
// repository folder turns the git source off with a reason.

import fs from 'node:fs';
import path from 'node:path';
import type { RepoLocation } from './fingerprint.ts';
import { isInside } from './mentions.ts';
import { readTextIfFile } from './syncRead.ts';

/** Overrides passed with `-c` before every git command. */
export const HARDENING_CONFIG: readonly string[] = [
  'core.fsmonitor=false',
  'core.hooksPath=/dev/null',
  'core.pager=cat',
  'core.editor=true',
  'core.sshCommand=false',
  'core.askPass=false',
  'core.gitProxy=false',
  'credential.helper=',
  'diff.external=',
  'log.showSignature=false',
  'gpg.program=false',
  'protocol.allow=never',
  // A folder that merely looks like a bare repository (objects/, refs/, HEAD) is not one.
  'safe.bareRepository=explicit',
  'core.quotePath=false',
];

/** Added to every `diff` and `log` that could print a patch or a stat. */
export const NO_DRIVERS = ['--no-ext-diff', '--no-textconv'] as const;

export type RepoCheck = { ok: true; filters: string[] } | { ok: false; reason: string };

/** `-c` pairs for every call on this repository, before the subcommand. */
export function gitPrefix(filters: readonly string[]): string[] {
  const out = ['--no-optional-locks'];
  for (const pair of HARDENING_CONFIG) out.push('-c', pair);
  for (const name of filters) {
    for (const key of ['clean', 'smudge', 'process']) out.push('-c', `filter.${name}.${key}=`);
    out.push('-c', `filter.${name}.required=false`);
  }
  return out;
}

function realOr(file: string): string {
  try {
    return fs.realpathSync.native(file);
  } catch {
    return path.resolve(file);
  }
}

const within = (root: string, file: string) => file === root || isInside(root, file);

export interface ParsedConfig {
  filters: Set<string>;
  includes: boolean;
  worktree: string | undefined;
}

/** The parts of a git config file that matter here: filter names, includes, core.worktree. */
export function parseGitConfig(text: string): ParsedConfig {
  const out: ParsedConfig = { filters: new Set(), includes: false, worktree: undefined };
  let section = '';
  let sub: string | undefined;
  for (const raw of text.split('\n')) {
    let line = raw.trim();
    const header = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]/.exec(line);
    if (header) {
      const name = (header[1] ?? '').toLowerCase();
      const dot = name.indexOf('.');
      // `[filter.x]` is the old spelling of `[filter "x"]`.
      section = dot > 0 ? name.slice(0, dot) : name;
      sub = header[2] !== undefined ? header[2].replace(/\\(.)/g, '$1') : dot > 0 ? name.slice(dot + 1) : undefined;
      if (section === 'include' || section === 'includeif') out.includes = true;
      if (section === 'filter' && sub !== undefined) out.filters.add(sub);
      line = line.slice(header[0].length).trim();
    }
    const entry = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$/.exec(line);
    if (entry && section === 'core' && entry[1]?.toLowerCase() === 'worktree') {
      out.worktree = (entry[2] ?? '').replace(/^"(.*)"$/, '$1').trim();
    }
  }
  return out;
}

/**
 * Whether git may run on this repository, and which filters to switch off.
 * Reads only files (no git process), so it is cheap enough for every request.
 */
export function checkRepo(repo: RepoLocation): RepoCheck {
  const top = realOr(repo.topLevel);
  const gitDir = realOr(repo.gitDir);
  const commonDir = realOr(repo.commonDir);
  if (!within(top, gitDir)) return { ok: false, reason: '.git points outside the workspace; git context is off' };
  if (!within(top, commonDir)) {
    return { ok: false, reason: 'the commondir of .git points outside the workspace; git context is off' };
  }
  const filters = new Set<string>();
  for (const file of [path.join(commonDir, 'config'), path.join(gitDir, 'config.worktree')]) {
    const text = readTextIfFile(file, { maxBytes: 256 * 1024 });
    if (text === undefined) continue;
    const parsed = parseGitConfig(text);
    if (parsed.includes) {
      return { ok: false, reason: 'the repository config includes other files; git context is off' };
    }
    if (parsed.worktree !== undefined && realOr(path.resolve(gitDir, parsed.worktree)) !== top) {
      return { ok: false, reason: 'core.worktree points away from the workspace; git context is off' };
    }
    for (const name of parsed.filters) {
      // `-c` splits at the first `=`: such a name could not be overridden, so git stays off.
      if (/[=\n\0]/.test(name)) return { ok: false, reason: 'a filter name cannot be overridden; git context is off' };
      filters.add(name);
    }
  }
  const alternates = readTextIfFile(path.join(commonDir, 'objects', 'info', 'alternates'), { maxBytes: 64 * 1024 });
  for (const line of (alternates ?? '').split('\n')) {
    const entry = line.trim();
    if (entry === '' || entry.startsWith('#')) continue;
    if (!within(top, realOr(path.resolve(commonDir, 'objects', entry)))) {
      return { ok: false, reason: 'the object alternates point outside the workspace; git context is off' };
    }
  }
  return { ok: true, filters: [...filters].sort() };
}
