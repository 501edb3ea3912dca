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
// overrides that switch these off; diffs add `--no-ext-diff --no-textconv`,
// status and diffs `--ignore-submodules=all` (a submodule's own config is not
// read by `git config --list`, and its filters would run in it); the child's
// environment forbids every transport (gitEnvironment.ts). Per-name keys
// (filters, drivers, helpers) are overridden by name: the repository's
// effective config is read with git's own parser, which runs nothing, and
// judged key by key (gitConfigJudge.ts), following includes that stay inside.
// Finally git must work on the repository we checked: a `.git` file, a
// `commondir`, `core.worktree`, an include or an alternates file that leads
// outside the repository folder turns the git source off with a reason, and
// `--work-tree` names its top folder on every call, whatever the config says.

import fs from 'node:fs';
import path from 'node:path';
import { canonicalPath, isInside } from '../workspace/canonicalPath.ts';
import type { RepoLocation } from '../workspace/fingerprint.ts';
import { readTextIfFile } from '../workspace/syncRead.ts';
import { type ConfigEntry, judgeConfig, parseConfigList } from './gitConfigJudge.ts';

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
  'sequence.editor=true',
  'log.showSignature=false',
  'gpg.program=false',
  'gpg.openpgp.program=false',
  'gpg.x509.program=false',
  'gpg.ssh.program=false',
  'protocol.allow=never',
  'protocol.file.allow=never',
  'protocol.ext.allow=never',
  // Submodules are never entered: their own config is not the one judged here.
  'submodule.recurse=false',
  'diff.ignoreSubmodules=all',
  'status.submoduleSummary=false',
  // A folder that merely looks like a bare repository (objects/, refs/, HEAD) is not one.
  'safe.bareRepository=explicit',
  'core.quotePath=false',
];

/** Added to every `diff` and `log` that could print a patch or a stat. */
export const NO_DRIVERS = ['--no-ext-diff', '--no-textconv'] as const;

/** Added to every `status` and `diff`: a submodule is never looked into. */
export const NO_SUBMODULES = ['--ignore-submodules=all'] as const;

export type RepoCheck =
  | {
      ok: true;
      /** Per-name `-c` overrides (`filter.x.clean=`) for what the repository's config defines. */
      overrides: string[];
      /** Config files read besides the repository's own two (includes inside it): a change means a new check. */
      files: string[];
    }
  | {
      ok: false;
      reason: string;
      /** The listing failed (a deadline, git busy or gone): asked again next time rather than kept. */
      retry?: true;
    };

/** Arguments before the subcommand of every call on this repository: the fixed and the per-name overrides. */
export function gitPrefix(overrides: readonly string[], workTree?: string): string[] {
  const out = ['--no-optional-locks'];
  for (const pair of HARDENING_CONFIG) out.push('-c', pair);
  for (const pair of overrides) out.push('-c', pair);
  // Explicit, so no core.worktree (however well hidden) can move git to another folder.
  if (workTree !== undefined) out.push(`--work-tree=${workTree}`);
  return out;
}

const within = (root: string, file: string) => file === root || isInside(root, file);

/**
 * Where the repository's files lead: the git folder, its commondir and the
 * object alternates must stay inside the work tree. Reads only files.
 */
export function checkLocation(repo: RepoLocation): { ok: true } | { ok: false; reason: string } {
  const top = canonicalPath(repo.topLevel);
  const gitDir = canonicalPath(repo.gitDir);
  const commonDir = canonicalPath(repo.commonDir);
  if (!within(top, gitDir)) return { ok: false, reason: '.git points outside the workspace; git context is off' };
  if (!within(top, commonDir)) {
    return { ok: false, reason: 'the commondir of .git points outside the workspace; git context is off' };
  }
  // The config files git reads: a link to a file elsewhere (or to a pipe, which would stall git) is not the repository's.
  for (const file of [path.join(commonDir, 'config'), path.join(gitDir, 'config.worktree')]) {
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    if (stat && (!stat.isFile() || !within(top, canonicalPath(file)))) {
      return { ok: false, reason: 'the repository config is not a file inside the workspace; git context is off' };
    }
  }
  // Alternates chain (git follows five levels): every object folder on the way must stay inside.
  let folders = [path.join(commonDir, 'objects')];
  for (let depth = 0; depth < 6 && folders.length > 0; depth++) {
    const next: string[] = [];
    for (const objects of folders) {
      const alternates = readTextIfFile(path.join(objects, 'info', 'alternates'), { maxBytes: 64 * 1024 });
      for (const line of (alternates ?? '').split('\n')) {
        const entry = line.trim();
        if (entry === '' || entry.startsWith('#')) continue;
        const target = canonicalPath(path.resolve(objects, entry));
        if (!within(top, target)) {
          return { ok: false, reason: 'the object alternates point outside the workspace; git context is off' };
        }
        next.push(target);
      }
    }
    folders = next;
  }
  return { ok: true };
}

/** A listing failed (a config git cannot parse, one too large, git gone): every later call would fail too. */
const UNREADABLE: RepoCheck = {
  ok: false,
  reason: 'git could not read the repository config; git context is off',
  retry: true,
};

/** Bytes of `git config --list` read at most; a config past it is refused (no real one is near). */
export const CONFIG_LIST_BYTES = 1024 * 1024;
/** Included files followed at most (git itself stops at a depth of ten). */
const MAX_INCLUDED_FILES = 20;

/** Arguments that list the effective config git will use here: runs nothing, follows no include. */
export const CONFIG_LIST_ARGS = ['config', '--list', '--show-scope', '-z', '--no-includes'] as const;
/** The same for one included file. */
export const includedFileArgs = (file: string) => ['config', '--file', file, '--list', '-z', '--no-includes'];

/**
 * The whole check, as steps: each `yield` asks for the output of one
 * `git config` listing (arguments after the prefix), so one description drives
 * both the asynchronous check of the sources and a synchronous one for callers
 * that did not wait for it. A listing that fails is thrown into the generator.
 */
export function* checkRepoSteps(repo: RepoLocation, home: string): Generator<string[], RepoCheck, string> {
  const place = checkLocation(repo);
  if (!place.ok) return place;
  const ctx = {
    top: canonicalPath(repo.topLevel),
    gitDir: canonicalPath(repo.gitDir),
    localFile: path.join(canonicalPath(repo.commonDir), 'config'),
    worktreeFile: path.join(canonicalPath(repo.gitDir), 'config.worktree'),
    home,
  };
  let entries: ConfigEntry[];
  try {
    entries = parseConfigList(yield [...CONFIG_LIST_ARGS]);
  } catch {
    return UNREADABLE;
  }
  const overrides = new Set<string>();
  const seen = new Set<string>();
  for (;;) {
    const judged = judgeConfig(entries, ctx);
    if (!judged.ok) return judged;
    for (const pair of judged.overrides) overrides.add(pair);
    const next = judged.includes.filter((file) => !seen.has(file));
    if (next.length === 0) break;
    entries = [];
    for (const file of next) {
      seen.add(file);
      if (seen.size > MAX_INCLUDED_FILES) {
        return { ok: false, reason: 'the repository config includes too many files; git context is off' };
      }
      const stat = fs.statSync(file, { throwIfNoEntry: false });
      // git skips a missing include; a folder or a pipe would stall it.
      if (!stat) continue;
      if (!stat.isFile())
        return {
          ok: false,
          reason: 'the repository config includes a file that is not a regular file; git context is off',
        };
      try {
        for (const entry of parseConfigList(yield includedFileArgs(file), 'include')) entries.push({ ...entry, file });
      } catch {
        return UNREADABLE;
      }
    }
  }
  return { ok: true, overrides: [...overrides].sort(), files: [...seen].sort() };
}

/** Arguments before a `git config` listing: nothing it reads can make it run a command, but git starts the same way. */
const LISTING_PREFIX = ['--no-optional-locks', '-c', 'safe.bareRepository=explicit'];

/** The check, each listing run by `list` (a git runner's `readWhole`, a failure refuses). */
export async function checkRepo(
  repo: RepoLocation,
  home: string,
  list: (args: string[]) => Promise<string>,
): Promise<RepoCheck> {
  try {
    const steps = checkRepoSteps(repo, home);
    let step = steps.next();
    while (!step.done) {
      const text = await list([...LISTING_PREFIX, ...step.value]).catch(() => undefined);
      step = text === undefined ? steps.throw(new Error('listing failed')) : steps.next(text);
    }
    return step.value;
  } catch {
    return UNREADABLE;
  }
}

/** The same check, with every listing run synchronously (see WorkspaceState.gitArgs). */
export function checkRepoSync(repo: RepoLocation, home: string, list: (args: string[]) => string): RepoCheck {
  try {
    const steps = checkRepoSteps(repo, home);
    let step = steps.next();
    while (!step.done) {
      let text: string | undefined;
      try {
        text = list([...LISTING_PREFIX, ...step.value]);
      } catch {
        text = undefined;
      }
      step = text === undefined ? steps.throw(new Error('listing failed')) : steps.next(text);
    }
    return step.value;
  } catch {
    return UNREADABLE;
  }
}
