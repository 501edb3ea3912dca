// The changed lines the model gets: a unified diff cut into files and hunks,
// with the files that carry no readable change left out by name (binary,
// lockfiles and generated or minified output, files that are secrets by
// nature), the smaller files first and the largest last, and, past the cap,
// whole hunks left out largest first, each file saying what it lost and how
// to see it. A half hunk misleads more than a missing one, so hunks are kept
// or left out whole; only a single hunk too large for any budget is cut, with a
// marker (MAX_HUNK_CHARS).

import path from 'node:path';
import type { Segment } from '../../shared/types.ts';
import { isLockfile } from '../workspace/generatedFiles.ts';

/** A line this long is minified or generated output, not something a person wrote. */
const LONG_LINE = 1_000;

export interface DiffHunk {
  text: string;
  added: number;
  removed: number;
}

export interface DiffFile {
  path: string;
  header: string;
  hunks: DiffHunk[];
  /** Set when the file's hunks are left out whole, with the reason. */
  skip?: string | undefined;
}

function pathOf(header: string[]): string {
  const plus = header.find((line) => line.startsWith('+++ '));
  const minus = header.find((line) => line.startsWith('--- '));
  for (const line of [plus, minus]) {
    const name = line?.slice(4).replace(/^"|"$/g, '');
    if (name && name !== '/dev/null') return name.replace(/^[ab]\//, '');
  }
  // A pure mode change or a binary file has no ---/+++ lines: `diff --git a/x b/x`.
  const first = header[0] ?? '';
  const match = / b\/(.+)$/.exec(first);
  return match?.[1] ?? first.replace(/^diff --git /, '');
}

/** Lockfiles and minified output by name: never worth their lines in a prompt. */
export function machineWrittenName(rel: string): string | undefined {
  const name = path.posix.basename(rel);
  if (isLockfile(name)) return 'lockfile';
  if (/\.min\.(js|css|mjs)$|\.map$/.test(name)) return 'minified or generated';
  return undefined;
}

/** Text that says it was generated, or has lines no person wrote. */
export function machineWrittenText(text: string): string | undefined {
  if (text.includes('@generated')) return 'generated (@generated)';
  if (text.split('\n').some((line) => line.length > LONG_LINE)) return 'minified (very long lines)';
  return undefined;
}

/** Why a file's changed lines are not worth (or not allowed) showing; undefined when they are. */
export function skipReason(file: DiffFile, isNeverRead: (rel: string) => boolean): string | undefined {
  if (isNeverRead(file.path)) return 'never read (a secret by nature)';
  // git says binary for a file over its big-file size too (git.ts sets one for diffs).
  if (/^(Binary files |GIT binary patch)/m.test(file.header)) return 'binary or too large to diff';
  const byName = machineWrittenName(file.path);
  if (byName) return byName;
  for (const hunk of file.hunks) {
    const byText = machineWrittenText(hunk.text);
    if (byText) return byText;
  }
  return undefined;
}

/** Splits `git diff` output into files (at `diff --git`) and hunks (at `@@`). */
export function parseDiffFiles(raw: string): DiffFile[] {
  const files: DiffFile[] = [];
  let header: string[] = [];
  let hunks: string[][] = [];
  const flush = () => {
    if (header.length === 0) return;
    files.push({
      path: pathOf(header),
      header: header.join('\n'),
      hunks: hunks.map((lines) => ({
        text: lines.join('\n'),
        added: lines.filter((l) => l.startsWith('+')).length,
        removed: lines.filter((l) => l.startsWith('-')).length,
      })),
    });
  };
  for (const line of raw.replace(/\n$/, '').split('\n')) {
    if (line.startsWith('diff --git ')) {
      flush();
      header = [line];
      hunks = [];
    } else if (line.startsWith('@@') && header.length > 0) hunks.push([line]);
    else if (hunks.length > 0) hunks[hunks.length - 1]?.push(line);
    else if (header.length > 0) header.push(line);
  }
  flush();
  return files;
}

/**
 * One hunk longer than this is cut at a line with a marker: a whole-hunk trim
 * would otherwise drop a large new file or rewrite entirely, and the model
 * would see the file named but none of its lines.
 */
export const MAX_HUNK_CHARS = 4_000;

function capHunk(hunk: DiffHunk, command: string, file: string): { hunk: DiffHunk; cut: boolean } {
  if (hunk.text.length <= MAX_HUNK_CHARS) return { hunk, cut: false };
  const lines = hunk.text.split('\n');
  const kept: string[] = [];
  let size = 0;
  for (const line of lines) {
    if (size + line.length + 1 > MAX_HUNK_CHARS && kept.length > 1) break;
    kept.push(line);
    size += line.length + 1;
  }
  const more = lines.length - kept.length;
  kept.push(`… ${more} more lines of this hunk; run \`${command} -- ${file}\``);
  return { hunk: { ...hunk, text: kept.join('\n') }, cut: true };
}

/**
 * The file header as the model reads it: `index <blob>..<blob>` names objects
 * the model cannot look up, and `--- a/P` / `+++ b/P` repeat the `diff --git`
 * line for a plain modification, so both go (about thirty tokens a file).
 * Everything that says more stays: new, deleted and renamed files, modes,
 * `/dev/null`, binary notes.
 */
export function compactHeader(file: DiffFile): string {
  const lines = file.header.split('\n');
  const minus = `--- a/${file.path}`;
  const plus = `+++ b/${file.path}`;
  const modified = lines.includes(minus) && lines.includes(plus);
  return lines
    .filter((line) => !/^index [0-9a-f]+\.\.[0-9a-f]+/.test(line) && !(modified && (line === minus || line === plus)))
    .join('\n');
}

const sizeOf = (file: DiffFile) => file.header.length + file.hunks.reduce((n, h) => n + h.text.length + 1, 0);
const counts = (hunks: DiffHunk[]) =>
  `+${hunks.reduce((n, h) => n + h.added, 0)}/-${hunks.reduce((n, h) => n + h.removed, 0)}`;

export interface DiffRender {
  text: string;
  truncated: boolean;
  /** Each shown file's header, then its hunks, in line indices of `text` (a note belongs to what it follows). */
  segments: Segment[];
}

/** Lines of `text` (one more than its line breaks). */
function lineCount(text: string): number {
  let count = 1;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) count++;
  return count;
}

/**
 * The segments of `text`, which is the rendered text with lines added at its end (notes): they
 * belong to the last segment, or make a header of their own when there is none.
 */
export function segmentsThrough(segments: readonly Segment[], text: string): Segment[] {
  const last = lineCount(text) - 1;
  const out = segments.map((segment) => ({ ...segment }));
  const tail = out.at(-1);
  if (tail === undefined) out.push({ kind: 'header', start: 0, end: last });
  else if (tail.end < last) tail.end = last;
  return out;
}

/**
 * The diff as the model reads it, at most `maxChars` (a few notes may pass it).
 * `command` is how the user sees the whole diff (`git diff --cached`).
 */
export function renderDiff(
  raw: string,
  maxChars: number,
  command: string,
  isNeverRead: (rel: string) => boolean,
): DiffRender {
  const all = parseDiffFiles(raw);
  let truncated = false;
  for (const file of all) {
    file.skip = skipReason(file, isNeverRead);
    file.hunks = file.hunks.map((hunk) => {
      const capped = capHunk(hunk, command, file.path);
      truncated ||= capped.cut;
      return capped.hunk;
    });
  }
  const shown = all.filter((file) => file.skip === undefined).sort((a, b) => sizeOf(a) - sizeOf(b));
  // Headers first (every changed file stays named), then hunks smallest first while they fit.
  for (const file of shown) file.header = compactHeader(file);
  let used = shown.reduce((n, file) => n + file.header.length + 1, 0);
  const kept = new Set<DiffHunk>();
  const bySize = shown.flatMap((file) => file.hunks).sort((a, b) => a.text.length - b.text.length);
  for (const hunk of bySize) {
    if (used + hunk.text.length + 1 > maxChars) break;
    kept.add(hunk);
    used += hunk.text.length + 1;
  }
  const out: string[] = [];
  const segments: Segment[] = [];
  let lines = 0;
  /** Adds a part of the text: a segment of its own, or (a note) the end of the one before. */
  const add = (text: string, kind?: Segment['kind']) => {
    const end = lines + lineCount(text) - 1;
    const previous = segments.at(-1);
    if (kind === undefined && previous !== undefined) previous.end = end;
    else segments.push({ kind: kind ?? 'header', start: lines, end });
    out.push(text);
    lines = end + 1;
  };
  for (const file of shown) {
    add(file.header, 'header');
    const left = file.hunks.filter((hunk) => !kept.has(hunk));
    for (const hunk of file.hunks) if (kept.has(hunk)) add(hunk.text, 'hunk');
    if (left.length > 0) {
      truncated = true;
      add(`… ${left.length} hunk(s) left out (${counts(left)} lines); run \`${command} -- ${file.path}\``);
    }
  }
  const skipped = all.filter((file) => file.skip !== undefined);
  if (skipped.length > 0) {
    add(
      // A file git shows no lines of (binary, or over the big-file size) has no counts to give.
      `(changed lines not shown: ${skipped.map((f) => `${f.path} [${f.hunks.length > 0 ? `${f.skip}, ${counts(f.hunks)}` : f.skip}]`).join('; ')})`,
    );
  }
  return { text: out.join('\n'), truncated, segments };
}
