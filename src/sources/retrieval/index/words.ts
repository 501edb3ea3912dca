// The index's words, and how a `git grep` request becomes an index query and
// back into the same hits.
//
// Words are what `git grep -w` calls words: runs of ASCII letters, digits and
// `_`. The index stores no text: each word is lowercased and hashed with a
// per-index seed (53 bits, cyrb53), so the file on disk holds neither code nor
// the secrets a tracked file may carry, and a lowercased hash match is a
// superset of what grep would match (case and collisions only add candidates).
// The candidates' files are then re-read through the guard and their lines
// matched with grep's own rules (fixed strings; `-w` boundaries; `-i`), so the
// hits are exactly the lines grep would give for the text as it is now.

/** Runs of what git grep counts as word characters. */
const WORD = /[A-Za-z0-9_]+/g;
const WORD_CHAR = /[A-Za-z0-9_]/;

export function wordsOf(text: string): string[] {
  return text.match(WORD) ?? [];
}

/** cyrb53: a fast 53-bit string hash, seeded; base 36 so FTS5 sees one plain token. */
export function hashWord(word: string, seed: number): string {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < word.length; i++) {
    // Lowercase ASCII on the fly: words are ASCII by construction.
    let code = word.charCodeAt(i);
    if (code >= 65 && code <= 90) code += 32;
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}

/** A chunk's words as the FTS5 column holds them: hashes, in order (phrases need positions). */
export function hashedText(text: string, seed: number): string {
  const out: string[] = [];
  for (const word of wordsOf(text)) out.push(hashWord(word, seed));
  return out.join(' ');
}

/**
 * The FTS5 query for a set of fixed-string patterns: any of them, each as the
 * phrase of its words. Undefined when a pattern has no word (punctuation only):
 * the index cannot narrow that search, and the caller asks git grep.
 */
export function matchExpression(patterns: readonly string[], seed: number): string | undefined {
  const phrases: string[] = [];
  for (const pattern of patterns) {
    const words = wordsOf(pattern);
    if (words.length === 0) return undefined;
    phrases.push(`"${words.map((word) => hashWord(word, seed)).join(' ')}"`);
  }
  return phrases.length === 0 ? undefined : phrases.join(' OR ');
}

export type LineMatcher = (line: string) => boolean;

/** grep -F's test for one line: any pattern occurs (with `-w`, bounded by non-word characters; `-i`, any case). */
export function lineMatcher(patterns: readonly string[], words: boolean, ignoreCase: boolean): LineMatcher {
  const wanted = ignoreCase ? patterns.map((pattern) => pattern.toLowerCase()) : [...patterns];
  return (raw) => {
    const line = ignoreCase ? raw.toLowerCase() : raw;
    for (const pattern of wanted) {
      if (pattern === '') continue;
      let at = line.indexOf(pattern);
      while (at !== -1) {
        if (!words) return true;
        const before = at === 0 ? '' : line.charAt(at - 1);
        const after = line.charAt(at + pattern.length);
        // Like git grep -w: a match that is part of a longer word is skipped and the search goes on.
        if ((before === '' || !WORD_CHAR.test(before)) && (after === '' || !WORD_CHAR.test(after))) return true;
        at = line.indexOf(pattern, at + 1);
      }
    }
    return false;
  };
}
