// Runs our own rules over a text: keyword pre-filter first, then the regex,
// then the validators on the value. Returns ranges only, never the values.

import type { KeptValue, RedactionFinding } from '../shared/types.ts';
import { classifyValue } from './classifyValue.ts';
import type { CompiledRule } from './compiledRule.ts';
import type { KeywordScan } from './keywordIndex.ts';
import { firstRejection, tooShortForAKey } from './validators.ts';

/** What a value a validator rejects is, by the validator: the evidence the audit shows for it. */
const KIND_BY_VALIDATOR: Record<string, string> = {
  'not-placeholder': 'placeholder',
  'not-reference': 'reference',
  'not-code-or-word': 'documentation',
  'base64-decoded-not-placeholder': 'placeholder',
  'not-base64-text': 'documentation',
};

/** One evidence string per validator, made once: most candidates are rejected, each would build its own. */
const EVIDENCE = new Map<string, string>();
function evidenceOf(validator: string): string {
  let evidence = EVIDENCE.get(validator);
  if (evidence === undefined) {
    evidence = `the rule's ${validator} check`;
    EVIDENCE.set(validator, evidence);
  }
  return evidence;
}

/** How much of the text before a value's match the classifier reads for its key (`existingSecret: "`). */
const KEY_CONTEXT_CHARS = 80;
/** How much text after a value the classifier reads: a call's `(`, a template's closing `}}`. */
const AFTER_CONTEXT_CHARS = 80;
/** `\\n`, `\\r`, `\\t` escapes ending a value in JSON-escaped source. */
const TRAILING_ESCAPES = /(?:\\[nrt])+$/;

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
 * Words in one case joined by `-`, `_` or spaces where the key goes (`YOUR-ORGS-VALIDATION-KEY-HERE`,
 * `paste your key here`): a sample's instruction. base64 has none of those marks and mixes cases.
 */
const WORDS_FOR_A_BODY = /^\s*(?:[A-Z]+(?:[-_ ][A-Z]+)+|[a-z]+(?:[-_ ][a-z]+)+)\s*$/;

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
  const inside = body.slice(from, to);
  if (
    to <= from ||
    !/[A-Za-z0-9+/=]{8}/.test(inside) ||
    ALREADY_MASKED.test(inside) ||
    WORDS_FOR_A_BODY.test(inside) ||
    tooShortForAKey(inside)
  ) {
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

/** Where `group` of the match at `index` of `text` is: the sticky regex with indices finds the same match again. */
function groupRange(indices: RegExp, text: string, index: number, group: number | string): [number, number] {
  indices.lastIndex = index;
  const again = indices.exec(text)!.indices!;
  const range = typeof group === 'number' ? again[group] : again.groups?.[group];
  return [range![0], range![1]];
}

/**
 * Where the value (`raw`, the text of `group`) of a match lies in `text`. A group outside any
 * lookaround lies inside the match's text: where its text occurs there once, that is where it is.
 * Otherwise the sticky regex with indices matches once more.
 */
function placeValue(
  rule: CompiledRule,
  match: RegExpExecArray,
  text: string,
  group: number | string,
  raw: string,
): [number, number] {
  if (rule.consumed.has(group)) {
    const matched = match[0];
    const at = matched.indexOf(raw);
    if (at !== -1 && matched.indexOf(raw, at + 1) === -1) return [match.index + at, match.index + at + raw.length];
  }
  return groupRange(rule.indices, text, match.index, group);
}

/**
 * `scan` says which keywords occur in the text and, for each rule with `starts[r]` set, where the
 * literals its matches start with occur (KeywordIndex.scan, list r); `keywords[r]` are rule r's keyword ids.
 */
/**
 * Files whose values are data, not code (INI, TOML, .cfg/.cnf, dotenv): a bare word there is a value.
 * Not `.properties`: most are translations (`login.secret=Geheimnis`).
 */
const DATA_FILE = /(?:\.(?:ini|toml|cfg|cnf)|(?:^|\/)\.env(?:\.[\w.-]+)?)$/i;

export function scanRules(
  text: string,
  scan: KeywordScan,
  path: string | undefined,
  rules: readonly CompiledRule[],
  keywords: readonly (readonly number[])[],
  withStarts: Uint8Array,
  deadline: Deadline,
  /** Receives every candidate left alone, with why; omitted, nothing is recorded. */
  kept?: KeptValue[],
): RedactionFinding[] {
  const present = scan.found;
  const dataFile = path !== undefined && DATA_FILE.test(path);
  const findings: RedactionFinding[] = [];
  // Text that was redacted before (a stored snapshot, a pasted answer) keeps its placeholders as they are.
  const masked = text.includes('[REDACTED:')
    ? [...text.matchAll(PLACEHOLDER_GLOBAL)].map((m) => [m.index, m.index + m[0].length])
    : [];
  const insideMask = (at: number): boolean => masked.some(([ms, me]) => at >= ms! && at < me!);
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
  /** Judges one match of `rule`; keeps its value if accepted. */
  const consider = (rule: CompiledRule, match: RegExpExecArray): void => {
    // Matches are found without indices (building them for every match is most of a match's cost);
    // only an accepted value is placed, by matching once more at the same start.
    // A match that starts inside an earlier placeholder took its key from the placeholder's rule name
    // (`[REDACTED:secret-in-prose] here: …` reads as "secret … here:"): not a key in the text.
    if (masked.length > 0 && insideMask(match.index)) return;
    const g = valueGroupOf(match, rule.valueGroups);
    if (g === -1) return;
    const group = rule.valueGroups[g]!;
    const raw = typeof group === 'number' ? match[group]! : match.groups![group]!;
    if (raw.length === 0) return;
    // Judge the value without earlier placeholders in it.
    // A value in JSON-escaped source (a notebook's cell, a HAR body) is judged without the escapes that
    // end its line: `tokenizer.eos_token\\n` is `tokenizer.eos_token`.
    const value = (masked.length === 0 ? raw : raw.replace(PLACEHOLDER_GLOBAL, '')).replace(TRAILING_ESCAPES, '');
    if (value.length === 0) return;
    // A backtick-quoted value is judged like a bare one: `token:`passed`` in bundled JS is code, not a secret.
    // In an INI, properties, TOML or dotenv file a bare value is data, never code: judged as a shell value is.
    const context =
      group === 'bare' && dataFile
        ? { bare: false, envStyle: true }
        : { bare: group === 'bare' || group === 'bq', envStyle: group === 'envval' };
    const rejectedBy = firstRejection(value, rule.validators, context);
    if (rejectedBy !== undefined) {
      kept?.push({
        ruleId: rule.id,
        start: match.index,
        end: match.index + match[0].length,
        kind: KIND_BY_VALIDATOR[rejectedBy] ?? 'documentation',
        evidence: evidenceOf(rejectedBy),
      });
      return;
    }
    if (rule.classifies) {
      // The rule found a value by its key; what the value is decides (classifyValue.ts).
      const at = match[0].lastIndexOf(raw);
      const keyText = text.slice(Math.max(0, match.index - KEY_CONTEXT_CHARS), match.index + Math.max(0, at));
      const valueEnd = match.index + Math.max(0, at) + raw.length;
      const verdict = classifyValue(
        value,
        keyText,
        path,
        {
          placeholder: rule.validators.includes('not-placeholder'),
          reference: rule.validators.includes('not-reference'),
        },
        text.slice(valueEnd, valueEnd + AFTER_CONTEXT_CHARS),
        { text, start: valueEnd - raw.length },
      );
      if (verdict.kind !== 'literal') {
        kept?.push({ ruleId: rule.id, start: match.index, end: match.index + match[0].length, ...verdict });
        return;
      }
    }
    let [start, end] = placeValue(rule, match, text, group, raw);
    if (rule.shape === 'pem-body') {
      const body = pemBodyRange(text, match.index, start, end);
      if (!body) return;
      [start, end] = body;
    }
    if (masked.length === 0) findings.push({ ruleId: rule.id, start, end });
    else for (const [s, e] of outsideMasks(start, end)) findings.push({ ruleId: rule.id, start: s, end: e });
  };
  for (let r = 0; r < rules.length; r++) {
    const rule = rules[r]!;
    if (rule.appliesToPath && !rule.appliesToPath(path)) continue;
    const ids = keywords[r]!;
    let anyKeyword = false;
    for (let k = 0; k < ids.length && !anyKeyword; k++) anyKeyword = present[ids[k]!] === 1;
    if (!anyKeyword) continue;
    deadline.check();
    if (withStarts[r] === 1) {
      // Tried only where a match can start, in order, each after the previous match's end: the same
      // matches as the search below, which would try every position in between.
      const starts = scan.starts[r];
      if (starts === undefined) continue;
      const sticky = rule.sticky;
      let from = 0;
      for (const at of starts) {
        if (at < from) continue;
        sticky.lastIndex = at;
        const match = sticky.exec(text);
        if (match === null) continue;
        from = at + Math.max(1, match[0].length);
        if (match[0].length > 0) consider(rule, match);
      }
      continue;
    }
    const regex = rule.regex;
    regex.lastIndex = 0;
    for (let match = regex.exec(text); match !== null; match = regex.exec(text)) {
      if (match[0].length === 0) {
        regex.lastIndex++;
        continue;
      }
      consider(rule, match);
    }
  }
  return findings;
}
