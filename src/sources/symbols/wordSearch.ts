// The fallback for languages without a grammar here (C, Ruby, PHP, Kotlin,
// shell …): a bounded whole-word search for the identifiers the index did not
// find, over the listed files of those languages, read through the guard like
// everything else. It reports where a name occurs, not what it is.

import type { ContextItem } from '../../shared/types.ts';
import type { FileGuard, Zone } from '../workspace/guard.ts';
import { admit } from './admit.ts';
import { isOtherCode } from './languages.ts';

export interface WordSearchLimits {
  files: number;
  bytes: number;
  hitsPerTerm: number;
}

export const defaultWordSearchLimits: WordSearchLimits = { files: 2_000, bytes: 8 * 1024 * 1024, hitsPerTerm: 6 };

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function wordSearch(
  names: readonly string[],
  listing: readonly string[],
  read: { guard: FileGuard; zone: Zone; root: string },
  limits: WordSearchLimits = defaultWordSearchLimits,
): { items: ContextItem[]; incomplete: boolean } {
  const wanted = names.filter((name) => /^[A-Za-z_$][\w$]*$/.test(name));
  if (wanted.length === 0) return { items: [], incomplete: false };
  const patterns = wanted.map((name) => ({ name, re: new RegExp(`(^|[^\\w$])${escapeRegExp(name)}(?![\\w$])`) }));
  const hits = new Map<string, string[]>(wanted.map((name) => [name, []]));
  let files = 0;
  let bytes = 0;
  let incomplete = false;
  for (const rel of listing) {
    if (!isOtherCode(rel)) continue;
    if (files >= limits.files || bytes >= limits.bytes) {
      incomplete = true;
      break;
    }
    const got = admit(read.guard, read.zone, read.root, rel);
    if (!('text' in got)) continue;
    files++;
    bytes += got.text.length;
    // One test per file before looking at lines: most files name none of the terms.
    const present = patterns.filter((p) => got.text.includes(p.name));
    if (present.length === 0) continue;
    const lines = got.text.split('\n');
    for (const { name, re } of present) {
      const list = hits.get(name) ?? [];
      for (let i = 0; i < lines.length && list.length < limits.hitsPerTerm; i++) {
        const line = lines[i] ?? '';
        if (re.test(line)) list.push(`${rel}:${i + 1}: ${line.trim().slice(0, 160)}`);
      }
    }
    if ([...hits.values()].every((list) => list.length >= limits.hitsPerTerm)) break;
  }
  const items: ContextItem[] = [];
  for (const [name, list] of hits) {
    if (list.length === 0) continue;
    items.push({
      key: `symbols.search.${name}`,
      source: 'symbols',
      title: `where ${name} occurs (word search; no parser for these files)`,
      text: list.join('\n'),
      priority: 55,
      kind: 'text',
      why: `${name} is named in the question; no parser for the files it is in`,
    });
  }
  return { items, incomplete };
}
