// Compact listings (`path:line: text`, one line each) for questions whose
// answer is a list: every environment read, every marked line, every line the
// words found, every line relating to a name. One grouping by file and one
// "one line per file first" walk for all of them.

import path from 'node:path';
import { DOC_PATH, isTestPath } from './regions.ts';
import type { GrepHit } from './search.ts';

/**
 * The hits `admit` keeps, by file (paths `/`-separated), each line once, in the order found.
 */
export function hitsByFile(
  hits: readonly GrepHit[],
  admit: (rel: string, hit: GrepHit) => boolean,
): Map<string, GrepHit[]> {
  const byFile = new Map<string, GrepHit[]>();
  for (const hit of hits) {
    const rel = hit.rel.split(path.sep).join('/');
    if (!admit(rel, hit)) continue;
    const list = byFile.get(rel) ?? [];
    if (!list.some((known) => known.line === hit.line)) list.push(hit);
    byFile.set(rel, list);
  }
  return byFile;
}

/** 1 for tests and docs, 0 for code: a listing shows the code's lines first. */
export const asideRank = (rel: string) => Number(isTestPath(rel) || DOC_PATH.test(rel));

/**
 * Compact `path:line: text` lines, the files' first hits in `files`' order, then their second, and so on for
 * `rounds`, while they fit in `maxChars`; a line that does not fit is left out and `cut` says so. With `repeated`,
 * a text already listed is said once in full and its other places by path and line with `repeated` as their text
 * (the same mark copied across a dozen files leaves room for the distinct ones).
 */
export function oneLinePerFileFirst(
  files: readonly string[],
  hitOf: (rel: string, round: number) => GrepHit | undefined,
  rounds: number,
  maxChars: number,
  repeated?: string,
): { lines: string[]; cut: boolean } {
  const lines: string[] = [];
  const listed = new Set<string>();
  let chars = 0;
  let cut = false;
  for (let round = 0; round < rounds; round++) {
    for (const rel of files) {
      const hit = hitOf(rel, round);
      if (!hit) continue;
      const text = hit.text.trim().slice(0, 200);
      const line = `${rel}:${hit.line}: ${repeated !== undefined && listed.has(text) ? repeated : text}`;
      if (chars + line.length + 1 > maxChars) {
        cut = true;
        continue;
      }
      lines.push(line);
      listed.add(text);
      chars += line.length + 1;
    }
  }
  return { lines, cut };
}
