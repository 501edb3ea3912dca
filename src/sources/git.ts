// The git source: branch, status, diff stat, the commits of the branch (and,
// for a question about history, the default branch's before them: at least the
// last ten in all), and (when the plan wants them) the staged and unstaged
// changed lines and the untracked files with their heads. All commands run in
// parallel, each read up to a byte limit sized from what its item keeps, and
// each part stands alone: a command that fails costs its own item, named in
// the report. The whole answer is memoized on a stat-only fingerprint, so a
// warm request with nothing changed spawns no git process at all.

import type { ContextItem, ContextSource, SkippedPath, SourceResult } from '../shared/types.ts';
import { type Capped, capHead } from './cap.ts';
import { defineSource } from './defineSource.ts';
import type { SourceDeps } from './deps.ts';
import { diffKeeper } from './git/diffKeeper.ts';
import { renderDiff, segmentsThrough } from './git/diffText.ts';
import { branchBase, branchText, logText, readHeadRef, refExists } from './git/gitBranch.ts';
import { formatBytes, GitCommandError, gitErrorReason, readKept, readPrefix } from './git/gitRunner.ts';
import { NO_DRIVERS, NO_SUBMODULES } from './git/gitSafety.ts';
import { Memo } from './memo.ts';
import { expandArgs, untrackedEntries, untrackedFiles, untrackedItems } from './untracked.ts';
import type { Workspaces } from './workspace.ts';

/**
 * One line of context around each change, not git's three: the hunk header
 * already names the enclosing function, the changed lines are what the model
 * cannot see anywhere else, and a work in progress touching many places then
 * costs its changes, not the unchanged lines beside them (the file itself is
 * one lookup away: files.named, symbols.def, or deep's files.changed).
 */
const DIFF_CONTEXT = ['--unified=1'] as const;

export interface GitSourceOptions {
  statusChars: number;
  diffstatChars: number;
  logChars: number;
  diffChars: number;
  /**
   * Bytes of a diff kept (diffKeeper.ts): in all (default 64 times `diffChars`: the
   * rendering picks the smallest hunks of every file, and names lockfiles and
   * generated files without their lines wherever they come in git's order), for
   * one file (default 4 times `diffChars`), and read at most before git is stopped.
   */
  diffBytes?: number | undefined;
  diffFileBytes?: number | undefined;
  diffReadBytes: number;
  /**
   * Files larger than this are not diffed at all: git reports them as binary
   * (`core.bigFileThreshold`), and the diffstat gives their sizes. Diffing one
   * costs git time in proportion to its size (more for a file built to be
   * slow) and its lines would be cut to `diffFileBytes` anyway; past the read
   * limit, it would also hide the edits git lists after it.
   */
  diffBigFileBytes: number;
  /** Commits always shown; more when the branch has more since it left the default branch. */
  logCount: number;
  /** Commits of the branch shown at most. */
  branchLogMax: number;
  timeoutMs: number;
}

export const defaultGitOptions: GitSourceOptions = {
  statusChars: 2_000,
  diffstatChars: 2_000,
  logChars: 2_000,
  diffChars: 12_000,
  diffReadBytes: 64 * 1024 * 1024,
  diffBigFileBytes: 8 * 1024 * 1024,
  logCount: 10,
  branchLogMax: 50,
  timeoutMs: 5_000,
};

/** Both logs have a fixed number of one-line commits; only a hostile subject line reaches this. */
const LOG_BYTES = 256 * 1024;
/** Names of the files inside untracked folders (the item lists a hundred of them). */
const UNTRACKED_BYTES = 4 * 1024 * 1024;
const EMPTY = { text: '', cut: false };

/** Bytes read for an item cut to `chars` characters by line: room for many more lines than are kept. */
const textBytes = (chars: number) => Math.max(64 * 1024, 16 * chars);

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

function settle<T>(promise: Promise<T>): Promise<Settled<T>> {
  return promise.then(
    (value) => ({ ok: true, value }),
    (error: unknown) => ({ ok: false, error }),
  );
}

/** An item whose command's output was cut at a byte limit says so, as a capped one does, and is marked truncated. */
function cutNote(capped: Capped, cut: boolean, command: string): Capped {
  if (!cut) return capped;
  const note = `… parts of \`${command}\` not read (too large); run \`${command}\` to see all`;
  return { text: capped.text === '' ? note : `${capped.text}\n${note}`, truncated: true };
}

const PARTS = [
  'git.branch',
  'git.status',
  'git.diffstat',
  'git.log',
  'git.diff.staged',
  'git.diff.unstaged',
  'git.untracked',
] as const;

/** Untracked folders looked inside, at most. */
const MAX_UNTRACKED_DIRS = 200;

/** Why each git item is sent: what it tells the model about the repository's state. */
const WHY: Record<(typeof PARTS)[number], string> = {
  'git.branch': 'the current branch and how far it is from its upstream',
  'git.status': 'what is modified, staged or new in the work tree',
  'git.diffstat': 'the size of the uncommitted changes, file by file',
  'git.log': 'recent commits on this branch',
  'git.diff.staged': 'changes staged for the next commit',
  'git.diff.unstaged': 'uncommitted changes in the work tree',
  'git.untracked': 'files new in the work tree, not yet in git',
};

function item(
  key: (typeof PARTS)[number],
  title: string,
  capped: Capped,
  kind: ContextItem['kind'],
  priority: number,
): ContextItem {
  return {
    key,
    source: 'git',
    title,
    text: capped.text,
    priority,
    kind,
    why: WHY[key],
    ...(capped.truncated ? { truncated: true } : {}),
  };
}

/** The source's answer, and the log item without the default branch's commits (undefined: nothing of the branch's own). */
interface GitAnswer {
  result: SourceResult;
  ownLog: ContextItem | undefined;
  /** `result` for a question not about history, made on first use. */
  lean?: SourceResult;
}

/**
 * The answer for a question that does not ask about history: the log keeps the branch's own commits (what the
 * user is working on) and leaves out the default branch's earlier ones, which answer only a history question
 * (~350 tokens of every request otherwise); a branch with none of its own, or the default branch itself, then
 * has no log item. Everything else is the same.
 */
function withoutEarlierCommits({ result, ownLog }: GitAnswer): SourceResult {
  const items = result.items.flatMap((it) => (it.key !== 'git.log' ? [it] : ownLog ? [ownLog] : []));
  return { ...result, items };
}

export function createGitSource(
  deps: SourceDeps,
  workspaces: Workspaces,
  options: Partial<GitSourceOptions> = {},
): ContextSource {
  const opts = { ...defaultGitOptions, ...options };
  const memo = new Memo<GitAnswer>(deps, 16);

  return defineSource(
    workspaces,
    { name: 'git', timeoutMs: opts.timeoutMs, answers: PARTS, spawnsFirst: true },
    async ({ ws, signal, wanted, input }) => {
      const parts = PARTS.filter(wanted);
      const { repo, refusal } = await ws.checkedGit();
      if (!repo) return refusal ? { items: [], skipped: [{ path: 'git', reason: refusal }] } : { items: [] };
      // A part that failed is asked again next time: git failing can be passing (an object being repacked).
      let failed = false;
      const answer = await memo.get(
        `${ws.root}|${parts.join(',')}`,
        ws.gitFingerprint(),
        async () => {
          const want = (part: string) => parts.includes(part as (typeof PARTS)[number]);
          let git: ReturnType<SourceDeps['git']> | undefined;
          const run = (args: string[], maxBytes: number, separator: '\n' | '\0' = '\n') => {
            git ??= deps.git(ws.root, signal);
            return readPrefix(git, ws.gitArgs(args), maxBytes, separator);
          };
          const none = Promise.resolve(EMPTY);
          const needStatus = want('git.branch') || want('git.status') || want('git.untracked');
          const status = needStatus ? ws.status() : Promise.resolve(undefined);
          const headRef = readHeadRef(repo);
          const unborn = headRef !== undefined && !refExists(repo, headRef);
          const base = branchBase(repo, headRef, unborn);
          const logArgs = (count: number, range: string[]) => [
            'log',
            ...NO_DRIVERS,
            '--no-show-signature',
            `-${count}`,
            '--date=short',
            '--format=%h %ad %an: %s',
            ...range,
          ];
          const diffLimits = {
            keepBytes: opts.diffBytes ?? 64 * opts.diffChars,
            fileBytes: opts.diffFileBytes ?? 4 * opts.diffChars,
            readBytes: opts.diffReadBytes,
          };
          const bigFiles = ['-c', `core.bigFileThreshold=${opts.diffBigFileBytes}`];
          const diff = (args: string[]) => {
            git ??= deps.git(ws.root, signal);
            return readKept(
              git,
              ws.gitArgs([...bigFiles, 'diff', ...NO_DRIVERS, ...NO_SUBMODULES, ...DIFF_CONTEXT, ...args]),
              diffKeeper(diffLimits),
            );
          };
          // Files inside untracked folders: asked only when the status shows such a folder.
          const untracked = want('git.untracked')
            ? status.then(async (snapshot) => {
                const entries = snapshot ? untrackedEntries(snapshot) : [];
                // Bounded: the command line stays short; files in folders past the limit are not listed.
                const dirs = entries.filter((rel) => rel.endsWith('/')).slice(0, MAX_UNTRACKED_DIRS);
                const expanded = dirs.length > 0 ? await run(expandArgs(dirs), UNTRACKED_BYTES, '\0') : EMPTY;
                return { files: untrackedFiles(entries, expanded.text, repo.topLevel, ws.root), cut: expanded.cut };
              })
            : Promise.resolve({ files: [], cut: false });
          // Each part settles on its own: one command failing (or printing too much) costs that part only.
          const [snapshot, diffstat, log, branchLog, staged, unstaged, newFiles] = await Promise.all([
            settle(status),
            settle(
              want('git.diffstat')
                ? run(
                    [
                      ...bigFiles,
                      'diff',
                      ...NO_DRIVERS,
                      ...NO_SUBMODULES,
                      ...(unborn ? ['--cached'] : ['HEAD']),
                      '--stat',
                    ],
                    textBytes(opts.diffstatChars),
                  )
                : none,
            ),
            settle(want('git.log') && !unborn ? run(logArgs(opts.logCount, []), LOG_BYTES) : none),
            // A default branch that does not resolve (a stale origin/HEAD) costs the branch count, not the log.
            want('git.log') && base
              ? run(logArgs(opts.branchLogMax, [`${base}..HEAD`, '--']), LOG_BYTES).catch(() => EMPTY)
              : none,
            settle(want('git.diff.staged') ? diff(['--cached']) : none),
            settle(want('git.diff.unstaged') ? diff([]) : none),
            settle(untracked),
          ]);
          // Given up (the source's time is over): nothing of this run is worth keeping in the memo.
          if (signal.aborted) throw new GitCommandError('git: aborted', null);
          const items: ContextItem[] = [];
          const skipped: SkippedPath[] = [];
          /** The part's value, or undefined with the failure recorded as a skip (a fixed reason, no git output). */
          const ok = <T>(key: string, part: Settled<T>): T | undefined => {
            if (part.ok) return part.value;
            failed = true;
            skipped.push({ path: key, reason: gitErrorReason(part.error) });
            return undefined;
          };
          const statusKeys = ['git.branch', 'git.status', 'git.untracked'].filter(want);
          if (!snapshot.ok) for (const key of statusKeys) ok(key, snapshot);
          const head = snapshot.ok ? snapshot.value : undefined;
          if (head && want('git.branch')) {
            items.push(
              item('git.branch', 'branch', { text: branchText(head.header, repo), truncated: false }, 'text', 80),
            );
          }
          if (head && want('git.status')) {
            const text = head.shortLines.join('\n') || '(clean: nothing to commit)';
            items.push(
              item(
                'git.status',
                'git status --short',
                capHead(text, opts.statusChars, 'git status --short'),
                'text',
                70,
              ),
            );
          }
          const stat = ok('git.diffstat', diffstat);
          if (want('git.diffstat') && stat) {
            const text = stat.text.trimEnd() || '(no changes against HEAD)';
            const capped = capHead(text, opts.diffstatChars, 'git diff HEAD --stat');
            items.push(
              item(
                'git.diffstat',
                'git diff HEAD --stat',
                cutNote(capped, stat.cut, 'git diff HEAD --stat'),
                'text',
                60,
              ),
            );
          }
          const recent = ok('git.log', log);
          let ownLog: ContextItem | undefined;
          if (want('git.log') && recent) {
            const { title, text, own } = logText(recent.text, branchLog.text, base, headRef, opts.logCount);
            items.push(item('git.log', title, capHead(text, opts.logChars, 'git log'), 'text', 55));
            if (own) ownLog = item('git.log', own.title, capHead(own.text, opts.logChars, 'git log'), 'text', 55);
          }
          const diffItem = (
            key: 'git.diff.staged' | 'git.diff.unstaged',
            part: Settled<{ text: string; cut: boolean }>,
            command: string,
            empty: string,
          ) => {
            const raw = ok(key, part);
            if (raw === undefined) return;
            const rendered =
              raw.text.trim() === ''
                ? { text: raw.cut ? '' : empty, truncated: false, segments: [] }
                : renderDiff(raw.text, opts.diffChars, command, deps.isNeverRead);
            const noted = cutNote(rendered, raw.cut, command);
            // Its files and hunks, so that the budget trims whole hunks without reading the diff again.
            items.push({
              ...item(key, command, noted, 'diff', 65),
              segments: segmentsThrough(rendered.segments, noted.text),
            });
          };
          if (want('git.diff.staged')) diffItem('git.diff.staged', staged, 'git diff --cached', '(nothing staged)');
          if (want('git.diff.unstaged')) diffItem('git.diff.unstaged', unstaged, 'git diff', '(no unstaged changes)');
          const fresh = head ? ok('git.untracked', newFiles) : undefined;
          if (want('git.untracked') && fresh) {
            const found = untrackedItems(ws.root, fresh.files, deps);
            items.push(...found.items);
            skipped.push(...found.skipped);
            if (fresh.cut) {
              skipped.push({
                path: 'git.untracked',
                reason: `files inside untracked folders listed up to ${formatBytes(UNTRACKED_BYTES)} of names`,
              });
            }
          }
          return { result: skipped.length > 0 ? { items, skipped } : { items }, ownLog };
        },
        () => !failed,
      );
      void ws.armWatcherSoon();
      // No question to read (a request without user text): nothing says which commits are not needed.
      const asksHistory = input.question.text.trim() === '' || input.question.intents.includes('history');
      if (asksHistory) return answer.result;
      // Kept with the answer: a warm request hands back the very same result, as for a history question.
      answer.lean ??= withoutEarlierCommits(answer);
      return answer.lean;
    },
  );
}
