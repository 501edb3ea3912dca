// Runs our own rules over a text: keyword pre-filter first, then the regex,
// then the validators on the value. Returns ranges only, never the values.

import type { RedactionFinding } from '../shared/types.ts';
import type { KeywordScan } from './keywordIndex.ts';
import { lineWindows, type Span } from './lineWindows.ts';
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

/**
 * Where the value (`raw`, the text of `group`) of a match lies in `part`. A group outside any
 * lookaround lies inside the match's text: where its text occurs there once, that is where it is.
 * Otherwise the sticky regex with indices matches once more.
 */
function placeValue(
  rule: CompiledRule,
  match: RegExpExecArray,
  part: string,
  group: number | string,
  raw: string,
): [number, number] {
  if (rule.consumed.has(group)) {
    const matched = match[0];
    const at = matched.indexOf(raw);
    if (at !== -1 && matched.indexOf(raw, at + 1) === -1) return [match.index + at, match.index + at + raw.length];
  }
  return groupRange(rule.indices, part, match.index, group);
}

/** Per rule, by index: its keyword ids, and its groups in the scan plan (-1: none). */
export interface RuleGroups {
  keywords: readonly (readonly number[])[];
  /** The window group of a `line` rule: where its keywords' hits are listed. */
  window: Int32Array;
  /** The start group of a rule whose matches start with known literals. */
  start: Int32Array;
  /** 1 for a rule whose matches stay on one line (lineLocal.ts): its windows are its keywords' own lines. */
  oneLine: Uint8Array;
}

/**
 * `scan` says which keywords occur in the text and where (KeywordIndex.scan,
 * with the plan the groups were made for).
 */
export function scanRules(
  text: string,
  scan: KeywordScan,
  path: string | undefined,
  rules: readonly CompiledRule[],
  groups: RuleGroups,
  deadline: Deadline,
): RedactionFinding[] {
  const present = scan.found;
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
  /** Judges one match of `rule` in `part` (which starts at `offset` of the text); keeps its value if accepted. */
  const consider = (rule: CompiledRule, match: RegExpExecArray, part: string, offset: number): void => {
    // Matches are found without indices (building them for every match is most of a match's cost);
    // only an accepted value is placed, by matching once more at the same start.
    const g = valueGroupOf(match, rule.valueGroups);
    if (g === -1) return;
    const group = rule.valueGroups[g]!;
    const raw = typeof group === 'number' ? match[group]! : match.groups![group]!;
    if (raw.length === 0) return;
    // Judge the value without earlier placeholders in it.
    const value = masked.length === 0 ? raw : raw.replace(PLACEHOLDER_GLOBAL, '');
    if (value.length === 0) return;
    // A backtick-quoted value is judged like a bare one: `token:`passed`` in bundled JS is code, not a secret.
    const context = { bare: group === 'bare' || group === 'bq', envStyle: group === 'envval' };
    if (!acceptsValue(value, rule.validators, context)) return;
    const range = placeValue(rule, match, part, group, raw);
    let start = range[0] + offset;
    let end = range[1] + offset;
    if (rule.shape === 'pem-body') {
      const body = pemBodyRange(text, match.index + offset, start, end);
      if (!body) return;
      [start, end] = body;
    }
    if (masked.length === 0) findings.push({ ruleId: rule.id, start, end });
    else for (const [s, e] of outsideMasks(start, end)) findings.push({ ruleId: rule.id, start: s, end: e });
  };
  // Windows by window group (rules with the same keywords share them): not yet computed, or null for the whole text.
  const lineWindowsOf: (Span[] | null | undefined)[] = [];
  const wideWindowsOf: (Span[] | null | undefined)[] = [];
  for (let r = 0; r < rules.length; r++) {
    const rule = rules[r]!;
    if (rule.appliesToPath && !rule.appliesToPath(path)) continue;
    const windowGroup = groups.window[r]!;
    let anyKeyword = windowGroup !== -1 && scan.ends[windowGroup] !== undefined;
    if (windowGroup === -1) {
      const ids = groups.keywords[r]!;
      for (let k = 0; k < ids.length && !anyKeyword; k++) anyKeyword = present[ids[k]!] === 1;
    }
    if (!anyKeyword) continue;
    deadline.check();
    // Where a match can start (a rule whose matches all start with known literals): nowhere, or a list.
    let starts: number[] | undefined;
    const startGroup = groups.start[r]!;
    if (startGroup !== -1) {
      starts = scan.starts[startGroup];
      if (starts === undefined) continue;
    }
    let spans = whole;
    if (windowGroup !== -1) {
      const oneLine = groups.oneLine[r] === 1;
      const cache = oneLine ? lineWindowsOf : wideWindowsOf;
      let windows = cache[windowGroup];
      if (windows === undefined) {
        const hits = scan.ends[windowGroup];
        windows = (hits === null ? undefined : lineWindows(text, hits ?? [], oneLine)) ?? null;
        cache[windowGroup] = windows;
      }
      spans = windows ?? whole;
    }
    let next = 0;
    for (const span of spans) {
      const part = span === whole[0] ? text : text.slice(span.start, span.end);
      const offset = span.start;
      if (starts) {
        // Tried only where a match can start, in order, each after the previous match's end: the
        // same matches as the search below, which would try every position in between.
        const sticky = rule.sticky;
        let from = 0;
        while (next < starts.length && starts[next]! < offset) next++;
        for (; next < starts.length && starts[next]! < span.end; next++) {
          const at = starts[next]! - offset;
          if (at < from) continue;
          sticky.lastIndex = at;
          const match = sticky.exec(part);
          if (match === null) continue;
          from = at + Math.max(1, match[0].length);
          if (match[0].length > 0) consider(rule, match, part, offset);
        }
        continue;
      }
      const regex = rule.regex;
      regex.lastIndex = 0;
      for (let match = regex.exec(part); match !== null; match = regex.exec(part)) {
        if (match[0].length === 0) {
          regex.lastIndex++;
          continue;
        }
        consider(rule, match, part, offset);
      }
    }
  }
  return findings;
}
