// What the question names: identifiers (`parseInvoice`, `OrderService.create`,
// `max_retries`), file names and paths (`billing/rates.py`) in the latest user
// message. The budget ranks and trims by them; the sources have their own
// reading of the message (stage folders do not share code), this one only has
// to say which lines and items mention a term.
//
// Plain words are not terms: "the", "Python" or "Fix" would match everything.
// A word counts when it looks like code: camelCase, PascalCase with an inner
// capital, snake_case, dotted (`a.b`), or written in backticks.

import { parseWindow } from '../shared/parseWindow.ts';
import type { ChatMessage } from '../shared/types.ts';

/** More than this and the question is a paste, not a question: the first ones are kept. */
export const MAX_TERMS = 40;
const MIN_LENGTH = 3;

export interface QuestionTerms {
  /** Identifiers, matched as whole words. */
  identifiers: string[];
  /** Paths and file names, matched as substrings. */
  paths: string[];
}

export const NO_TERMS: QuestionTerms = { identifiers: [], paths: [] };

const IDENTIFIER = /[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*/g;
/** Extensions that make `name.ext` a file name rather than `object.member`. */
const FILE_NAME = new RegExp(
  `^[\\w-][\\w.-]*\\.(?:${[
    'ts|tsx|mts|cts|js|jsx|mjs|cjs|py|pyi|go|rs|java|kt|kts|scala|rb|php|cs|fs|c|h|cc|cpp|hpp|m|swift|dart',
    'lua|ex|exs|erl|hs|ml|clj|vue|svelte|json|jsonc|toml|yaml|yml|xml|ini|cfg|conf|md|mdx|rst|txt|csv|sql',
    'sh|bash|zsh|ps1|gradle|lock|mod|sum|html|css|scss|less|proto|graphql|tf|mk',
  ].join('|')})$`,
);
const PATH = /^[\w@.-]*[\w-]\/[\w@./-]*[\w-]$/;
/** Longer tokens are pastes (a hash, a minified line), not names; skipping them keeps the scan linear. */
const MAX_TOKEN = 200;

function looksLikeCode(word: string): boolean {
  return (
    /[a-z][A-Z]/.test(word) || // camelCase
    /^[A-Z][a-z0-9]+[A-Z]/.test(word) || // PascalCase with an inner capital
    /[A-Za-z0-9]_[A-Za-z0-9]/.test(word) // snake_case, SCREAMING_CASE
  );
}

export function latestUserText(messages: readonly ChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i] as ChatMessage;
    if (message.role !== 'user') continue;
    if (typeof message.content === 'string') return message.content;
    if (!Array.isArray(message.content)) return '';
    return message.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
  }
  return '';
}

export function questionTerms(text: string): QuestionTerms {
  const bounded = parseWindow(text);
  const identifiers = new Set<string>();
  const paths = new Set<string>();
  const addIdentifier = (word: string, force: boolean) => {
    const parts = word.split('.');
    if (parts.length > 1 && parts.every((part) => part.length > 0)) {
      // `OrderService.create`: the whole, and each part that looks like code on its own.
      if (force || parts.some(looksLikeCode)) identifiers.add(word);
      for (const part of parts) if (part.length >= MIN_LENGTH && (looksLikeCode(part) || force)) identifiers.add(part);
      return;
    }
    if (word.length >= MIN_LENGTH && (force || looksLikeCode(word))) identifiers.add(word);
  };

  for (const match of bounded.matchAll(/`([^`\n]{1,120})`/g)) {
    const inner = (match[1] ?? '').trim().replace(/\(\)$/, '');
    for (const word of inner.match(IDENTIFIER) ?? []) addIdentifier(word, true);
  }
  // Tokens split at whitespace and quotes first: every pattern below then runs on a short string.
  for (const raw of bounded.split(/[\s"'`()<>[\]{},;|=!?*]+/)) {
    if (raw.length < MIN_LENGTH || raw.length > MAX_TOKEN || raw.includes('://')) continue;
    const token = raw
      .replace(/^[@]/, '')
      .replace(/[.:]+$/, '')
      .replace(/(?::\d+)+$/, '');
    if (PATH.test(token) || FILE_NAME.test(token)) {
      const clean = token.replace(/^\.\//, '');
      paths.add(clean);
      const base = clean.split('/').at(-1) ?? '';
      if (base.includes('.') && base.length >= MIN_LENGTH) paths.add(base);
    }
    for (const word of token.match(IDENTIFIER) ?? []) addIdentifier(word, false);
  }
  // A file name is not also an identifier (`rates.py` is not `rates` . `py`).
  for (const path of paths) identifiers.delete(path);
  return {
    identifiers: [...identifiers].slice(0, MAX_TERMS),
    paths: [...paths].slice(0, MAX_TERMS),
  };
}

export function hasTerms(terms: QuestionTerms): boolean {
  return terms.identifiers.length > 0 || terms.paths.length > 0;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** One test for every term: a whole-word identifier or a path substring. */
export function termMatcher(terms: QuestionTerms): (text: string) => boolean {
  if (!hasTerms(terms)) return () => false;
  const alternatives = [
    ...terms.identifiers.map((id) => `(?<![\\w$])${escapeRegExp(id)}(?![\\w$])`),
    ...terms.paths.map(escapeRegExp),
  ];
  const pattern = new RegExp(alternatives.join('|'));
  return (text) => pattern.test(text);
}
