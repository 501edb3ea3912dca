// What the branch and log items say, read from the repository's files where
// that saves a git call: the branch, its upstream and the default branch, and
// the commits of the branch since it left the default one.

import fs from 'node:fs';
import path from 'node:path';
import type { RepoLocation } from '../workspace/fingerprint.ts';
import { readTextIfFile } from '../workspace/syncRead.ts';
import type { BranchHeader } from './statusParse.ts';

/** Repository metadata files are read up to these sizes (regular files only). */
const PACKED_REFS_BYTES = 64 * 1024 * 1024;

/** A ref name read from the repository's files, safe to pass to git as a revision. */
const SAFE_REF = /^[A-Za-z0-9][A-Za-z0-9._/-]*$/;

export function refExists(repo: RepoLocation, ref: string): boolean {
  if (fs.existsSync(path.join(repo.commonDir, ref))) return true;
  const packed = readTextIfFile(path.join(repo.commonDir, 'packed-refs'), { maxBytes: PACKED_REFS_BYTES });
  return packed?.includes(` ${ref}\n`) ?? false;
}

/** origin/HEAD if the clone recorded it, else a local main or master; read from files, no git call. */
export function defaultBranch(repo: RepoLocation): string | undefined {
  const text = readTextIfFile(path.join(repo.commonDir, 'refs', 'remotes', 'origin', 'HEAD'), { maxBytes: 4096 });
  const match = /^ref: refs\/remotes\/(.+)$/m.exec(text ?? '');
  if (match?.[1]) return match[1].trim();
  for (const name of ['main', 'master']) if (refExists(repo, `refs/heads/${name}`)) return name;
  return undefined;
}

/**
 * The refs a question names as what to compare with ("compared to v1.x", "vs develop", "since release/2.0"): for
 * each token that names a local branch, a remote's branch or a tag, the ref as git accepts it. packed-refs is
 * read once for all the tokens.
 */
export function namedRefs(repo: RepoLocation, tokens: readonly string[]): { token: string; ref: string }[] {
  const safe = tokens.filter((token) => SAFE_REF.test(token) && !token.includes('..') && token.length <= 200);
  if (safe.length === 0) return [];
  // The packed refs' names, in one pass: up to 16 tokens × 5 places each searched in a packed-refs file of up to
  // 64 MB would be 80 scans of it.
  const packed = new Set<string>();
  const text = readTextIfFile(path.join(repo.commonDir, 'packed-refs'), { maxBytes: PACKED_REFS_BYTES }) ?? '';
  for (const line of text.split('\n')) {
    const space = line.indexOf(' ');
    if (space > 0 && !line.startsWith('#')) packed.add(line.slice(space + 1));
  }
  const exists = (ref: string) => packed.has(ref) || fs.existsSync(path.join(repo.commonDir, ref));
  const found: { token: string; ref: string }[] = [];
  for (const token of safe) {
    if (exists(`refs/heads/${token}`) || exists(`refs/tags/${token}`) || exists(`refs/remotes/${token}`))
      found.push({ token, ref: token });
    else if (exists(`refs/remotes/origin/${token}`)) found.push({ token, ref: `origin/${token}` });
  }
  return found;
}

export function branchText(header: BranchHeader, repo: RepoLocation): string {
  const lines: string[] = [];
  if (header.branch === undefined) {
    // Unreadable HEAD: leave the hash out.
    const sha = (readTextIfFile(path.join(repo.gitDir, 'HEAD'), { maxBytes: 4096 }) ?? '').trim().slice(0, 12);
    lines.push(`Branch: (detached HEAD${sha ? ` at ${sha}` : ''})`);
  } else {
    lines.push(`Branch: ${header.branch}${header.unborn ? ' (no commits yet)' : ''}`);
  }
  const base = defaultBranch(repo);
  if (base) lines.push(`Default branch: ${base}`);
  if (header.upstream) {
    lines.push(`Upstream: ${header.upstream} (ahead ${header.ahead}, behind ${header.behind})`);
  } else if (header.branch !== undefined) {
    lines.push('Upstream: none');
  }
  return lines.join('\n');
}

export function readHeadRef(repo: RepoLocation): string | undefined {
  const head = readTextIfFile(path.join(repo.gitDir, 'HEAD'), { maxBytes: 4096 })?.trim();
  return head?.startsWith('ref: ') ? head.slice(5) : undefined;
}

/** The default branch to count the current branch's commits from; undefined on it, or without one. */
export function branchBase(repo: RepoLocation, headRef: string | undefined, unborn: boolean): string | undefined {
  if (unborn || headRef === undefined) return undefined;
  const base = defaultBranch(repo);
  if (base === undefined || !SAFE_REF.test(base) || base.includes('..')) return undefined;
  return headRef === `refs/heads/${base}` ? undefined : base;
}

/**
 * The branch's own commits (all, up to the cap) when they are more than the last `count`; else the last `count`.
 * `own` is the same log without the default branch's earlier commits, for a question that does not ask about
 * history: the branch's own commits say what the user is working on, the earlier ones are the default branch's
 * news. Undefined when the branch has none of its own (or is the default branch): then nothing is left to say.
 */
export function logText(
  log: string,
  branchLog: string,
  base: string | undefined,
  headRef: string | undefined,
  count: number,
): { title: string; text: string; own?: { title: string; text: string } } {
  const recent = log.trimEnd().split('\n').filter(Boolean);
  const own = branchLog.trimEnd().split('\n').filter(Boolean);
  if (recent.length === 0) return { title: `last ${count} commits`, text: '(no commits yet)' };
  if (base === undefined) return { title: `last ${count} commits`, text: recent.join('\n') };
  const branch = headRef?.replace(/^refs\/heads\//, '') ?? 'HEAD';
  const title = `commits of ${branch} since ${base}`;
  const lines = [`${own.length} commit(s) on ${branch} since it left ${base}:`, ...own];
  const ownPart = own.length > 0 ? { own: { title, text: lines.join('\n') } } : {};
  const earlier = recent.filter((line) => !own.includes(line));
  if (own.length < count && earlier.length > 0)
    lines.push(`earlier (on ${base}):`, ...earlier.slice(0, count - own.length));
  return { title, text: lines.join('\n'), ...ownPart };
}
