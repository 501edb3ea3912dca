// Imports written over several lines, found by one rule in every language:
// an import opens on a line the import shapes know (`from x import (`,
// `import (`, `use a::{`, `(:require`, `alias A.{`) and lasts while its
// brackets are open. A line inside (`[app.json :as j]`, `"example.com/json"`,
// `    dumps,`) is part of that import, though no one-line shape spells it. Also
// the file names a question says, as the module names imports use
// (`format.h` → `format`).

import path from 'node:path';
import type { SourceDeps } from '../deps.ts';
import { moduleStem } from '../symbols/extract.ts';
import { FileGuard, workspaceZone } from '../workspace/guard.ts';
import { IMPORT_LINE } from './regions.ts';
import type { GrepHit } from './search.ts';

/** Lines an import form is followed for, at most (a long `ns` form; not a file of imports). */
const MAX_FORM_LINES = 120;
/** Files read to see whether a hit is inside an import, at most, and the hits' lines looked at (the head). */
const MAX_FILES = 60;
const MAX_LINE = 400;
const MAX_FILE_BYTES = 512 * 1024;

/** A Lisp form that brings namespaces in: `(:require`, `(require`, `(:import`, `(:use`. */
const LISP_IMPORT = /^\s*\(\s*:?(?:require|import|use)\b/;

/** Bracket depth a line adds, its strings left out. */
function depthOf(line: string): number {
  let depth = 0;
  for (const ch of line.replace(/"(?:[^"\\]|\\.)*"/g, '""')) {
    if (ch === '(' || ch === '[' || ch === '{') depth++;
    else if (ch === ')' || ch === ']' || ch === '}') depth--;
  }
  return depth;
}

/** The 1-based numbers of the lines that continue an import opened on an earlier line. */
export function importContinuations(text: string): Set<number> {
  const lines = text.split('\n', MAX_LINE + MAX_FORM_LINES);
  const out = new Set<number>();
  for (let i = 0; i < lines.length && i < MAX_LINE; i++) {
    const line = lines[i] ?? '';
    if (!IMPORT_LINE.test(line) && !LISP_IMPORT.test(line)) continue;
    let depth = depthOf(line);
    for (let j = i + 1; depth > 0 && j < lines.length && j <= i + MAX_FORM_LINES; j++) {
      out.add(j + 1);
      depth += depthOf(lines[j] ?? '');
      i = j;
    }
  }
  return out;
}

/**
 * The hits (of the head of their file) that lie inside an import form and name one of the modules, by their
 * text: rank 2 when the name is the last part of a longer path (`app.json`, `x/json`), the project's own module,
 * else 1. Reads each file once, through the guard, bounded.
 */
export function continuedImports(
  root: string,
  hits: readonly GrepHit[],
  names: readonly string[],
  deps: Pick<SourceDeps, 'isNeverRead' | 'allowedRoots'>,
): Map<string, number> {
  const simple = names.filter((name) => /^[A-Za-z_$][\w$-]*$/.test(name));
  const out = new Map<string, number>();
  if (simple.length === 0) return out;
  const alt = simple.map((name) => name.replace(/[$-]/g, '\\$&')).join('|');
  const token = new RegExp(`(?<![\\w$-])(?:${alt})(?![\\w$-])`, 'i');
  const own = new RegExp(`[\\w$]\\s*(?:\\.|/|::|\\\\)(?:${alt})(?![\\w$-])`, 'i');
  const byFile = new Map<string, GrepHit[]>();
  for (const hit of hits) {
    if (hit.line > MAX_LINE || IMPORT_LINE.test(hit.text) || !token.test(hit.text)) continue;
    const rel = hit.rel.split(path.sep).join('/');
    const list = byFile.get(rel) ?? [];
    if (list.length === 0 && byFile.size >= MAX_FILES) continue;
    list.push(hit);
    byFile.set(rel, list);
  }
  const guard = new FileGuard(deps.isNeverRead);
  const zone = workspaceZone(root, deps.allowedRoots);
  for (const [rel, list] of byFile) {
    const got = guard.read(path.join(root, rel), zone, [rel], { maxBytes: MAX_FILE_BYTES, skipLarger: true });
    if (got.text === undefined) continue;
    const inside = importContinuations(got.text);
    for (const hit of list) if (inside.has(hit.line)) out.set(hit.text, own.test(hit.text) ? 2 : 1);
  }
  return out;
}

/** "the format module", "the router.zig file": the word before a module noun, whatever else it means in prose. */
const MODULE_NOUN =
  /\b(?:the|a|our|this|that)\s+[`'"]?([A-Za-z_][\w-]{1,60})[`'"]?\s+(?:module|header|namespace|package|library|crate)s?\b/gi;
/** Words that stand before a module noun without naming one. */
const NOT_A_MODULE = new Set(['same', 'whole', 'other', 'next', 'previous', 'first', 'last', 'entire', 'new', 'old']);

/**
 * The module names an imports question gives: the stems of the files it names (`format.h`, `src/router.js` →
 * `format`, `router`) and a word before a module noun ("the format module": `format` is also a build word, so
 * the question's analysis keeps it as prose).
 */
export function askedModules(text: string, paths: readonly string[]): string[] {
  const out = new Set<string>();
  for (const match of text.matchAll(MODULE_NOUN)) {
    const word = match[1] ?? '';
    if (!NOT_A_MODULE.has(word.toLowerCase()) && word.length >= 3) out.add(word);
    if (out.size >= 3) break;
  }
  for (const named of paths) {
    const base = path.posix.basename(named);
    if (!base.includes('.')) continue;
    const stem = moduleStem(base);
    if (stem && stem.length >= 3) out.add(stem);
  }
  return [...out].slice(0, 3);
}
