// What the repository's own configuration may set, judged key by key on
// git's own reading of it (`git config --list -z`, so a line that hides a
// second section header from a hand parser hides nothing here). Only entries
// the repository wrote are judged (scope local or worktree, and the files they
// include); the user's global config is theirs. Each entry falls in one class:
//   include.path, includeIf.<cond>.path   followed when the file is inside the
//                                         workspace (its keys judged the same
//                                         way), refused when it is outside
//   core.worktree                         refused unless it is the workspace's
//                                         own top folder
//   a partial clone (extensions.partialClone, remote.<name>.promisor,
//   remote.<name>.partialCloneFilter)     refused: a missing object would be
//                                         fetched, which runs a transport
//   a command git runs (filters, diff and merge drivers, credential helpers,
//   gpg and ssh programs, pagers, editors, upload-pack …)
//                                         switched off by a `-c` override of the
//                                         same key (fixed ones in gitSafety.ts,
//                                         per-name ones returned here); one that
//                                         has no known off value is refused
//   a path git reads (excludes, attributes, mailmap, templates …)
//                                         refused when it leads outside
//   anything else                         harmless to a read-only call

import path from 'node:path';
import { canonicalPath, isInside } from '../workspace/canonicalPath.ts';

export interface ConfigEntry {
  /** `local`, `worktree`, `global`, `system`, `command`; entries of an included file carry `include`. */
  scope: string;
  /** As git prints it: section and variable name in lower case, the subsection as written. */
  key: string;
  /** Undefined for a bare `key` line (a boolean true). */
  value: string | undefined;
  /** The config file the entry came from, when known (includes are resolved against its folder). */
  file?: string;
}

/** Reads `git config --list --show-scope -z`: `scope NUL key LF value NUL …`. */
export function parseConfigList(text: string, scope?: string): ConfigEntry[] {
  const parts = text.split('\0');
  if (parts.at(-1) === '') parts.pop();
  const out: ConfigEntry[] = [];
  for (let i = 0; i < parts.length; ) {
    const entryScope = scope ?? parts[i++] ?? '';
    const pair = parts[i++] ?? '';
    const newline = pair.indexOf('\n');
    out.push({
      scope: entryScope,
      key: newline < 0 ? pair : pair.slice(0, newline),
      value: newline < 0 ? undefined : pair.slice(newline + 1),
    });
  }
  return out;
}

/** Scopes whose entries the repository wrote. */
const REPOSITORY_SCOPES = new Set(['local', 'worktree', 'include']);

/** Per-name commands and their off value, keyed `section.*.variable` (`section.variable` for two-level keys). */
const PER_NAME_OFF: Readonly<Record<string, string>> = {
  'filter.*.clean': '',
  'filter.*.smudge': '',
  'filter.*.process': '',
  'filter.*.required': 'false',
  'diff.*.textconv': '',
  'diff.*.command': '',
  'diff.*.cachetextconv': 'false',
  'merge.*.driver': 'false',
  'credential.*.helper': '',
  'gpg.*.program': 'false',
  'remote.*.uploadpack': 'git-upload-pack',
  'remote.*.receivepack': 'git-receive-pack',
  'remote.*.proxy': '',
  'http.*.proxy': '',
  'protocol.*.allow': 'never',
  // `pager.<command>` is two-level: the command is the variable name.
  'pager.*': 'false',
};

/**
 * Commands switched off for every call by HARDENING_CONFIG (gitSafety.ts), and
 * keys only commands ctxproxy never runs read (aliases too: git never lets one
 * replace a built-in).
 */
const ALWAYS_OFF = new Set([
  'core.fsmonitor',
  'core.hookspath',
  'core.pager',
  'core.editor',
  'core.sshcommand',
  'core.askpass',
  'core.gitproxy',
  'credential.helper',
  'diff.external',
  'gpg.program',
  'log.showsignature',
  'sequence.editor',
  'protocol.allow',
  'http.proxy',
  // A boolean (colours in a pager), and a key git reads only from your own config.
  'color.pager',
  'safe.directory',
  // Read or run only by commands ctxproxy never runs (difftool, mergetool, commit, blame,
  // send-email), by signature checks (off), or by transports (forbidden).
  'commit.template',
  'blame.ignorerevsfile',
  'gpg.ssh.allowedsignersfile',
  'gpg.ssh.revocationfile',
  'gpg.ssh.defaultkeycommand',
  'init.templatedir',
  'http.cookiefile',
  'http.*.cookiefile',
  'diff.tool',
  'merge.tool',
]);

/** Whole sections only commands ctxproxy never runs read (the tools, send-email, the GUIs, aliases). */
const NEVER_RUN_SECTIONS = new Set([
  'alias',
  'difftool',
  'mergetool',
  'sendemail',
  'gui',
  'guitool',
  'instaweb',
  'browser',
  'man',
  'web',
]);

/** Variable names that hold a command: one not handled above has no known off value, so git stays off. */
const COMMAND_NAME =
  /(?:command|cmd|program|helper|hooks?|hookspath|driver|editor|pager|textconv|fsmonitor|askpass|proxy|external|uploadpack|receivepack|tool|process|clean|smudge|vcs|exec|shell)$/;

/** Variable names that hold a path git reads. */
const PATH_NAME = /(?:file|path|dir|directory|template|worktree)$/;

export type Judgement = { ok: true; overrides: string[]; includes: string[] } | { ok: false; reason: string };

export interface JudgeContext {
  /** The work tree's top folder, real path. */
  top: string;
  /** The repository's git folder (relative `core.worktree` resolves against it), real path. */
  gitDir: string;
  /** The config file local entries come from, and the one worktree entries come from. */
  localFile: string;
  worktreeFile: string;
  /** `~/` in an include or a path, as git expands it. */
  home: string;
}

function splitKey(key: string): { section: string; sub: string | undefined; name: string } {
  const first = key.indexOf('.');
  const last = key.lastIndexOf('.');
  return {
    section: key.slice(0, first).toLowerCase(),
    sub: last > first ? key.slice(first + 1, last) : undefined,
    name: key.slice(last + 1).toLowerCase(),
  };
}

/** A path value as git expands it (`~/`), against `base` when relative. */
function expandPath(value: string, base: string, home: string): string {
  if (value === '~' || value.startsWith('~/')) return path.join(home, value.slice(1));
  return path.resolve(base, value);
}

// Reasons name a key by section and variable only: a subsection is the repository's text, and reasons reach the audit.
const refuse = (reason: string): Judgement => ({ ok: false, reason: `${reason}; git context is off` });

const truthy = (value: string | undefined) => value === undefined || /^(?:true|yes|on|1)$/i.test(value.trim());

/**
 * Judges every entry the repository wrote. Returns the `-c` overrides that
 * switch off its per-name commands and the inside files it includes (to be read
 * and judged next), or the first reason git must stay off.
 */
export function judgeConfig(entries: readonly ConfigEntry[], ctx: JudgeContext): Judgement {
  const overrides = new Set<string>();
  const includes = new Set<string>();
  const inside = (file: string) => {
    const real = canonicalPath(file);
    return real === ctx.top || isInside(ctx.top, real);
  };
  for (const entry of entries) {
    if (!REPOSITORY_SCOPES.has(entry.scope)) continue;
    const { section, sub, name } = splitKey(entry.key);
    const value = entry.value ?? '';
    const file = entry.file ?? (entry.scope === 'worktree' ? ctx.worktreeFile : ctx.localFile);
    if ((section === 'include' && sub === undefined) || section === 'includeif') {
      if (name !== 'path') continue;
      // `%(prefix)/` names git's install folder: outside by definition.
      const target = value.startsWith('%(') ? '/' : expandPath(value, path.dirname(file), ctx.home);
      if (!inside(target)) return refuse('the repository config includes a file outside the workspace');
      includes.add(canonicalPath(target));
      continue;
    }
    if (section === 'core' && name === 'worktree' && sub === undefined) {
      if (canonicalPath(path.resolve(ctx.gitDir, value)) !== ctx.top) {
        return refuse('core.worktree points away from the workspace');
      }
      continue;
    }
    if (
      (section === 'extensions' && name === 'partialclone') ||
      (section === 'remote' && sub !== undefined && name === 'partialclonefilter') ||
      (section === 'remote' && sub !== undefined && name === 'promisor' && truthy(entry.value)) ||
      (section === 'core' && name === 'partialclonefilter')
    ) {
      return refuse('the repository is a partial clone (a missing object would be fetched)');
    }
    const pattern = sub !== undefined ? `${section}.*.${name}` : `${section}.${name}`;
    const twoLevel = sub === undefined ? `${section}.*` : undefined;
    // Fixed subsections (`gpg.ssh.*`) are matched as written too.
    const literal = sub !== undefined ? `${section}.${sub.toLowerCase()}.${name}` : pattern;
    if (NEVER_RUN_SECTIONS.has(section) || ALWAYS_OFF.has(pattern) || ALWAYS_OFF.has(literal)) continue;
    const off = PER_NAME_OFF[pattern] ?? (twoLevel !== undefined ? PER_NAME_OFF[twoLevel] : undefined);
    if (off !== undefined) {
      // `-c` splits at the first `=`, and a line break ends it: such a key cannot be overridden.
      if (/[=\n\0]/.test(entry.key))
        return refuse(`the repository config sets ${section}.${name} under a name -c cannot override`);
      overrides.add(`${entry.key}=${off}`);
      continue;
    }
    if (COMMAND_NAME.test(name)) {
      return refuse(`the repository config sets a command (${section}.${name}) that cannot be switched off`);
    }
    if (PATH_NAME.test(name) && value !== '' && !inside(expandPath(value, ctx.top, ctx.home))) {
      return refuse(`the repository config points ${section}.${name} outside the workspace`);
    }
  }
  return { ok: true, overrides: [...overrides].sort(), includes: [...includes].sort() };
}
