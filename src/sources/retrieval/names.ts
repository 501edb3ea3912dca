// Names the question means but does not spell as the code does: a name in
// another case convention or with a typo (`parseHeaderLinks`, `parse_heder_links`
// for `parse_header_links`), and a name said in prose ("the header links
// parsing"). Both are resolved the same way: a case-insensitive search for the
// pieces (search.ts), then the identifiers on the hit lines are compared with
// what the question said. Pure: the hit lines come in.

import { editDistance } from '../../shared/editDistance.ts';
import type { GrepHit } from './search.ts';

/** `parse_header_links` / `parseHeaderLinks` / `HTTPServer` → `parse header links` / `http server`. */
export function nameParts(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[\s_$\-.:]+/)
    .filter(Boolean)
    .map((part) => part.toLowerCase());
}

/** The spelling-free form: lower-case, no separators. */
export const normalName = (name: string) => name.toLowerCase().replace(/[_$-]/g, '');

/** Stemming-lite: `parsing` → `pars`, `links` → `link`, `retries` → `retr`, `limiter` → `limit`. */
export function stem(word: string): string {
  const lower = word.toLowerCase();
  for (const suffix of ['ings', 'ing', 'ers', 'er', 'ies', 'es', 'ed', 's']) {
    if (lower.endsWith(suffix) && lower.length - suffix.length >= 3) return lower.slice(0, -suffix.length);
  }
  return lower;
}

/** A part of a name and a word of the question are the same word, give or take an ending. */
export function sameWord(part: string, word: string): boolean {
  const a = stem(part);
  const b = stem(word);
  return a === b || (a.length >= 4 && b.startsWith(a)) || (b.length >= 4 && a.startsWith(b));
}

/** Edits allowed between a name as written and as defined: one for short names, two for long ones. */
const allowedEdits = (name: string) => (normalName(name).length >= 8 ? 2 : 1);

/**
 * Case-insensitive fixed strings that find a misspelled name's real spelling:
 * its adjacent parts joined both ways (`minus_first`, `minusfirst`: one of the
 * pairs survives a typo elsewhere or another case convention) and its two
 * longest parts, or for a one-part name its halves.
 */
export function spellingPatterns(name: string): string[] {
  const parts = nameParts(name);
  const patterns = new Set<string>();
  for (let i = 0; i + 1 < parts.length; i++) {
    const pair: [string, string] = [parts[i] as string, parts[i + 1] as string];
    if (pair[0].length + pair[1].length < 5) continue;
    patterns.add(pair.join('_'));
    patterns.add(pair.join(''));
  }
  // The longer parts on their own too: a typo inside a part spoils both pairs that hold it.
  for (const part of [...parts].sort((a, b) => b.length - a.length).slice(0, 2))
    if (part.length >= 4) patterns.add(part);
  // A typo inside a part spoils that part and both its pairs; what is before it (the parts ahead and the part's
  // first letter: `isb` for `isBolean`) or after it (its last letter and the parts behind) is still spelt right.
  for (let i = 1; i < parts.length; i++) {
    const ahead = parts.slice(0, i);
    const first = (parts[i] as string)[0] as string;
    for (const joined of [`${ahead.join('')}${first}`, `${ahead.join('_')}_${first}`])
      if (joined.replace(/_/g, '').length >= 3) patterns.add(joined);
  }
  for (let i = 0; i + 1 < parts.length; i++) {
    const behind = parts.slice(i + 1);
    const last = (parts[i] as string).slice(-1);
    for (const joined of [`${last}${behind.join('')}`, `${last}_${behind.join('_')}`])
      if (joined.replace(/_/g, '').length >= 4) patterns.add(joined);
  }
  const norm = normalName(name);
  // A one-part name has no pair that survives a typo inside it: its halves do (`formtter` → `form`, `tter`), the
  // typo being in one half at most. The part itself stays first: the name may be right and only not a whole word.
  if (parts.length === 1 && norm.length >= 6) {
    const half = Math.floor(norm.length / 2);
    patterns.add(norm.slice(0, half));
    patterns.add(norm.slice(half));
  }
  if (patterns.size > 0) return [...patterns].slice(0, 14);
  return [norm];
}

/** The forms a prose word takes as the first part of a name: `computes` → `compute`, `retries` → `retry`. */
function baseForms(word: string): string[] {
  const lower = word.toLowerCase();
  const stemmed = stem(lower);
  const forms = [lower, stemmed, `${stemmed}e`];
  if (lower.endsWith('ies')) forms.push(`${lower.slice(0, -3)}y`);
  return [...new Set(forms)];
}

/**
 * Case-insensitive fixed strings for a name said in prose: adjacent words
 * joined as code joins them (`header_link`, `headerlink`); the second word's
 * stem, since the pattern is matched anywhere in the line.
 */
export function prosePatterns(words: readonly string[]): string[] {
  const patterns = new Set<string>();
  // A short function word between two words is part of the name (`save_to_folder`, `isOfType`): joined whole.
  for (let i = 0; i + 2 < words.length; i++) {
    const [a, mid, b] = [words[i] as string, words[i + 1] as string, words[i + 2] as string];
    if (mid.length >= 3 || a.length < 3 || b.length < 3) continue;
    patterns.add(`${a}_${mid}_${stem(b)}`);
    patterns.add(`${a}${mid}${stem(b)}`);
  }
  for (let i = 0; i + 1 < words.length; i++) {
    const b = stem(words[i + 1] as string);
    if ((words[i] as string).length < 3 || b.length < 3) continue;
    for (const a of baseForms(words[i] as string)) {
      patterns.add(`${a}_${b}`);
      patterns.add(`${a}${b}`);
    }
  }
  return [...patterns].slice(0, 24);
}

const IDENTIFIER = /[A-Za-z_$][\w$]{2,80}/g;
/** Distinct identifiers looked at, at most (the hit lines are already bounded by the search). */
const MAX_CANDIDATES = 20_000;

function identifiersOf(hits: readonly GrepHit[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const hit of hits) {
    for (const match of hit.text.matchAll(IDENTIFIER)) {
      const known = counts.get(match[0]);
      if (known !== undefined) counts.set(match[0], known + 1);
      else if (counts.size < MAX_CANDIDATES) counts.set(match[0], 1);
    }
  }
  return counts;
}

export interface ResolvedName {
  name: string;
  /** What it was resolved from, for the item's `why`: the name as written, or the prose words matched. */
  from: string;
}

/** The identifiers nearest to names that were not found as written (case, separators, a typo or two). */
export function nearestNames(missing: readonly string[], hits: readonly GrepHit[], perName = 2): ResolvedName[] {
  if (missing.length === 0) return [];
  const candidates = identifiersOf(hits);
  const out: ResolvedName[] = [];
  for (const name of missing) {
    const target = normalName(name);
    const max = allowedEdits(name);
    const scored: { id: string; distance: number; count: number }[] = [];
    for (const [id, count] of candidates) {
      if (id === name) continue;
      const distance = editDistance(normalName(id), target, max);
      if (distance <= max) scored.push({ id, distance, count });
    }
    scored.sort((a, b) => a.distance - b.distance || b.count - a.count || a.id.localeCompare(b.id));
    for (const { id } of scored.slice(0, perName)) out.push({ name: id, from: `nearest to ${name}` });
  }
  return out;
}

/**
 * Function words that are also parts of names (`from_set_and`, `to_string`, `is_empty`, `get_or_insert`): a
 * name said in prose keeps them when they stand in a run of such words ("the from set and part"). They are weak
 * evidence: a name matching them counts after one matching as many of the question's other words.
 */
export const NAME_PART_WORDS = new Set(
  'from to and or is has get set new read run build test value with by for all not no of in on as into'.split(' '),
);

/**
 * Nouns a question uses about code in general ("the file", "which class") that are parts of names as well
 * (`class_to_file`, `read_lines`, `FunctionCall`): a name said in prose keeps them inside a run of its words.
 * Not the nouns of an intent ("version", "commit", "change"): beside a name they say what is asked about it.
 */
export const NOUN_PART_WORDS = new Set('file files line lines class function method code object objects'.split(' '));

/** Identifiers whose parts are two or more of the question's words ("header links" → `parse_header_links`). */
export function proseNames(
  words: readonly string[],
  hits: readonly GrepHit[],
  /** Every word of the question, stop words too: a part the question said ("get") is not extra. */
  said: ReadonlySet<string> = new Set(),
  max = 3,
): ResolvedName[] {
  if (words.length < 2) return [];
  const candidates = identifiersOf(hits);
  const scored: { id: string; matched: string[]; content: number; extra: number; parts: number; count: number }[] = [];
  for (const [id, count] of candidates) {
    const parts = nameParts(id);
    if (parts.length < 2) continue;
    const matched = words.filter((word) => parts.some((part) => sameWord(part, word)));
    const content = matched.filter((word) => !NAME_PART_WORDS.has(word)).length;
    // Two words, one of them a content word; or a name made of function words said whole ("from set and").
    if (matched.length < 2 || (content === 0 && matched.length < 3)) continue;
    const extra = parts.filter((part) => !said.has(part) && !words.some((word) => sameWord(part, word))).length;
    scored.push({ id, matched, content, extra, parts: parts.length, count });
  }
  // Most content words matched, then most words, fewest parts the question did not say, then the most parts it did say
  // (`getRetryTimingHeader` over `RetryTimingHeader` for "get retry timing header").
  scored.sort(
    (a, b) =>
      b.content - a.content ||
      b.matched.length - a.matched.length ||
      a.extra - b.extra ||
      b.parts - a.parts ||
      b.count - a.count ||
      a.id.localeCompare(b.id),
  );
  return scored.slice(0, max).map(({ id, matched }) => ({ name: id, from: `matched: ${matched.join(', ')}` }));
}
