// The stats source: files and lines by language, the most imported modules
// and the files changed most often in recent history.

import path from 'node:path';
import type { ContextItem, ContextSource, SkippedPath, SourceResult } from '../shared/types.ts';
import { defineSource } from './defineSource.ts';
import type { SourceDeps } from './deps.ts';
import { formatBytes, gitErrorReason, readPrefix } from './git/gitRunner.ts';
import { importsOf, languageOf } from './importGraph.ts';
import { Memo } from './memo.ts';
import { FileGuard, workspaceZone } from './workspace/guard.ts';
import type { Workspaces } from './workspace.ts';

export interface StatsOptions {
  /** Files larger than this are counted but not read (lines and imports unknown). */
  maxReadBytes: number;
  /**
   * At most this many code files are read; beyond it, an evenly spread sample is
   * read and line counts are extrapolated per language (marked `~`), so a large
   * repository costs a bounded amount of I/O.
   */
  maxSampledFiles: number;
  historyCommits: number;
  top: number;
}

export const defaultStatsOptions: StatsOptions = {
  maxReadBytes: 256 * 1024,
  maxSampledFiles: 300,
  historyCommits: 500,
  top: 10,
};

/**
 * What one turn of the event loop reads of the sample: at most this many files, and it ends after the
 * file that passes READ_SLICE_BYTES (so a turn reads at most about READ_SLICE_BYTES + maxReadBytes, a
 * few ms of reading, counting lines and finding imports, where 50 files of 256 KB were 12 MB).
 */
const READ_SLICE = 50;
const READ_SLICE_BYTES = 512 * 1024;

/**
 * History read at most: one commit touching every file of a monorepo prints
 * megabytes of names; the counts over the part read still name the hotspots.
 */
const HISTORY_BYTES = 4 * 1024 * 1024;

/** Lines of `text`; a last line without a line break counts too. */
function countLines(text: string): number {
  if (text === '') return 0;
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return text.endsWith('\n') ? n : n + 1;
}

interface LanguageCount {
  files: number;
  lines: number;
  read: number;
}

/**
 * Files per language, and the code files (those with a language) with their
 * language's counter, in listing order. Every listed file passes here, so the
 * language is judged once per extension. A dot that starts a name
 * (`.gitignore`) or sits in a folder's (`a.d/Makefile`) is no extension: such
 * paths are judged one by one.
 */
function countLanguages(files: readonly string[]) {
  const byLanguage = new Map<string, LanguageCount>();
  const codeFiles: string[] = [];
  const codeEntries: LanguageCount[] = [];
  const byExt = new Map<string, LanguageCount | null>();
  for (const file of files) {
    const dot = file.lastIndexOf('.');
    const ext = dot > 0 && file.charCodeAt(dot - 1) !== 47 ? file.slice(dot) : undefined;
    let entry = ext === undefined ? undefined : byExt.get(ext);
    if (entry === undefined) {
      const language = languageOf(file);
      entry = language === undefined ? null : (byLanguage.get(language) ?? null);
      if (language !== undefined && entry === null) {
        entry = { files: 0, lines: 0, read: 0 };
        byLanguage.set(language, entry);
      }
      if (ext !== undefined && !ext.includes('/')) byExt.set(ext, entry);
    }
    if (entry === null) continue;
    codeFiles.push(file);
    codeEntries.push(entry);
    entry.files++;
  }
  return { byLanguage, codeFiles, codeEntries };
}

const top = (counts: Map<string, number>, n: number) =>
  [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, n);

export function createStatsSource(
  deps: SourceDeps,
  workspaces: Workspaces,
  options: Partial<StatsOptions> = {},
): ContextSource {
  const opts = { ...defaultStatsOptions, ...options };
  const memo = new Memo<SourceResult>(deps, 8);
  const frame = {
    name: 'stats',
    timeoutMs: 5_000,
    answers: ['stats.languages', 'stats.hotspots'],
    spawnsFirst: true,
  };
  return defineSource(workspaces, frame, async ({ ws, signal, wanted }) => {
    const wantLanguages = wanted('stats.languages');
    const wantHotspots = wanted('stats.hotspots');
    const key = `${ws.root}|${wantLanguages}|${wantHotspots}`;
    return memo.get(key, ws.gitFingerprint(), async () => {
      const repo = await ws.checkedRepo();
      const skipped: SkippedPath[] = [];
      const history =
        wantHotspots && repo
          ? readPrefix(
              deps.git(ws.root, signal),
              ws.gitArgs([
                'log',
                '--no-ext-diff',
                '--no-textconv',
                `-${opts.historyCommits}`,
                '--name-only',
                '--format=',
                '--no-renames',
                '--',
                '.',
              ]),
              HISTORY_BYTES,
            ).catch((error: unknown) => {
              skipped.push({ path: 'stats.hotspots', reason: `most changed files: ${gitErrorReason(error)}` });
              return undefined;
            })
          : Promise.resolve(undefined);
      const walk = await ws.walk();
      const zone = workspaceZone(ws.root, deps.allowedRoots);
      const guard = new FileGuard(deps.isNeverRead);
      const imported = new Map<string, number>();
      const { byLanguage, codeFiles, codeEntries } = countLanguages(walk.files);
      const step = Math.max(1, codeFiles.length / opts.maxSampledFiles);
      const sample: number[] = [];
      for (let i = 0; i < codeFiles.length; i += step) sample.push(Math.floor(i));
      const sampled = sample.length < codeFiles.length;
      // Small files, read synchronously, a bounded slice per turn of the event loop. Not the CPU pool:
      // the work is mostly the guard's syscalls (lstat, realpath) and the reads, on files the main thread's
      // guard judges; and not one libuv round trip per file, which costs more than reading a small file.
      let sliceFiles = 0;
      let sliceBytes = 0;
      for (const at of sample) {
        if (sliceFiles >= READ_SLICE || sliceBytes >= READ_SLICE_BYTES) {
          await new Promise((resolve) => setImmediate(resolve));
          sliceFiles = 0;
          sliceBytes = 0;
        }
        sliceFiles++;
        const file = codeFiles[at] ?? '';
        const entry = codeEntries[at];
        if (!entry) continue;
        // Through the guard: a listed file can be a symlink (or sit under one) leading out.
        const { text } = guard.read(path.join(ws.root, file), zone, [file], {
          maxBytes: opts.maxReadBytes,
          skipLarger: true,
        });
        if (text === undefined) continue;
        sliceBytes += text.length;
        entry.lines += countLines(text);
        entry.read++;
        if (wantHotspots) {
          for (const spec of new Set(importsOf(file, text))) imported.set(spec, (imported.get(spec) ?? 0) + 1);
        }
      }
      const items: ContextItem[] = [];
      if (wantLanguages) {
        const estimate = (s: LanguageCount) => (s.read ? (s.lines / s.read) * s.files : 0);
        const rows = [...byLanguage.entries()].sort(
          (a, b) => estimate(b[1]) - estimate(a[1]) || b[1].files - a[1].files,
        );
        const other = walk.files.length - codeFiles.length;
        const lines = (s: LanguageCount) =>
          s.read === s.files || s.read === 0 ? `${s.lines}` : `~${Math.round((s.lines / s.read) * s.files)}`;
        const text = [
          ...rows.map(([language, s]) => `${language}: ${s.files} files, ${lines(s)} lines`),
          ...(other > 0 ? [`other: ${other} files`] : []),
          ...(sampled ? [`(~: estimated from ${sample.length} of ${codeFiles.length} files read)`] : []),
        ].join('\n');
        items.push({
          key: 'stats.languages',
          source: 'stats',
          title: 'files and lines by language',
          text,
          priority: 30,
          kind: 'text',
          why: 'the languages of the workspace, by size',
        });
      }
      if (wantHotspots) {
        const changes = new Map<string, number>();
        const log = await history;
        for (const line of (log?.text ?? '').split('\n')) {
          if (line.trim() !== '') changes.set(line, (changes.get(line) ?? 0) + 1);
        }
        const lines = [
          sampled ? `Most imported modules (in ${sample.length} sampled files):` : 'Most imported modules:',
        ];
        for (const [spec, count] of top(imported, opts.top)) lines.push(`  ${spec} (${count} files)`);
        if (repo && log) {
          const cut = log.cut ? `, counted over the first ${formatBytes(HISTORY_BYTES)} of it` : '';
          lines.push(`Most changed files (last ${opts.historyCommits} commits${cut}):`);
          for (const [file, count] of top(changes, opts.top)) lines.push(`  ${file} (${count} commits)`);
        }
        items.push({
          key: 'stats.hotspots',
          source: 'stats',
          title: 'hotspots',
          text: lines.join('\n'),
          priority: 30,
          kind: 'text',
          why: 'the most imported modules and most changed files',
        });
      }
      // Given up (the source's time is over): an aborted history is no answer to keep in the memo.
      if (signal.aborted) throw new Error('stats: aborted');
      return skipped.length > 0 ? { items, skipped } : { items };
    });
  });
}
