// Reads and validates rules/redaction/*.json and rules/never-read.json, and
// compiles them. Any problem throws an error that names the file and field.

import { hash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import picomatch from 'picomatch';
import type { z } from 'zod';
import { describeIssues } from '../shared/zodIssues.ts';
import type { CompiledRule, RuleExample } from './compiledRule.ts';
import { consumedGroups, matchStarts } from './matchStarts.ts';
import { ownPatternFailures } from './ruleExamples.ts';
import {
  type NeverReadSpec,
  neverReadFileSchema,
  type RedactionRuleSpec,
  type RuleExampleSpec,
  redactionRuleFileSchema,
} from './ruleSchema.ts';
import { orderByCost } from './validators.ts';

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

const SHIPPED_RULES_DIR = resolve(fileURLToPath(new URL('../../rules/redaction/', import.meta.url)));

export class RuleLoadError extends Error {
  override readonly name = 'RuleLoadError';
}

function readRuleFile(file: string, fs: RuleFs): string {
  try {
    return fs.readFile(file);
  } catch (error) {
    throw new RuleLoadError(`${file}: cannot read JSON (${(error as Error).message})`);
  }
}

function parseJsonText<T>(file: string, text: string, schema: z.ZodType<T>): T {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new RuleLoadError(`${file}: cannot read JSON (${(error as Error).message})`);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new RuleLoadError(`${file}: ${describeIssues(parsed.error, '(root)')}`);
  return parsed.data;
}

function parseJsonFile<T>(file: string, schema: z.ZodType<T>, fs: RuleFs): T {
  return parseJsonText(file, readRuleFile(file, fs), schema);
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

/** Compiled on first use: the never-read list and a rule's paths are not needed by every command. */
function globMatcher(globs: string[]): (path: string) => boolean {
  let match: ((path: string) => boolean) | undefined;
  return (path) => {
    if (!match) {
      const withSlash = picomatch(
        globs.filter((g) => g.includes('/')),
        { dot: true },
      );
      const basenameOnly = basenameMatcher(globs.filter((g) => !g.includes('/')));
      match = (p) => basenameOnly(p) || withSlash(p);
    }
    return match(path.replaceAll('\\', '/').replace(/^\.\//, ''));
  };
}

/**
 * picomatch's `basename` mode for globs without a slash, with the same verdicts:
 * a glob equal to the whole path, or one whose regex matches the path's last
 * segment (the one before a trailing slash). picomatch cuts the segment again
 * for every glob of a list and tests the globs one by one; the never-read list
 * is a long one, asked for every file a source opens (many on a cold request).
 * Here the segment is cut once and one regex holds them all.
 */
function basenameMatcher(globs: readonly string[]): (path: string) => boolean {
  if (globs.length === 0) return () => false;
  const literal = new Set(globs);
  const sources = globs.map((glob) => picomatch.makeRe(glob, { dot: true }).source);
  const any = new RegExp(`^(?:${sources.join('|')})$`);
  return (path) => {
    if (path === '') return false;
    if (literal.has(path)) return true;
    const end = path.endsWith('/') ? path.length - 1 : path.length;
    return any.test(path.slice(path.lastIndexOf('/', end - 1) + 1, end));
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

/**
 * Compiles a rule's pattern without running it: `new RegExp` only parses it (a syntax error fails
 * the load here), V8 compiles a regex on its first exec, and the sticky forms are made on first use.
 * Running each pattern once at load (on the empty string, say) would compile every rule's regex in
 * every start-up, though a request runs only the rules whose keywords it holds: `emptyMatchFailures`
 * runs it in the tests instead.
 */
/** What a rule's pattern source gives, found by reading it (derivedRules.ts caches it per build). */
export interface DerivedRule {
  /** The pattern with its fragments expanded. */
  source: string;
  starts: string[] | undefined;
  consumed: (number | string)[];
}

export function deriveRule(spec: RedactionRuleSpec, fragments: Record<string, string>, where: string): DerivedRule {
  const source = expandFragments(patternSource(spec.pattern), fragments, `${where}.pattern`);
  let flags: string;
  try {
    flags = new RegExp(source, `g${spec.flags}`).flags;
  } catch (error) {
    throw new RuleLoadError(`${where}.pattern: invalid regular expression (${(error as Error).message})`);
  }
  return { source, starts: matchStarts(source, flags), consumed: [...consumedGroups(source)] };
}

function compileRule(spec: RedactionRuleSpec, derived: DerivedRule, where: string): CompiledRule {
  const { source } = derived;
  let regex: RegExp;
  try {
    regex = new RegExp(source, `g${spec.flags}`);
  } catch (error) {
    throw new RuleLoadError(`${where}.pattern: invalid regular expression (${(error as Error).message})`);
  }
  const valueGroups = Array.isArray(spec.valueGroup) ? spec.valueGroup : [spec.valueGroup];
  for (const group of valueGroups) {
    if (typeof group === 'string' && !source.includes(`(?<${group}>`)) {
      throw new RuleLoadError(`${where}.valueGroup: no group named "${group}" in the pattern`);
    }
  }
  checkOwnMask(spec, where);
  const pathMatch = spec.paths ? globMatcher(spec.paths) : undefined;
  let indices: RegExp | undefined;
  let sticky: RegExp | undefined;
  return {
    id: spec.id,
    regex,
    get indices() {
      indices ??= new RegExp(source, `dy${spec.flags}`);
      return indices;
    },
    get sticky() {
      sticky ??= new RegExp(source, `y${spec.flags}`);
      return sticky;
    },
    starts: derived.starts,
    consumed: new Set(derived.consumed),
    keywords: spec.keywords.map((k) => k.toLowerCase()),
    placeholder: spec.placeholder ?? `[REDACTED:${spec.id}]`,
    appliesToPath: pathMatch ? memoizedPathMatch(pathMatch) : undefined,
    valueGroups,
    validators: orderByCost(spec.validators),
    shape: spec.shape,
    generic: spec.generic,
    classifies: spec.validators.includes('not-reference') || spec.validators.includes('base64-decoded-not-placeholder'),
    where,
    examples: {
      secret: (spec.examples?.secret ?? []).map(toExample),
      keep: (spec.examples?.keep ?? []).map(toExample),
    },
  };
}

/** One line per rule whose pattern matches the empty string (it would run at every position and mask nothing). */
export function emptyMatchFailures(rules: readonly CompiledRule[]): string[] {
  return rules
    .filter((rule) => new RegExp(rule.regex).test(''))
    .map((rule) => `${rule.where}.pattern: matches the empty string`);
}

/** A rule file as read and validated, with what each of its rules' patterns gives. */
export interface ParsedRuleFile {
  name: string;
  rules: { spec: RedactionRuleSpec; derived: DerivedRule }[];
}

/**
 * The rule files of `dir` (`*.json`, in name order), validated and their patterns read, and a key
 * of their names and contents. With `cached` for the same key (derivedRules.ts, written at build
 * time from the same files), its result is taken instead: validating the files and reading the
 * patterns is most of a start-up's rule loading.
 */
export function parseRuleFiles(
  dir: string,
  fs: RuleFs,
  cached?: { key: string; files: ParsedRuleFile[] },
): { key: string; files: ParsedRuleFile[] } {
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
  const texts = names.map((name) => readRuleFile(join(dir, name), fs));
  const key = hash('sha256', JSON.stringify([names, texts]), 'base64');
  if (cached?.key === key) return cached;
  const files = names.map((name, i) => {
    const file = join(dir, name);
    const spec = parseJsonText(file, texts[i]!, redactionRuleFileSchema);
    return {
      name,
      rules: spec.rules.map((rule, index) => ({
        spec: rule,
        derived: deriveRule(rule, spec.fragments, `${file}: rules[${index}] (${rule.id})`),
      })),
    };
  });
  return { key, files };
}

/** Every `*.json` in `dir`, in name order; rule ids must be unique across files. */
export function loadRedactionRules(
  dir: string,
  fs: RuleFs = realRuleFs,
  cached?: { key: string; files: ParsedRuleFile[] },
): CompiledRule[] {
  const rules: CompiledRule[] = [];
  const seen = new Map<string, string>();
  for (const { name, rules: parsed } of parseRuleFiles(dir, fs, cached).files) {
    const file = join(dir, name);
    parsed.forEach(({ spec: rule, derived }, index) => {
      const where = `${file}: rules[${index}] (${rule.id})`;
      const previous = seen.get(rule.id);
      if (previous) throw new RuleLoadError(`${where}.id: duplicate of a rule in ${previous}`);
      seen.set(rule.id, file);
      rules.push(compileRule(rule, derived, where));
    });
  }
  // A secret example its own rule cannot catch fails the boot too, for rules from any other folder
  // than the shipped one: `npm run build` (writeDerivedRules.ts) and the test suite run the full check
  // on the shipped rules, and running this one compiles every pattern before the first request, work
  // that warmRegexes.ts otherwise does in the background.
  if (resolve(dir) !== SHIPPED_RULES_DIR) {
    const failures = ownPatternFailures(rules);
    if (failures.length > 0) throw new RuleLoadError(failures.join('\n'));
  }
  return rules;
}

/**
 * `extra` (the `neverRead` setting, which a workspace may set) only adds to the list: the file's
 * exceptions do not apply to it, so it can never make a file readable.
 */
export function loadNeverRead(
  file: string,
  fs: RuleFs = realRuleFs,
  extra: readonly string[] = [],
): (relativePath: string) => boolean {
  const spec: NeverReadSpec = parseJsonFile(file, neverReadFileSchema, fs);
  const blocked = globMatcher(spec.patterns);
  const allowed = spec.exceptions.length > 0 ? globMatcher(spec.exceptions) : () => false;
  const alsoBlocked = extra.length > 0 ? globMatcher([...extra]) : () => false;
  return (relativePath) => {
    // Judge every path segment's tail too, so `a/.aws/credentials` and
    // `keys/id_rsa` match whatever prefix the workspace adds.
    const path = relativePath.replaceAll('\\', '/').replace(/^\.\//, '');
    return (blocked(path) && !allowed(path)) || alsoBlocked(path);
  };
}
