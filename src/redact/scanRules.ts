// Runs our own rules over a text: keyword pre-filter first, then the regex,
// then the validators on the value. Returns ranges only, never the values.

import type { RedactionFinding } from '../shared/types.ts';
import type { KeywordScan } from './keywordIndex.ts';
import type { CompiledRule } from './loadRules.ts';
import { acceptsValue } from './validators.ts';

export class RedactionTimeoutError extends Error {
  override readonly name = 'RedactionTimeoutError';
  constructor(readonly timeoutMs: number) {
    super(`Redaction scan took longer than ${timeoutMs} ms; the item must be dropped.`);
  }
}

export interface Deadline {
  /** Throws RedactionTimeoutError once the time is up. */
  check(): void;
}

/** Our own placeholder: masked output scanned again must not be masked again. */
const ALREADY_MASKED = /^\[REDACTED:[a-z0-9-]+\]$/;

const PLACEHOLDER_GLOBAL = /\[REDACTED:[a-z0-9-]+\]/g;

const LINE_BREAK = /\r?\n|\\r\\n|\\n/;
const TRAILING_BREAK_AND_PREFIX = /(?:\r?\n|\\r\\n|\\n)[ \t+>#"'-]*$/;

/**
 * A PEM block body keeps its marker lines: mask from the first line after
 * BEGIN (minus the prefix the BEGIN line had: a diff `+`, YAML indentation)
 * to the end of the last line before END.
 */
function pemBodyRange(text: string, blockStart: number, start: number, end: number): [number, number] | undefined {
  const lineStart = text.lastIndexOf('\n', blockStart - 1) + 1;
  const prefix = text.slice(lineStart, blockStart);
  const body = text.slice(start, end);
  const firstBreak = LINE_BREAK.exec(body);
  let from: number;
  let to: number;
  if (firstBreak) {
    from = firstBreak.index + firstBreak[0].length;
    if (prefix.length > 0 && /^[\s+>#-]*$/.test(prefix) && body.startsWith(prefix, from)) from += prefix.length;
    const trailing = TRAILING_BREAK_AND_PREFIX.exec(body);
    to = trailing ? trailing.index : body.length;
  } else {
    // One line: `-----BEGIN … KEY----- MIIE… -----END … KEY-----`.
    from = body.length - body.trimStart().length;
    to = body.trimEnd().length;
  }
  // Nothing key-like between the markers (an empty block, or one already masked): nothing to mask.
  if (to <= from || !/[A-Za-z0-9+/=]{8}/.test(body.slice(from, to)) || ALREADY_MASKED.test(body.slice(from, to))) {
    return undefined;
  }
  return [start + from, start + to];
}

/** The first of `groups` that took part in the match (its index in `groups`), or -1. */
function valueGroupOf(match: RegExpExecArray, groups: readonly (number | string)[]): number {
  for (let g = 0; g < groups.length; g++) {
    const group = groups[g]!;
    const value = typeof group === 'number' ? match[group] : match.groups?.[group];
    if (value !== undefined) return g;
  }
  return -1;
}

/** Where `group` of the match at `index` of `part` is: the sticky regex with indices finds the same match again. */
function groupRange(indices: RegExp, part: string, index: number, group: number | string): [number, number] {
  indices.lastIndex = index;
  const again = indices.exec(part)!.indices!;
  const range = typeof group === 'number' ? again[group] : again.groups?.[group];
  return [range![0], range![1]];
}

/** One-line windows closer than this many characters are scanned as one. */
const JOIN_GAP = 256;

interface Span {
  start: number;
  end: number;
}

/**
 * The lines around each hit, merged: the hit's own line only for a rule whose
 * matches stay on one line (`oneLine`), else the previous, the hit's and the
 * next line. Undefined when that is most of the text anyway. Windows start and
 * end at line breaks, so a one-line regex finds the same there as in the text.
 */
function lineWindows(text: string, hits: number[], oneLine: boolean): Span[] | undefined {
  // Each keyword's hits come in text order: sort only when several keywords' lists were joined
  // (numerically, natively: a typed array needs no comparator call per step).
  let sorted = true;
  for (let i = 1; i < hits.length && sorted; i++) sorted = hits[i - 1]! <= hits[i]!;
  const ends: ArrayLike<number> = sorted ? hits : new Int32Array(hits).sort();
  const windows: Span[] = [];
  let last: Span | undefined;
  let covered = 0;
  const half = text.length / 2;
  // The end of the previous hit's line: further hits on that line add nothing, and a long
  // line (bundled JS) with many hits must not be searched for its end once per hit.
  let previousLineEnd = -1;
  for (let h = 0; h < ends.length; h++) {
    const end = ends[h]!;
    if (end <= previousLineEnd) continue;
    const lineEnd = text.indexOf('\n', end);
    previousLineEnd = lineEnd === -1 ? text.length : lineEnd;
    // A hit on a line before the window's last one adds nothing: its next line is inside already.
    if (last && lineEnd !== -1 && lineEnd < last.end) continue;
    // The line break before the hit, searched for by hand: lastIndexOf is a runtime call, and lines are short.
    let lineStart = end - 1;
    while (lineStart >= 0 && text.charCodeAt(lineStart) !== 10) lineStart--;
    let start: number;
    let stop: number;
    if (oneLine) {
      start = lineStart + 1;
      stop = lineEnd === -1 ? text.length : lineEnd;
    } else {
      start = lineStart <= 0 ? 0 : text.lastIndexOf('\n', lineStart - 1) + 1;
      const nextEnd = lineEnd === -1 ? -1 : text.indexOf('\n', lineEnd + 1);
      stop = lineEnd === -1 || nextEnd === -1 ? text.length : nextEnd;
    }
    // Adjacent lines join one window (fewer regex runs; the line break between them stays inside);
    // for a one-line rule, so do lines a few short lines apart: one regex run costs about as much
    // as scanning a few hundred characters, and the lines between are whole lines.
    if (last && start <= last.end + (oneLine ? JOIN_GAP : 1)) {
      covered += Math.max(0, stop - last.end);
      last.end = Math.max(last.end, stop);
    } else {
      last = { start, end: stop };
      windows.push(last);
      covered += stop - start;
    }
    // Coverage only grows: once it is most of the text, the rule scans the whole text (4 in 10 groups).
    if (covered > half) return undefined;
  }
  return windows;
}

/**
 * `scan` says which keywords occur in the text and where (KeywordIndex.scan),
 * and `keywordIds[i]` lists the keyword ids of `rules[i]`.
 */
export function scanRules(
  text: string,
  scan: KeywordScan,
  path: string | undefined,
  rules: readonly CompiledRule[],
  keywordIds: readonly number[][],
  deadline: Deadline,
): RedactionFinding[] {
  const present = scan.found;
  // Rules that share their keywords (the assignment family) share their windows.
  const windowsByKeywords = new Map<number[], Span[] | undefined>();
  const lineByKeywords = new Map<number[], Span[] | undefined>();
  const whole: Span[] = [{ start: 0, end: text.length }];
  const findings: RedactionFinding[] = [];
  // Text that was redacted before (a stored snapshot, a pasted answer) keeps its placeholders as they are.
  const masked = text.includes('[REDACTED:')
    ? [...text.matchAll(PLACEHOLDER_GLOBAL)].map((m) => [m.index, m.index + m[0].length])
    : [];
  /** The parts of [start, end) outside earlier placeholders (so `[REDACTED:x]secret` still loses `secret`). */
  const outsideMasks = (start: number, end: number): [number, number][] => {
    let pieces: [number, number][] = [[start, end]];
    for (const [ms, me] of masked) {
      pieces = pieces.flatMap(([s, e]): [number, number][] =>
        ms! < e && s < me!
          ? (
              [
                [s, ms!],
                [me!, e],
              ] as [number, number][]
            ).filter(([a, b]) => b > a)
          : [[s, e]],
      );
    }
    return pieces.filter(([a, b]) => /[A-Za-z0-9]/.test(text.slice(a, b)));
  };
  for (let r = 0; r < rules.length; r++) {
    const rule = rules[r]!;
    if (rule.appliesToPath && !rule.appliesToPath(path)) continue;
    const ids = keywordIds[r]!;
    let anyKeyword = false;
    for (let k = 0; k < ids.length && !anyKeyword; k++) anyKeyword = present[ids[k]!] === 1;
    if (!anyKeyword) continue;
    deadline.check();
    let spans = whole;
    if (rule.scope === 'line') {
      const byKeywords = rule.oneLine ? lineByKeywords : windowsByKeywords;
      let windows = byKeywords.get(ids);
      if (!byKeywords.has(ids)) {
        // The hits of the rule's keywords: one keyword's list as it is, several joined (no spread per list).
        let ends: number[] | undefined;
        let joined = false;
        let dense = false;
        for (let k = 0; k < ids.length && !dense; k++) {
          const list = scan.ends[ids[k]!];
          if (list === null) dense = true;
          else if (list === undefined) continue;
          else if (ends === undefined) ends = list;
          else {
            if (!joined) ends = ends.slice();
            joined = true;
            for (let h = 0; h < list.length; h++) ends.push(list[h]!);
          }
        }
        windows = dense ? undefined : lineWindows(text, ends ?? [], rule.oneLine);
        byKeywords.set(ids, windows);
      }
      spans = windows ?? whole;
    }
    for (const span of spans) {
      const part = span === whole[0] ? text : text.slice(span.start, span.end);
      const offset = span.start;
      rule.regex.lastIndex = 0;
      for (let match = rule.regex.exec(part); match !== null; match = rule.regex.exec(part)) {
        if (match[0].length === 0) {
          rule.regex.lastIndex++;
          continue;
        }
        // Matches are found without indices (building them for every match is most of a match's cost);
        // only an accepted value is placed, by matching once more at the same start.
        const g = valueGroupOf(match, rule.valueGroups);
        if (g === -1) continue;
        const group = rule.valueGroups[g]!;
        const raw = typeof group === 'number' ? match[group]! : match.groups![group]!;
        if (raw.length === 0) continue;
        // Judge the value without earlier placeholders in it.
        const value = masked.length === 0 ? raw : raw.replace(PLACEHOLDER_GLOBAL, '');
        if (value.length === 0) continue;
        // A backtick-quoted value is judged like a bare one: `token:`passed`` in bundled JS is code, not a secret.
        const context = { bare: group === 'bare' || group === 'bq', envStyle: group === 'envval' };
        if (!acceptsValue(value, rule.validators, context)) continue;
        const range = groupRange(rule.indices, part, match.index, group);
        let start = range[0] + offset;
        let end = range[1] + offset;
        if (rule.shape === 'pem-body') {
          const body = pemBodyRange(text, match.index + offset, start, end);
          if (!body) continue;
          [start, end] = body;
        }
        if (masked.length === 0) findings.push({ ruleId: rule.id, start, end });
        else for (const [s, e] of outsideMasks(start, end)) findings.push({ ruleId: rule.id, start: s, end: e });
      }
    }
  }
  return findings;
}
