// A seeded random source for the generated repositories: every name, value and
// planted secret comes from it, so a seed reproduces a run exactly and a new
// seed gives repositories nothing could have been tuned to.

export interface Random {
  /** An integer in [min, max]. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  /** A pronounceable lower-case word, unique within this source. */
  word(): string;
  /** `word` with its first letter upper-cased. */
  title(): string;
  /** A camelCase identifier of two words, unique within this source. */
  ident(): string;
  /** Characters drawn from `alphabet`. */
  chars(length: number, alphabet: string): string;
}

const CONSONANTS = 'bdfgklmnprstvz';
const VOWELS = 'aeiou';
export const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const UPPER_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** mulberry32: small, fast and good enough to pick names. */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const used = new Set<string>();
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => items[int(0, items.length - 1)] as T;
  const syllable = () => pick([...CONSONANTS]) + pick([...VOWELS]);
  const fresh = (make: () => string) => {
    for (;;) {
      const candidate = make();
      if (!used.has(candidate)) {
        used.add(candidate);
        return candidate;
      }
    }
  };
  const rawWord = () => syllable() + syllable() + (next() < 0.5 ? syllable() : '') + pick([...CONSONANTS]);
  const word = () => fresh(rawWord);
  const cap = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);
  return {
    int,
    pick,
    word,
    title: () => cap(word()),
    ident: () => fresh(() => rawWord() + cap(rawWord())),
    chars: (length, alphabet) => Array.from({ length }, () => alphabet.charAt(int(0, alphabet.length - 1))).join(''),
  };
}
