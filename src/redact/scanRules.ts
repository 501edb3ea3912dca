// Runs our own rules over a text: keyword pre-filter first, then the regex,
// then the validators on the value. Returns ranges only, never the values.

import type { RedactionFinding } from '../shared/types.ts';
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

const LINE_BREAK = /\r?\n|\\r\\n|\\n/;
const TRAILING_BREAK_AND_PREFIX = /(?:\r?\n|\\r\\n|\\n)[ \t+>#"'-]*$/;

/**
 * A PEM block body keeps its marker lines: mask from the first line after
 * BEGIN (minus the prefix the BEGIN line had: a diff `+`, YAML indentation)
 * to the end of the last line before END.
 */
function pemBodyRange(text: string, blockStart: number, start: number, end: number): [number, number] {
  const lineStart = text.lastIndexOf('\n', blockStart - 1) + 1;
  const prefix = text.slice(lineStart, blockStart);
  const body = text.slice(start, end);
  const firstBreak = LINE_BREAK.exec(body);
  if (!firstBreak) {
    const lead = body.length - body.trimStart().length;
    return [start + lead, start + body.trimEnd().length];
  }
  let from = firstBreak.index + firstBreak[0].length;
  if (prefix.length > 0 && /^[\s+>#-]*$/.test(prefix) && body.startsWith(prefix, from)) from += prefix.length;
  let to = body.length;
  const trailing = TRAILING_BREAK_AND_PREFIX.exec(body);
  if (trailing) to = trailing.index;
  if (to <= from) return [start, end];
  return [start + from, start + to];
}

function valueRange(
  match: RegExpExecArray,
  groups: (number | string)[],
): { range: [number, number]; group: string | number } | undefined {
  const indices = match.indices;
  if (!indices) return undefined;
  for (const group of groups) {
    const range = typeof group === 'number' ? indices[group] : indices.groups?.[group];
    if (range) return { range: [range[0], range[1]], group };
  }
  return undefined;
}

export function scanRules(
  text: string,
  lowerText: string,
  path: string | undefined,
  rules: readonly CompiledRule[],
  deadline: Deadline,
): RedactionFinding[] {
  const findings: RedactionFinding[] = [];
  for (const rule of rules) {
    if (rule.appliesToPath && !rule.appliesToPath(path)) continue;
    if (!rule.keywords.some((k) => lowerText.includes(k))) continue;
    deadline.check();
    rule.regex.lastIndex = 0;
    for (let match = rule.regex.exec(text); match !== null; match = rule.regex.exec(text)) {
      if (match[0].length === 0) {
        rule.regex.lastIndex++;
        continue;
      }
      const found = valueRange(match, rule.valueGroups);
      if (!found) continue;
      let [start, end] = found.range;
      if (end <= start) continue;
      const value = text.slice(start, end);
      const context = { bare: found.group === 'bare', envStyle: found.group === 'envval' };
      if (!acceptsValue(value, rule.validators, context)) continue;
      if (rule.shape === 'pem-body') [start, end] = pemBodyRange(text, match.index, start, end);
      findings.push({ ruleId: rule.id, start, end });
    }
  }
  return findings;
}
