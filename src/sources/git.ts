// The git source: branch, status, diff stat, recent commits and (when the plan
// wants them) the staged and unstaged diffs. All commands run in parallel; the
// whole answer is memoized on a stat-only fingerprint, so a warm request with
// nothing changed spawns no git process at all.

import fs from 'node:fs';
import path from 'node:path';
import type { ContextItem, ContextSource, SourceResult } from '../shared/types.ts';
import { type Capped, capHead } from './cap.ts';
import { type SourceDeps, wants } from './deps.ts';
import type { RepoLocation } from './fingerprint.ts';
import { NO_DRIVERS } from './gitSafety.ts';
import { Memo } from './memo.ts';
import type { BranchHeader } from './statusParse.ts';
import { readTextIfFile } from './syncRead.ts';
import type { Workspaces } from './workspace.ts';

export interface GitSourceOptions {
  statusChars: number;
  diffstatChars: number;
  logChars: number;
  diffChars: number;
  logCount: number;
  timeoutMs: number;
}

export const defaultGitOptions: GitSourceOptions = {
  statusChars: 2_000,
  diffstatChars: 2_000,
  logChars: 2_000,
  diffChars: 20_000,
  logCount: 5,
  timeoutMs: 5_000,
};

/** Repository metadata files are read up to these sizes (regular files only). */
const PACKED_REFS_BYTES = 64 * 1024 * 1024;

const PARTS = ['git.branch', 'git.status', 'git.diffstat', 'git.log', 'git.diff.staged', 'git.diff.unstaged'] as const;

function refExists(repo: RepoLocation, ref: string): boolean {
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

function branchText(header: BranchHeader, repo: RepoLocation): string {
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

function item(key: string, title: string, capped: Capped, kind: ContextItem['kind'], priority: number): ContextItem {
  return {
    key,
    source: 'git',
    title,
    text: capped.text,
    priority,
    kind,
    ...(capped.truncated ? { truncated: true } : {}),
  };
}

export function createGitSource(
  deps: SourceDeps,
  workspaces: Workspaces,
  options: Partial<GitSourceOptions> = {},
): ContextSource {
  const opts = { ...defaultGitOptions, ...options };
  const memo = new Memo<SourceResult>(() => deps.memoTtlMs, deps.clock, 16);

  return {
    name: 'git',
    timeoutMs: opts.timeoutMs,
    async collect(input, signal) {
      const parts = PARTS.filter((part) => wants(input.wanted, part));
      if (parts.length === 0) return { items: [] };
      const ws = workspaces.get(input.workspace);
      const repo = ws.repo();
      if (!repo) {
        const refused = ws.repoRefusal();
        return refused ? { items: [], skipped: [{ path: 'git', reason: refused }] } : { items: [] };
      }
      const result = await memo.get(`${ws.root}|${parts.join(',')}`, ws.gitFingerprint(), async () => {
        const want = (part: string) => parts.includes(part as (typeof PARTS)[number]);
        let git: ReturnType<SourceDeps['git']> | undefined;
        const run = (args: string[]) => {
          git ??= deps.git(ws.root, signal);
          return git.raw(ws.gitArgs(args));
        };
        const status = want('git.branch') || want('git.status') ? ws.status() : Promise.resolve(undefined);
        const headRef = readHeadRef(repo);
        const unborn = headRef !== undefined && !refExists(repo, headRef);
        const [snapshot, diffstat, log, staged, unstaged] = await Promise.all([
          status,
          want('git.diffstat')
            ? run(unborn ? ['diff', ...NO_DRIVERS, '--cached', '--stat'] : ['diff', ...NO_DRIVERS, 'HEAD', '--stat'])
            : '',
          want('git.log') && !unborn
            ? run([
                'log',
                ...NO_DRIVERS,
                '--no-show-signature',
                `-${opts.logCount}`,
                '--date=short',
                '--format=%h %ad %an: %s',
              ])
            : '',
          want('git.diff.staged') ? run(['diff', ...NO_DRIVERS, '--cached']) : '',
          want('git.diff.unstaged') ? run(['diff', ...NO_DRIVERS]) : '',
        ]);
        const items: ContextItem[] = [];
        if (snapshot && want('git.branch')) {
          items.push(
            item('git.branch', 'branch', { text: branchText(snapshot.header, repo), truncated: false }, 'text', 80),
          );
        }
        if (snapshot && want('git.status')) {
          const text = snapshot.shortLines.join('\n') || '(clean: nothing to commit)';
          items.push(
            item('git.status', 'git status --short', capHead(text, opts.statusChars, 'git status --short'), 'text', 70),
          );
        }
        if (want('git.diffstat')) {
          const text = diffstat.trimEnd() || '(no changes against HEAD)';
          items.push(
            item(
              'git.diffstat',
              'git diff HEAD --stat',
              capHead(text, opts.diffstatChars, 'git diff HEAD --stat'),
              'text',
              60,
            ),
          );
        }
        if (want('git.log')) {
          const text = log.trimEnd() || '(no commits yet)';
          items.push(
            item('git.log', `last ${opts.logCount} commits`, capHead(text, opts.logChars, 'git log'), 'text', 55),
          );
        }
        if (want('git.diff.staged')) {
          const text = staged.trimEnd() || '(nothing staged)';
          items.push(
            item(
              'git.diff.staged',
              'git diff --cached',
              capHead(text, opts.diffChars, 'git diff --cached'),
              'diff',
              65,
            ),
          );
        }
        if (want('git.diff.unstaged')) {
          const text = unstaged.trimEnd() || '(no unstaged changes)';
          items.push(item('git.diff.unstaged', 'git diff', capHead(text, opts.diffChars, 'git diff'), 'diff', 65));
        }
        return { items };
      });
      void ws.armWatcherSoon();
      return result;
    },
  };
}

function readHeadRef(repo: RepoLocation): string | undefined {
  const head = readTextIfFile(path.join(repo.gitDir, 'HEAD'), { maxBytes: 4096 })?.trim();
  return head?.startsWith('ref: ') ? head.slice(5) : undefined;
}
