// Reads and validates rules/redaction/*.json and rules/never-read.json, and
// compiles them. Any problem throws an error that names the file and field.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import picomatch from 'picomatch';
import type { z } from 'zod';
import { describeIssues } from '../shared/zodIssues.ts';
import { staysOnOneLine } from './lineLocal.ts';
import { consumedGroups, matchStarts } from './matchStarts.ts';
import {
  type NeverReadSpec,
  neverReadFileSchema,
  type RedactionRuleSpec,
  type RuleExampleSpec,
  redactionRuleFileSchema,
  type ValidatorSpec,
} from './ruleSchema.ts';
import { orderByCost } from './validators.ts';

export interface CompiledRule {
  id: string;
  /** Global, without indices: finds the matches (most are rejected by the validators). */
  regex: RegExp;
  /** The same pattern, sticky and with indices: run once at an accepted match's start to place its value. */
  indices: RegExp;
  /** The same pattern, sticky: tried only where a match can start, when `starts` says where. */
  sticky: RegExp;
  /** Lower-cased literals every match starts with (matchStarts.ts), if known. */
  starts: string[] | undefined;
  /** Capturing groups outside any lookaround: their text lies in the match's own text. */
  consumed: Set<number | string>;
  /** Lower-cased pre-filter strings. */
  keywords: string[];
  placeholder: string;
  appliesToPath: ((path: string | undefined) => boolean) | undefined;
  valueGroups: (number | string)[];
  validators: ValidatorSpec[];
  shape: RedactionRuleSpec['shape'];
  scope: RedactionRuleSpec['scope'];
  /** No match can cross a line break: a `line` rule then runs on its keywords' own lines only. */
  oneLine: boolean;
  generic: boolean;
  /** Where the rule is defined (`file: rules[i] (id)`), for messages. */
  where: string;
  examples: { secret: RuleExample[]; keep: RuleExample[] };
}

export interface RuleExample {
  text: string;
  path: string | undefined;
}

const toExample = (spec: RuleExampleSpec): RuleExample =>
  typeof spec === 'string' ? { text: spec, path: undefined } : { text: spec.text, path: spec.path };

export interface RuleFs {
  readdir(dir: string): string[];
  readFile(path: string): string;
}

export const realRuleFs: RuleFs = {
  readdir: (dir) => readdirSync(dir),
  readFile: (path) => readFileSync(path, 'utf8'),
};

export class RuleLoadError extends Error {
  override readonly name = 'RuleLoadError';
}

function parseJsonFile<T>(file: string, schema: z.ZodType<T>, fs: RuleFs): T {
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFile(file));
  } catch (error) {
    throw new RuleLoadError(`${file}: cannot read JSON (${(error as Error).message})`);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new RuleLoadError(`${file}: ${describeIssues(parsed.error, '(root)')}`);
  return parsed.data;
}

function expandFragments(pattern: string, fragments: Record<string, string>, where: string): string {
  // Fragments may use other fragments; a small depth bound stops cycles.
  let out = pattern;
  for (let depth = 0; depth < 5 && out.includes('{{'); depth++) {
    out = out.replace(/\{\{([A-Za-z][A-Za-z0-9_]*)\}\}/g, (_all, name: string) => {
      const fragment = fragments[name];
      if (fragment === undefined) throw new RuleLoadError(`${where}: unknown fragment {{${name}}}`);
      return fragment;
    });
  }
  return out;
}

function globMatcher(globs: string[]): (path: string) => boolean {
  const withSlash = picomatch(
    globs.filter((g) => g.includes('/')),
    { dot: true },
  );
  const basenameOnly = picomatch(
    globs.filter((g) => !g.includes('/')),
    { dot: true, basename: true },
  );
  return (path) => {
    const normalized = path.replaceAll('\\', '/').replace(/^\.\//, '');
    return basenameOnly(normalized) || withSlash(normalized);
  };
}

/** Glob matching costs more than the rest of a small item's scan: the same paths come back on every request. */
function memoizedPathMatch(pathMatch: (path: string) => boolean): (path: string | undefined) => boolean {
  const seen = new Map<string, boolean>();
  return (path) => {
    if (path === undefined) return false;
    let result = seen.get(path);
    if (result === undefined) {
      if (seen.size >= 4096) seen.clear();
      result = pathMatch(path);
      seen.set(path, result);
    }
    return result;
  };
}

/** A pattern given as a list of lines is their concatenation: the layout is for readers only. */
export function patternSource(pattern: string | readonly string[]): string {
  return typeof pattern === 'string' ? pattern : pattern.join('');
}

/**
 * A mask names the rule that matched: the audit log, the UI and a reader of
 * the redacted text learn which rule to look at, and a rule's examples are
 * checked under its own id. A custom placeholder without that form stays free.
 */
function checkOwnMask(spec: RedactionRuleSpec, where: string): void {
  for (const [, named] of (spec.placeholder ?? '').matchAll(/\[REDACTED:([^\]]*)\]/g)) {
    if (named !== spec.id) {
      throw new RuleLoadError(
        `${where}.placeholder: names "${named}", not the rule's own id (drop the field: the default is [REDACTED:${spec.id}])`,
      );
    }
  }
}

function compileRule(spec: RedactionRuleSpec, fragments: Record<string, string>, where: string): CompiledRule {
  const source = expandFragments(patternSource(spec.pattern), fragments, `${where}.pattern`);
  let regex: RegExp;
  try {
    regex = new RegExp(source, `g${spec.flags}`);
  } catch (error) {
    throw new RuleLoadError(`${where}.pattern: invalid regular expression (${(error as Error).message})`);
  }
  if (regex.test('')) throw new RuleLoadError(`${where}.pattern: matches the empty string`);
  const indices = new RegExp(source, `dy${spec.flags}`);
  const sticky = new RegExp(source, `y${spec.flags}`);
  const valueGroups = Array.isArray(spec.valueGroup) ? spec.valueGroup : [spec.valueGroup];
  for (const group of valueGroups) {
    if (typeof group === 'string' && !source.includes(`(?<${group}>`)) {
      throw new RuleLoadError(`${where}.valueGroup: no group named "${group}" in the pattern`);
    }
  }
  checkOwnMask(spec, where);
  const pathMatch = spec.paths ? globMatcher(spec.paths) : undefined;
  return {
    id: spec.id,
    regex,
    indices,
    sticky,
    starts: matchStarts(source, regex.flags),
    consumed: consumedGroups(source),
    keywords: spec.keywords.map((k) => k.toLowerCase()),
    placeholder: spec.placeholder ?? `[REDACTED:${spec.id}]`,
    appliesToPath: pathMatch ? memoizedPathMatch(pathMatch) : undefined,
    valueGroups,
    validators: orderByCost(spec.validators),
    shape: spec.shape,
    scope: spec.shape === 'pem-body' ? 'text' : spec.scope,
    oneLine: staysOnOneLine(source, regex.flags),
    generic: spec.generic,
    where,
    examples: {
      secret: (spec.examples?.secret ?? []).map(toExample),
      keep: (spec.examples?.keep ?? []).map(toExample),
    },
  };
}

/** Every `*.json` in `dir`, in name order; rule ids must be unique across files. */
export function loadRedactionRules(dir: string, fs: RuleFs = realRuleFs): CompiledRule[] {
  let names: string[];
  try {
    names = fs
      .readdir(dir)
      .filter((n) => n.endsWith('.json'))
      .sort();
  } catch (error) {
    throw new RuleLoadError(`${dir}: cannot list rule files (${(error as Error).message})`);
  }
  if (names.length === 0) throw new RuleLoadError(`${dir}: no rule files (*.json)`);
  const rules: CompiledRule[] = [];
  const seen = new Map<string, string>();
  for (const name of names) {
    const file = join(dir, name);
    const spec = parseJsonFile(file, redactionRuleFileSchema, fs);
    spec.rules.forEach((rule, index) => {
      const where = `${file}: rules[${index}] (${rule.id})`;
      const previous = seen.get(rule.id);
      if (previous) throw new RuleLoadError(`${where}.id: duplicate of a rule in ${previous}`);
      seen.set(rule.id, file);
      rules.push(compileRule(rule, spec.fragments, where));
    });
  }
  return rules;
}

export function loadNeverRead(file: string, fs: RuleFs = realRuleFs): (relativePath: string) => boolean {
  const spec: NeverReadSpec = parseJsonFile(file, neverReadFileSchema, fs);
  const blocked = globMatcher(spec.patterns);
  const allowed = spec.exceptions.length > 0 ? globMatcher(spec.exceptions) : () => false;
  return (relativePath) => {
    // Judge every path segment's tail too, so `a/.aws/credentials` and
    // `keys/id_rsa` match whatever prefix the workspace adds.
    const path = relativePath.replaceAll('\\', '/').replace(/^\.\//, '');
    return blocked(path) && !allowed(path);
  };
}
