// secretlint's recommended preset as a second guard behind our own rules.
// Only ranges and rule ids are kept: its message text contains the secret.

import { lintSource } from '@secretlint/core';
import { secretLintProfiler } from '@secretlint/profiler';
import { rules as recommendedRules } from '@secretlint/secretlint-rule-preset-recommend';
import type { SecretLintCoreConfig } from '@secretlint/types';
import type { RedactionFinding } from '../shared/types.ts';
import { isPlaceholder, isReference } from './validators.ts';

/**
 * secretlint's built-in profiler marks every rule run on the global
 * performance timeline and keeps each entry in arrays that are never cleared,
 * searching them linearly on every mark: in a long-running proxy that is an
 * unbounded leak and a quadratic slowdown (measured: seconds after a few
 * thousand items). We never read its measures, so its marks become no-ops.
 * (@secretlint/profiler is @secretlint/core's own dependency, pinned with it.)
 */
Object.assign(secretLintProfiler, { perf: { mark() {}, measure() {} } });

/**
 * `filter-comments` lets file content switch detection off with
 * `secretlint-disable` comments; a file must not be able to do that.
 */
const DISABLED_RULES = new Set(['@secretlint/secretlint-rule-filter-comments']);

export const secretlintConfig: SecretLintCoreConfig = {
  rules: recommendedRules
    .filter((rule) => !DISABLED_RULES.has(rule.meta.id))
    .map((rule) => ({ id: rule.meta.id, rule })),
};

/**
 * What each rule of the preset needs in its input before it can report (read
 * from the preset's patterns, 11.7.1): linting a few lines costs mostly the
 * per-rule setup, so only the rules whose own gate matches the lines run. A
 * rule not listed here (a newer preset) always runs; the GCP rule judges whole
 * .json (and .p12) files, so it runs for those whatever their content.
 */
const RULE_GATES: Readonly<Record<string, (content: string, ext: string | undefined) => boolean>> = {
  '@secretlint/secretlint-rule-aws': (c) => /secret_?access_?key/i.test(c),
  '@secretlint/secretlint-rule-gcp': (_c, ext) => ext === '.json' || ext === '.p12',
  '@secretlint/secretlint-rule-npm': (c) => /x-oauth-basic|_authtoken=|npm_[a-z0-9_]{36}/i.test(c),
  '@secretlint/secretlint-rule-slack': (c) => /xox[a-z]-|xapp-|hooks\.slack\.com/i.test(c),
  '@secretlint/secretlint-rule-basicauth': (c) => /:\/\/[^\s/]*:[^\s/]*@/.test(c),
  '@secretlint/secretlint-rule-database-connection-string': (c) => /:\/\/[^\s/]*:[^\s/]*@/.test(c),
  '@secretlint/secretlint-rule-openai': (c) => /sk-(?:proj|svcacct|admin)/i.test(c) || /T3BlbkFJ/.test(c),
  '@secretlint/secretlint-rule-anthropic': (c) => /sk-ant-api0/i.test(c),
  '@secretlint/secretlint-rule-linear': (c) => /lin_api_/i.test(c),
  '@secretlint/secretlint-rule-privatekey': (c) => /-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY/.test(c),
  '@secretlint/secretlint-rule-sendgrid': (c) => /SG\.\w/.test(c),
  '@secretlint/secretlint-rule-shopify': (c) => /shp(?:pa|ca|at|ss)_/i.test(c),
  '@secretlint/secretlint-rule-github': (c) => /gh[pousr]_|github_pat_/i.test(c),
  '@secretlint/secretlint-rule-1password': (c) => /ops_ey/i.test(c),
};

/** Configurations with only some of the preset's rules (same order), by which rules: built once each. */
const configsByRules = new Map<number, SecretLintCoreConfig>();

/** The preset's rules that can report on `content`: the same messages as the whole preset, for less setup. */
export function configFor(content: string, ext: string | undefined): SecretLintCoreConfig {
  if (secretlintConfig.rules.length > 30) return secretlintConfig;
  let mask = 0;
  secretlintConfig.rules.forEach((entry, i) => {
    const gate = RULE_GATES[entry.id];
    if (!gate || gate(content, ext)) mask |= 1 << i;
  });
  let config = configsByRules.get(mask);
  if (!config) {
    config = { rules: secretlintConfig.rules.filter((_entry, i) => (mask & (1 << i)) !== 0) };
    configsByRules.set(mask, config);
  }
  return config;
}

/**
 * A text that none of these match cannot produce a secretlint finding: each
 * alternative is what one rule of the preset needs before it can report (aws
 * secret key name, GCP private_key, npm, Slack, basic-auth and database URLs,
 * OpenAI, Anthropic, Linear, private key, SendGrid, Shopify, GitHub,
 * 1Password). So secretlint runs only on items, and lines, where it can
 * find something. Case matters where the preset's own pattern is case-exact.
 */
const GATES = [
  /secret_?access_?key|private_key|x-oauth-basic|_authtoken=|npm_[a-z0-9_]{36}|xox[a-z]-|xapp-|hooks\.slack\.com|:\/\/[^\s/]*:[^\s/]*@|sk-(?:proj|svcacct|admin|ant-api0)|lin_api_|shp(?:pa|ca|at|ss)_|gh[pousr]_|github_pat_|ops_ey/gi,
  /-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY|SG\.\w|T3BlbkFJ/g,
];

/**
 * The first gate's one form that holds `://`: on a line whose only anchors are `://` (a URL, the most
 * common anchor by far), no other form of either gate can match, so this is the whole search there.
 */
const URL_CREDENTIALS_GATE = /:\/\/[^\s/]*:[^\s/]*@/g;
const URL_ONLY = [URL_CREDENTIALS_GATE];

export { GATE_ANCHORS } from './gateAnchors.ts';

/** secretlint's AWS rule reports from the key name, not the value: re-anchor on the 40-character value. */
function reanchor(ruleId: string, text: string, start: number, end: number): [number, number] {
  if (ruleId === '@secretlint/secretlint-rule-aws') {
    const span = text.slice(start, Math.min(text.length, end + 80));
    const value = /[=:>]\s*["']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/.exec(span);
    if (value?.[1]) {
      const at = start + value.index + value[0].length - 40;
      return [at, at + 40];
    }
  }
  return [start, end];
}

interface Window {
  start: number;
  end: number;
  /** Where the window starts in the text given to secretlint. */
  at: number;
}

function lineStartOf(text: string, index: number): number {
  return text.lastIndexOf('\n', index - 1) + 1;
}

function lineEndOf(text: string, index: number): number {
  const end = text.indexOf('\n', index);
  return end === -1 ? text.length : end;
}

interface GateHit {
  index: number;
  0: string;
}

/**
 * Every GATES match, in text order. With `anchorStarts` (where the keyword pass saw a GATE_ANCHORS
 * hit start, in text order), only the lines holding one are searched: every gate match holds an
 * anchor and none crosses a line break, so those lines hold every match, and a search of one line
 * finds there what a search of the whole text finds.
 */
function gateHits(text: string, anchorStarts: readonly number[] | undefined): GateHit[] {
  if (!anchorStarts) return GATES.flatMap((gate) => [...text.matchAll(gate)]).sort((a, b) => a.index - b.index);
  // Each anchor line, and whether every anchor on it is `://`.
  const lines: [number, number, boolean][] = [];
  for (const start of anchorStarts) {
    const url = text.startsWith('://', start);
    const last = lines.at(-1);
    if (last && start <= last[1]) {
      if (!url) last[2] = false;
      continue;
    }
    lines.push([lineStartOf(text, start), lineEndOf(text, start), url]);
  }
  const hits: GateHit[] = [];
  // One slice per line and exec on the shared regexes: matchAll would clone a regex per line and gate.
  for (const [start, end, urlOnly] of lines) {
    const line = text.slice(start, end);
    for (const gate of urlOnly ? URL_ONLY : GATES) {
      gate.lastIndex = 0;
      for (let match = gate.exec(line); match !== null; match = gate.exec(line)) {
        hits.push({ index: start + match.index, 0: match[0] });
      }
    }
  }
  // Stable: at one index (one line), the first gate's match stays first, as in the whole-text search.
  return hits.sort((a, b) => a.index - b.index);
}

/**
 * The lines secretlint can possibly report on: each gate hit's line and the
 * next one, and a whole private-key block. secretlint then lints only those
 * (joined), not the whole item: its cost grows with the text it is given.
 */
export function secretlintWindows(
  text: string,
  covered: readonly RedactionFinding[] = [],
  anchorStarts?: readonly number[],
): { start: number; end: number }[] {
  const windows: { start: number; end: number }[] = [];
  let endMarkers: number[] | undefined;
  let nextEnd = 0;
  const hits = gateHits(text, anchorStarts);
  for (const hit of hits) {
    // What the hit's rule reports on: a whole PEM block, else the rest of the line.
    let spanEnd = lineEndOf(text, hit.index + hit[0].length);
    if (hit[0].startsWith('-----BEGIN')) {
      // secretlint's private-key rule needs the END line; without one it
      // cannot report, and its pattern gets slow on many BEGIN lines.
      // (END positions are found once: many BEGIN lines must not cost n².)
      endMarkers ??= [...text.matchAll(/-----END/g)].map((m) => m.index);
      // Hits come in text order, so the first END after each only moves forward.
      while (nextEnd < endMarkers.length && endMarkers[nextEnd]! <= hit.index) nextEnd++;
      const close = endMarkers[nextEnd];
      if (close === undefined || close - hit.index > 20_000) continue;
      spanEnd = lineEndOf(text, close);
    }
    // Where one of our findings already covers that, secretlint's would give way to ours: skip it.
    if (covered.some((f) => f.start < spanEnd && hit.index < f.end)) continue;
    const start = lineStartOf(text, hit.index);
    const end = Math.max(spanEnd, lineEndOf(text, lineEndOf(text, hit.index + hit[0].length) + 1));
    const last = windows.at(-1);
    if (last && start <= last.end + 1) last.end = Math.max(last.end, end);
    else windows.push({ start, end });
  }
  return windows;
}

/** `covered`: what our own rules found already; `anchorStarts`: see gateHits (both: see secretlintWindows). */
export async function secretlintFindings(
  text: string,
  path: string | undefined,
  covered: readonly RedactionFinding[] = [],
  anchorStarts?: readonly number[],
): Promise<RedactionFinding[]> {
  const ext = path?.match(/\.[A-Za-z0-9]+$/)?.[0];
  // The GCP rule parses a whole .json file; anything else is judged line by line.
  // Where our findings cover every line it could report on, its findings would give way to ours: skip it (JSON too).
  const lines = secretlintWindows(text, covered, anchorStarts);
  if (lines.length === 0) return [];
  const whole = ext === '.json' && text.includes('private_key');
  const spans = whole ? [{ start: 0, end: text.length }] : lines;
  const windows: Window[] = [];
  let at = 0;
  for (const span of spans) {
    windows.push({ ...span, at });
    at += span.end - span.start + 1;
  }
  const content = spans.map((span) => text.slice(span.start, span.end)).join('\n');
  const config = configFor(content, ext);
  if (config.rules.length === 0) return [];
  const result = await lintSource({
    source: {
      content,
      filePath: path ?? 'stdin.txt',
      ...(ext ? { ext } : {}),
      contentType: 'text',
    },
    options: { config, maskSecrets: true, noPhysicFilePath: path === undefined },
  });
  const toText = (offset: number): number => {
    let window = windows[0]!;
    for (const w of windows) if (w.at <= offset) window = w;
    return Math.min(window.start + (offset - window.at), window.end);
  };
  const findings: RedactionFinding[] = [];
  for (const message of result.messages) {
    const [start, end] = reanchor(message.ruleId, text, toText(message.range[0]), toText(message.range[1]));
    if (end <= start) continue;
    // The same placeholder judgement as our rules: `ghp_xxxx…` in a README stays.
    const value = text.slice(start, end);
    if (isPlaceholder(value) || isReference(value)) continue;
    findings.push({ ruleId: shortRuleId(message.ruleId), start, end });
  }
  return findings;
}

/** `@secretlint/secretlint-rule-aws` → `secretlint-aws`. */
function shortRuleId(ruleId: string): string {
  return ruleId.replace(/^@secretlint\/secretlint-rule-/, 'secretlint-');
}
