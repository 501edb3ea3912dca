// What the latest message names that the symbol index can look up:
// identifiers (`parseInvoice`, `max_retries`, `OrderService.create`,
// `crate::rates::compute`) and file names or paths (`billing/rates.py`,
// `rates.py`). Plain words are not identifiers: only shapes a person would not
// write in prose (camelCase, snake_case, dotted, called with `()`) or code in
// backticks count, so "where is the store" looks nothing up.

import { parseWindow } from '../../shared/parseWindow.ts';
import { pathCandidates, splitFences } from '../mentions.ts';

export interface Terms {
  /** Identifiers, each with the names to try in order (qualified first, then its last parts). */
  identifiers: { term: string; tries: string[] }[];
  /** Path-looking tokens (resolved against the listing by the caller). */
  paths: string[];
}

const MAX_IDENTIFIERS = 24;
const MAX_PATHS = 24;

/** Extensions that make `name.ext` a file name rather than `object.member`. */
const FILE_EXTENSION =
  /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs|py|pyi|go|rs|java|kt|rb|php|cs|c|h|cc|cpp|hpp|md|json|ya?ml|toml|txt|lock|sh|sql|html|css|scss|xml|gradle|cfg|ini|env|log|mod|sum)$/i;

const IDENTIFIER = /[A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$][\w$]*)*/g;

/** Words that are code-shaped but say nothing (`e.g`, `i.e`, `this.x` keeps only `x`). */
const NOISE = new Set(['e.g', 'i.e', 'etc', 'vs', 'self', 'this', 'cls', 'super', 'crate', 'std']);

/** camelCase, PascalCase with a second capital, snake_case, SCREAMING_CASE, digits inside. */
function codeShaped(word: string): boolean {
  return /[a-z][A-Z]/.test(word) || /[A-Z]{2}[a-z]/.test(word) || /\w_\w/.test(word) || /^_/.test(word);
}

/** Names to look up for one term: `a.b.c` → `a.b.c`, `b.c`, `c`. */
function triesFor(term: string): string[] {
  const parts = term.split(/\.|::|#/).filter((part) => part !== '' && !NOISE.has(part));
  const tries: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const name = parts.slice(i).join('.');
    if (name.length >= 2 && !tries.includes(name)) tries.push(name);
  }
  return tries;
}

export function extractTerms(message: string): Terms {
  const text = parseWindow(message);
  const { prose, code } = splitFences(text);
  const paths = pathCandidates(text).slice(0, MAX_PATHS);
  const found = new Map<string, string[]>();
  const add = (term: string) => {
    if (found.size >= MAX_IDENTIFIERS || found.has(term) || NOISE.has(term)) return;
    const tries = triesFor(term);
    if (tries.length > 0) found.set(term, tries);
  };
  // Backticked spans first: whatever the shape, the user marked them as code.
  for (const match of prose.matchAll(/`([^`\n]{2,120})`/g)) {
    const span = match[1] ?? '';
    const whole = /^[A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$][\w$]*)*(?:\(\))?$/.exec(span.trim());
    if (whole && !FILE_EXTENSION.test(span.trim())) add(span.trim().replace(/\(\)$/, ''));
  }
  for (const source of [prose, code]) {
    for (const match of source.matchAll(IDENTIFIER)) {
      const word = match[0];
      if (word.length < 3 || word.length > 120) continue;
      if (FILE_EXTENSION.test(word)) continue;
      // Part of a path (`src/app.ts`): the path is looked up as one.
      const before = source[match.index - 1];
      const after = source[match.index + word.length];
      if (before === '/' || after === '/' || before === '\\') continue;
      const called = after === '(';
      const dotted = /\.|::|#/.test(word);
      if (called || dotted || codeShaped(word)) add(word);
    }
  }
  return { identifiers: [...found].map(([term, tries]) => ({ term, tries })), paths };
}
