// The one redactor every path uses: our rules (rules/redaction/*.json) plus
// secretlint's recommended preset as a second guard, the never-read list,
// a result cache by content hash, and a scan deadline.

import { fileURLToPath } from 'node:url';
import { contentHash } from '../shared/contentHash.ts';
import { type CpuPool, CpuTaskFailed, sharedCpuPool, taskModule } from '../shared/cpuPool.ts';
import type { KeptValue, RedactionFinding, Redactor, RedactResult } from '../shared/types.ts';
import { applyMasks, combineFindings, mergeFindings } from './applyMasks.ts';
import { warmClassifier } from './classifyValue.ts';
import { readDerivedRules } from './derivedRules.ts';
import {
  emptyMatchFailures,
  loadNeverRead,
  loadRedactionRules,
  type RuleFs,
  RuleLoadError,
  realRuleFs,
} from './loadRules.ts';
import { pieces, WHOLE_SCAN_MAX } from './pieces.ts';
import { ResultCache } from './resultCache.ts';
import { exampleFailures, keepAloneFailures } from './ruleExamples.ts';
import { createScanner, type Optimisation } from './scanner.ts';
import { type Deadline, RedactionTimeoutError } from './scanRules.ts';
import { warmRegexes } from './warmRegexes.ts';
import { extendToWholeTokens } from './wholeToken.ts';

export interface RedactorOptions {
  /** Directory of redaction rule files; default `rules/redaction/` of this package. */
  rulesDir?: string | undefined;
  /** The never-read list; default `rules/never-read.json` of this package. */
  neverReadFile?: string | undefined;
  /** More never-read globs (the `neverRead` setting); they only add to the list. */
  extraNeverRead?: readonly string[] | undefined;
  /** A scan that takes longer rejects with RedactionTimeoutError (the caller drops the item). Default 2000. */
  timeoutMs?: number | undefined;
  /** Run secretlint's preset as a second guard. Default true; false only for measurements. */
  secretlint?: boolean | undefined;
  /** Upper bound of cached text, in characters. Default 32 Mi. */
  cacheMaxChars?: number | undefined;
  /**
   * Run every rule on the empty string and on its own examples, and throw
   * RuleLoadError (one line per failure) if a pattern matches the empty
   * string or an example is wrong. Default false: the tests run them; at
   * start-up patterns are only parsed and the examples shape-checked
   * (loadRules.ts, ruleExamples.ts, README).
   */
  checkExamples?: boolean | undefined;
  /**
   * Compile every rule's regexes in the background after creation, one per
   * turn of the event loop (warmRegexes.ts), so that no request pays for a
   * first use. Default false (tests and one-shot commands); the server sets it.
   */
  warm?: boolean | undefined;
  /**
   * Added to a pooled scan's limit for the worker building its redactor (POOL_BUILD_ALLOWANCE_MS, the
   * default). For tests of a worker that never answers, which would otherwise wait it out.
   */
  poolBuildAllowanceMs?: number | undefined;
  /** Scanner optimisations to turn off: for bench/redact's ablation only (the masks stay the same). */
  without?: readonly Optimisation[] | undefined;
  /**
   * Where texts longer than POOL_ABOVE_CHARS are scanned: the process's CPU pool by default, so a long
   * scan never holds the event loop; `false` scans every text inline (the pool's own workers, and a
   * redactor given its own `deps`, which cannot be sent to a worker).
   */
  pool?: CpuPool | false | undefined;
  deps?:
    | {
        /** Milliseconds clock used for the deadline. */
        now?: (() => number) | undefined;
        fs?: RuleFs | undefined;
      }
    | undefined;
}

export const DEFAULT_RULES_DIR = fileURLToPath(new URL('../../rules/redaction/', import.meta.url));
export const DEFAULT_NEVER_READ_FILE = fileURLToPath(new URL('../../rules/never-read.json', import.meta.url));
export const DEFAULT_TIMEOUT_MS = 2000;
/**
 * Longer texts are scanned in the CPU pool: a scan of 32K characters takes a few ms (up to ~15 on random
 * base64 under load), a round trip to the worker about as much, so shorter ones stay inline.
 */
export const POOL_ABOVE_CHARS = 32 * 1024;
/** Texts up to this long are hashed inline even when their scan would go to the pool. */
const HASH_INLINE_CHARS = 1024 * 1024;
/** The pool ends a scan's worker this long after the scan's own deadline: a regex that never returns. */
const POOL_MARGIN_MS = 2000;
/**
 * Added to a pooled scan's limit: a worker builds its redactor (compiles every rule) on its first scan,
 * which takes seconds on a loaded machine, and that must not read as a scan too large to finish. The
 * scan's own deadline (`timeoutMs`) runs inside the worker and starts after the build, so a slow scan is
 * still refused on time; this only delays noticing a worker that never answers.
 */
const POOL_BUILD_ALLOWANCE_MS = 20_000;

/** What a worker needs to build the same redactor: plain data, the same for every text. */
export type PooledRedactorOptions = Pick<
  RedactorOptions,
  'rulesDir' | 'neverReadFile' | 'extraNeverRead' | 'timeoutMs' | 'secretlint' | 'without'
>;

export { RuleLoadError } from './loadRules.ts';
export { RedactionTimeoutError } from './scanRules.ts';

/** Async so that callers need not change if loading ever does real async I/O; rules are read at boot. */
/** A redactor; `warmedUp` settles when its regexes are compiled (at once when not warming). */
export type WarmRedactor = Redactor & {
  warmedUp: Promise<void>;
  /** One scan of `text`, inline, without the cache: what the pool's workers run (scanTask.ts). */
  scanInline(text: string, path: string | undefined): Promise<RedactResult>;
};

/** secretlint and its preset load on the first text that holds a gate anchor (or when warming). */
let secretlintGuard: Promise<typeof import('./secretlintGuard.ts')> | undefined;
function loadSecretlint() {
  secretlintGuard ??= import('./secretlintGuard.ts');
  return secretlintGuard;
}

export async function createRedactor(options: RedactorOptions = {}): Promise<WarmRedactor> {
  const fs = options.deps?.fs ?? realRuleFs;
  const now = options.deps?.now ?? (() => performance.now());
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const useSecretlint = options.secretlint ?? true;
  const rules = loadRedactionRules(options.rulesDir ?? DEFAULT_RULES_DIR, fs, readDerivedRules(fs));
  const isNeverRead = loadNeverRead(options.neverReadFile ?? DEFAULT_NEVER_READ_FILE, fs, options.extraNeverRead);
  const scanner = createScanner(rules, options.without);
  if (options.checkExamples) {
    const noDeadline: Deadline = { check() {} };
    const failures = [
      ...emptyMatchFailures(rules),
      ...exampleFailures(rules, (text, path) => scanner.scan(text, path, noDeadline).findings),
      ...keepAloneFailures(rules, (rule) => {
        const alone = createScanner([rule], options.without);
        return (text, path) => alone.scan(text, path, noDeadline).findings;
      }),
    ];
    if (failures.length > 0) throw new RuleLoadError(failures.join('\n'));
  }
  const placeholders = new Map(rules.map((rule) => [rule.id, rule.placeholder]));
  const placeholderFor = (ruleId: string) => placeholders.get(ruleId) ?? `[REDACTED:${ruleId}]`;
  const cache = new ResultCache(options.cacheMaxChars);
  // Format-specific rules name a mask first, then keyword-style ones, then secretlint's.
  const generic = new Set(rules.filter((rule) => rule.generic).map((rule) => rule.id));
  const rank = (ruleId: string) => (placeholders.has(ruleId) ? (generic.has(ruleId) ? 1 : 0) : 2);

  /** Merged findings of one scan; `budgetMs` of scan time before RedactionTimeoutError. */
  async function scanFindings(text: string, path: string | undefined, budgetMs: number) {
    let startedAt = now();
    const deadline: Deadline = {
      check() {
        if (now() - startedAt > budgetMs) throw new RedactionTimeoutError(timeoutMs);
      },
    };
    // The hit lists are fresh arrays per scan, so `anchorStarts` stays valid across the awaits below.
    const { findings: ours, kept, anchorStarts } = scanner.scan(text, path, deadline);
    deadline.check();
    // Without any gate anchor secretlint cannot report; with one, secretlintFindings finds the exact lines first.
    let guard: RedactionFinding[] = [];
    if (useSecretlint && anchorStarts !== undefined) {
      // Importing secretlint (once, on the first such text) is not scan time: the clock stops meanwhile.
      const importStarted = now();
      const secretlint = await loadSecretlint();
      startedAt += now() - importStarted;
      guard = await secretlint.secretlintFindings(text, path, ours, anchorStarts);
    }
    deadline.check();
    return { findings: mergeFindings(combineFindings(ours, guard), rank), kept };
  }

  async function scan(text: string, path: string | undefined): Promise<RedactResult> {
    if (text.length <= WHOLE_SCAN_MAX) {
      const scanned = await scanFindings(text, path, timeoutMs);
      const findings = extendToWholeTokens(text, scanned.findings);
      return { text: applyMasks(text, findings, placeholderFor), findings, kept: scanned.kept };
    }
    // Large texts in overlapping pieces (pieces.ts): the keyword and line-window work stays local to a
    // piece. Long texts get here in a pool worker (POOL_ABOVE_CHARS), so nothing yields in between.
    const all: RedactionFinding[] = [];
    const kept: KeptValue[] = [];
    const keptAt = new Set<string>();
    let spent = 0;
    for (const piece of pieces(text)) {
      const startedAt = now();
      const found = await scanFindings(text.slice(piece.start, piece.end), path, timeoutMs - spent);
      spent += now() - startedAt;
      for (const f of found.findings) all.push({ ...f, start: f.start + piece.start, end: f.end + piece.start });
      // Pieces overlap: a candidate in the overlap is reported once.
      for (const k of found.kept) {
        const start = k.start + piece.start;
        const at = `${k.ruleId}@${start}`;
        if (keptAt.has(at)) continue;
        keptAt.add(at);
        kept.push({ ...k, start, end: k.end + piece.start });
      }
    }
    // Extended on the whole text: a token cut at a piece's edge continues in the next piece.
    const findings = extendToWholeTokens(text, mergeFindings(all, rank));
    return { text: applyMasks(text, findings, placeholderFor), findings, kept };
  }

  const warmedUp = options.warm
    ? Promise.all([
        useSecretlint ? loadSecretlint() : undefined,
        // Only the form each rule searches with: every compiled form keeps its native code (one-byte and
        // two-byte) for the server's lifetime.
        warmRegexes(scanner.searchRegexes).then(warmClassifier),
      ]).then(() => undefined)
    : Promise.resolve();

  const pool = options.pool === false || options.deps ? undefined : (options.pool ?? sharedCpuPool());
  const pooled: PooledRedactorOptions = {
    rulesDir: options.rulesDir,
    neverReadFile: options.neverReadFile,
    extraNeverRead: options.extraNeverRead,
    timeoutMs,
    secretlint: useSecretlint,
    without: options.without,
  };
  const scanTask = taskModule('scanTask', import.meta.url);
  const buildAllowanceMs = options.poolBuildAllowanceMs ?? POOL_BUILD_ALLOWANCE_MS;

  /** A task in the pool. A worker that fails or hangs fails it: the caller drops the text, never forwards it unscanned. */
  async function inPool<T>(name: 'scanText' | 'textHash', args: unknown[], limitMs: number): Promise<T> {
    try {
      return await (pool as CpuPool).run<T>({ module: scanTask, name, args }, limitMs);
    } catch (error) {
      if (error instanceof CpuTaskFailed && (error.timedOut || error.taskError === 'RedactionTimeoutError'))
        throw new RedactionTimeoutError(timeoutMs);
      throw error;
    }
  }

  /**
   * The text's content hash, for a caller that did not pass the one its item carries. Inline up to
   * HASH_INLINE_CHARS (sha256 of 1 MB takes a few ms): an agent's long system prompt, the same on every
   * turn, is then found in the cache without starting a worker.
   */
  function hashOf(text: string): string | Promise<string> {
    if (!pool || text.length <= HASH_INLINE_CHARS) return contentHash(text);
    return inPool<string>('textHash', [text], POOL_MARGIN_MS);
  }

  function scanAnywhere(text: string, path: string | undefined): Promise<RedactResult> {
    if (!pool || text.length <= POOL_ABOVE_CHARS) return scan(text, path);
    return inPool<RedactResult>('scanText', [pooled, text, path], timeoutMs + POOL_MARGIN_MS + buildAllowanceMs);
  }

  return {
    warmedUp,
    scanInline: scan,
    async redact(text, redactOptions) {
      const path = redactOptions?.path;
      const key = cache.key(redactOptions?.hash ?? (await hashOf(text)), path);
      const cached = cache.get(key);
      const result = cached ?? (await scanAnywhere(text, path));
      if (!cached) cache.set(key, result, text.length + result.text.length);
      // Copies, so a caller that edits its findings cannot change the cache.
      return {
        text: result.text,
        findings: result.findings.map((f) => ({ ...f })),
        kept: result.kept?.map((k) => ({ ...k })),
      };
    },
    isNeverRead,
  };
}
