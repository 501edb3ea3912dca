// The files source: files named in the conversation (`files.named.*`) and files
// changed in the work tree (`files.changed.*`): a named file whole (up to a
// size the budget trims by relevance), a changed one's head (the tail for
// logs and test output). Never-read, too large, binary, ignored and outside
// files are skipped and reported; never-read wins even when named.

import path from 'node:path';
import { historyOfPastedLines } from '../shared/pastedLine.ts';
import { type Question, type QuestionPath, subjectPaths } from '../shared/question.ts';
import type { ContextItem, ContextSource, SkippedPath } from '../shared/types.ts';
import { capHead, headLines, linesAround, tailLines } from './cap.ts';
import { defineSource } from './defineSource.ts';
import type { SourceDeps } from './deps.ts';
import { gitErrorReason } from './git/gitRunner.ts';
import { mapLimit } from './limit.ts';
import { TrackedMemo } from './trackedMemo.ts';
import { ignoreChecker } from './workspace/gitignored.ts';
import { FileGuard, workspaceZone, type Zone } from './workspace/guard.ts';
import { readRegularFile } from './workspace/syncRead.ts';
import type { Workspaces } from './workspace.ts';

export interface FilesSourceOptions {
  /** Lines of a changed file (and of a log's tail) kept. */
  headLines: number;
  /**
   * Lines and characters of a named file kept: the whole file, up to a size
   * the budget can still trim by relevance (the plan's cap decides what fits).
   */
  namedLines: number;
  namedChars: number;
  maxBytes: number;
  /** Per-file character cap after the line cut (one-line minified files). */
  maxChars: number;
  maxChangedFiles: number;
}

export const defaultFilesOptions: FilesSourceOptions = {
  headLines: 50,
  namedLines: 2_000,
  namedChars: 64_000,
  maxBytes: 200 * 1024,
  maxChars: 8_000,
  maxChangedFiles: 20,
};

/** Lines kept on each side of a pasted line in a named file. */
const AROUND_PASTED_LINE = 12;

/** Logs and test output: the failure is at the end. */
export function keepsTail(rel: string): boolean {
  const name = path.basename(rel).toLowerCase();
  return (
    name.endsWith('.log') ||
    /(^|[-_.])(test|tests|junit|pytest)[-_.].*\.(txt|out|xml)$/.test(name) ||
    name.endsWith('.out')
  );
}

interface Wanted {
  rel: string;
  group: 'named' | 'changed';
  /** Named by the user in prose or with `@` (read even when git-ignored). */
  explicit: boolean;
  /**
   * Lines pasted into a question about their history: the named file is sent around the first of them, not whole
   * (the commit that changed the line answers; the rest of the file is not asked about).
   */
  around?: string[];
  /**
   * Named in a question about its history alone ("when was rates.py first added?"): its head says what the file
   * is, its commits answer, and the whole file would only fill the window.
   */
  headOnly?: boolean;
  /** For the audit page: how the conversation pointed at it. */
  why: string;
}

type ReadOutcome = { item: ContextItem } | { skip: SkippedPath } | undefined;

export function createFilesSource(
  deps: SourceDeps,
  workspaces: Workspaces,
  options: Partial<FilesSourceOptions> = {},
): ContextSource {
  const opts = { ...defaultFilesOptions, ...options };
  const memo = new TrackedMemo<{ items: ContextItem[]; skipped: SkippedPath[] }>(deps);

  const readOne = async (
    guard: FileGuard,
    zone: Zone,
    workspace: string,
    want: Wanted,
    track: (abs: string) => void,
    ignored: (rel: string) => boolean,
  ): Promise<ReadOutcome> => {
    const { rel } = want;
    const skip = (reason: string): ReadOutcome => ({ skip: { path: rel, reason } });
    const abs = path.join(workspace, rel);
    const verdict = guard.check(abs, zone, [rel]);
    if (!verdict.ok) return skip(verdict.missing ? 'not found' : verdict.reason);
    const real = verdict.real;
    if (!want.explicit && ignored(rel)) return skip('ignored by .gitignore');
    track(abs);
    // Synchronous: a few small files, and a thread-pool round trip per step costs more than the read.
    const opened = readRegularFile(real, opts.maxBytes, true);
    if (!opened) return skip('refused: not a regular file');
    const { size, buffer } = opened;
    if (!buffer) return skip(`too large (${size} bytes > ${opts.maxBytes})`);
    if (buffer.subarray(0, 8192).includes(0)) return skip('binary');
    const text = buffer.toString('utf8');
    const tail = keepsTail(rel);
    const hint = `${rel}, ${size} bytes`;
    // The user named it: the whole file when it fits; the budget trims it by relevance if the window does not.
    const whole = want.group === 'named' && !tail && !want.headOnly;
    const lines = whole ? opts.namedLines : opts.headLines;
    const near = whole && want.around ? linesAround(text, want.around, AROUND_PASTED_LINE) : undefined;
    const cut = near ?? (tail ? tailLines(text, lines, hint) : headLines(text, lines, hint));
    const capped = capHead(cut.text, whole ? opts.namedChars : opts.maxChars, `cat ${rel}`);
    return {
      item: {
        key: `files.${want.group}.${rel}`,
        source: 'files',
        title: near ? `${rel} lines ${near.start}-${near.end}` : rel,
        text: capped.text,
        priority: want.group === 'named' ? 90 : 60,
        kind: tail ? 'log' : 'code',
        path: rel,
        why: want.why,
        ...(cut.truncated || capped.truncated ? { truncated: true } : {}),
      },
    };
  };

  const frame = { name: 'files', timeoutMs: 3_000, answers: ['files.named.', 'files.changed.'] };
  return defineSource(workspaces, frame, async ({ ws, input, wanted }) => {
    const wantNamed = wanted('files.named.');
    const wantChanged = wanted('files.changed.');
    const workspace = ws.root;
    const named = wantNamed ? ws.named(deps.homeDir, namedPaths(input.question)) : { inside: [], outside: [] };
    // Without the status the changed files are unknown; the named ones are still read.
    let statusFailure: SkippedPath | undefined;
    const status = wantChanged
      ? await ws.status().catch((error: unknown) => {
          statusFailure = { path: 'files.changed', reason: gitErrorReason(error) };
          return undefined;
        })
      : undefined;
    const namedWhy = namedReason(input.question);
    const pasted = historyOfPastedLines(input.question);
    const historyOnly = pasted.length === 0 && input.question.intents.join() === 'history';
    const list: Wanted[] = named.inside.map((m) => ({
      rel: m.rel,
      group: 'named',
      explicit: m.explicit,
      why:
        pasted.length > 0
          ? `${namedWhy(m.explicit)}; around the pasted line`
          : historyOnly
            ? `${namedWhy(m.explicit)}; its head (asked about its history)`
            : namedWhy(m.explicit),
      ...(pasted.length > 0 ? { around: pasted } : {}),
      ...(historyOnly ? { headOnly: true } : {}),
    }));
    const namedSet = new Set(list.map((w) => w.rel));
    const changed = (status?.changedFiles ?? []).filter((rel) => !namedSet.has(rel));
    for (const rel of changed.slice(0, opts.maxChangedFiles)) {
      list.push({ rel, group: 'changed', explicit: false, why: 'changed in the work tree' });
    }
    const key = `${workspace}|${list.map((w) => `${w.group}:${w.explicit}:${w.why}:${w.rel}:${w.around?.join('\n') ?? ''}`).join('\0')}`;

    const result = await memo.get(key, async (tracker) => {
      const zone = workspaceZone(workspace, deps.allowedRoots);
      const guard = new FileGuard(deps.isNeverRead);
      // Each .gitignore on the way is read and compiled once for all the files of this run.
      const ignored = ignoreChecker(workspace);
      const outcomes = await mapLimit(list, deps.readConcurrency, (want) =>
        readOne(guard, zone, workspace, want, (abs) => tracker.track(abs), ignored).catch(
          (error: unknown): ReadOutcome => ({
            skip: { path: want.rel, reason: `unreadable (${(error as NodeJS.ErrnoException).code ?? 'error'})` },
          }),
        ),
      );
      const items: ContextItem[] = [];
      const skipped: SkippedPath[] = named.outside.map((p) => ({ path: p, reason: 'outside the workspace' }));
      for (const outcome of outcomes) {
        if (outcome && 'item' in outcome) items.push(outcome.item);
        else if (outcome) skipped.push(outcome.skip);
      }
      if (changed.length > opts.maxChangedFiles) {
        skipped.push({
          path: `(${changed.length - opts.maxChangedFiles} more changed files)`,
          reason: 'changed-file limit',
        });
      }
      return { items, skipped };
    });
    return statusFailure ? { ...result, skipped: [...result.skipped, statusFailure] } : result;
  });
}

const namedMemo = new WeakMap<Question, QuestionPath[]>();

/** Why a named file is read: named in this turn (in prose, or only in a code block), or in the turn it follows up. */
function namedReason(question: Question): (explicit: boolean) => string {
  if (question.paths.length === 0 && question.subject) {
    const back = question.subject.turnsBack;
    return () => `named ${back === 1 ? 'one turn' : `${back} turns`} back; this turn follows it up`;
  }
  return (explicit) => (explicit ? 'named in the question' : 'its path is in a code block of the question');
}

/**
 * The files this turn names: its own paths, or, when it names nothing ("and
 * which function uses it?"), those of the turn it follows up. A file named in
 * an older turn is not named again by every later one. The same array for the
 * same question (the per-request memo of the workspace keys on it).
 */
function namedPaths(question: Question): QuestionPath[] {
  let paths = namedMemo.get(question);
  if (!paths) {
    paths = subjectPaths(question);
    namedMemo.set(question, paths);
  }
  return paths;
}
