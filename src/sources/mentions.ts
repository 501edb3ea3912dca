// Paths named in the conversation: plain paths, `@path` mentions and paths
// inside code blocks. Candidates are resolved against the workspace; only the
// ones that exist (and stay inside it) count as named files.

import fs from 'node:fs';
import path from 'node:path';
import { messageText } from '../shared/messageText.ts';
import { parseWindow } from '../shared/parseWindow.ts';
import type { ChatMessage } from '../shared/types.ts';

const MAX_CANDIDATES = 200;
/** Well-known files without an extension that users name bare. */
const BARE_NAMES =
  /^(Makefile|Dockerfile|Containerfile|Justfile|Procfile|Gemfile|Rakefile|Jenkinsfile|Vagrantfile|LICENSE|CODEOWNERS)$/;
/** A bare name anywhere in a raw token: the token (a part of it) can only be one if this matches. */
const BARE_NAME_INSIDE = new RegExp(BARE_NAMES.source.slice(1, -1));

/** Text of the user's messages: the files they name are "in play". */
export function userText(messages: readonly ChatMessage[]): string {
  // Bounded (shared/parseWindow.ts): the parsers below are linear but slow per character.
  return parseWindow(
    messages
      .filter((m) => m.role === 'user')
      .map((message) => messageText(message))
      .join('\n'),
  );
}

/** Splits markdown into prose and the bodies of fenced code blocks. */
export function splitFences(text: string): { prose: string; code: string } {
  // No fence marker anywhere: every line is prose (the common case, and a large paste's).
  if (!text.includes('```') && !text.includes('~~~')) return { prose: text, code: '' };
  const prose: string[] = [];
  const code: string[] = [];
  let fence: string | undefined;
  for (const line of text.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (fence === undefined || marker[0] === fence)) {
      fence = fence === undefined ? marker[0] : undefined;
      continue;
    }
    (fence === undefined ? prose : code).push(line);
  }
  return { prose: prose.join('\n'), code: code.join('\n') };
}

/** Path-looking tokens, in order of first appearance, without `@`, quotes, trailing punctuation or `:line:col`. */
export function pathCandidates(text: string): string[] {
  const seen = new Set<string>();
  for (const raw of text.split(/[\s"'`()<>[\]{},;|=]+/)) {
    // Cheap checks first (a large paste has many tokens): a token is shorter than its raw text, and
    // without a `/` or `.` it can only be a bare name.
    if (raw.length < 2) continue;
    if (!raw.includes('/') && !raw.includes('.') && !BARE_NAME_INSIDE.test(raw)) continue;
    if (raw.includes('://')) continue;
    let token = raw.replace(/^@/, '').replace(/^file:/, '');
    token = token.replace(/(?::\d+)+:?$/, '').replace(/[.:!?]+$/, '');
    if (token.length < 2 || token.length > 300) continue;
    const looksLikePath = token.includes('/') || /^[\w.-]*\.[A-Za-z][\w-]{0,9}$/.test(token) || BARE_NAMES.test(token);
    if (!looksLikePath || /^\.+$/.test(token)) continue;
    seen.add(token);
    if (seen.size >= MAX_CANDIDATES) break;
  }
  return [...seen];
}

export interface ResolvedMention {
  /** Workspace-relative path with `/` separators. */
  rel: string;
  abs: string;
  /** True when the user named it in prose or with `@`; false when it only appeared inside a code block. */
  explicit: boolean;
}

export interface MentionResult {
  inside: ResolvedMention[];
  /** Named paths that exist but resolve outside the workspace (also through symlinks). */
  outside: string[];
}

export function resolveCandidate(workspace: string, home: string, token: string): string {
  if (token.startsWith('~/')) return path.join(home, token.slice(2));
  return path.resolve(workspace, token);
}

export function isInside(root: string, abs: string): boolean {
  const rel = path.relative(root, abs);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

/**
 * Existing files named in the text (the workspace given as a real path);
 * directories are ignored. Synchronous on
 * purpose: a handful of stat calls cost microseconds, a thread-pool round trip
 * each would cost more than the whole warm request.
 */
export function namedFiles(workspace: string, home: string, text: string): MentionResult {
  // Callers pass the workspace as a real path already (Workspaces resolves it once).
  const realWorkspace = workspace;
  const lstat = (file: string) => fs.lstatSync(file, { throwIfNoEntry: false });
  const byRel = new Map<string, ResolvedMention>();
  const outside: string[] = [];
  const { prose, code } = splitFences(text);
  const explicit = new Set(pathCandidates(prose));
  for (const token of new Set([...explicit, ...pathCandidates(code)])) {
    const abs = resolveCandidate(realWorkspace, home, token);
    let isFile = false;
    let linked = false;
    try {
      const own = lstat(abs);
      linked = own?.isSymbolicLink() ?? false;
      isFile = (linked ? fs.statSync(abs, { throwIfNoEntry: false }) : own)?.isFile() ?? false;
    } catch {
      continue;
    }
    if (!isFile) continue;
    // Only a symlink (the file or a folder on its way) can lead outside; resolve only then.
    const real = linked || hasLinkedParent(realWorkspace, abs) ? realOr(abs) : abs;
    if (!isInside(realWorkspace, abs) || !isInside(realWorkspace, real)) {
      outside.push(token);
      continue;
    }
    const rel = path.relative(realWorkspace, abs).split(path.sep).join('/');
    const known = byRel.get(rel);
    if (known) known.explicit ||= explicit.has(token);
    else byRel.set(rel, { rel, abs, explicit: explicit.has(token) });
  }
  const inside = [...byRel.values()].sort((a, b) => a.rel.localeCompare(b.rel));
  return { inside, outside: outside.sort() };
}

function realOr(file: string): string {
  try {
    return fs.realpathSync.native(file);
  } catch {
    return file;
  }
}

/** Whether a folder between `root` and `file` is a symlink. */
function hasLinkedParent(root: string, file: string): boolean {
  if (!isInside(root, file)) return true;
  let dir = path.dirname(file);
  while (dir !== root && dir.length > root.length) {
    if (fs.lstatSync(dir, { throwIfNoEntry: false })?.isSymbolicLink()) return true;
    dir = path.dirname(dir);
  }
  return false;
}
