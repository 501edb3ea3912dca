// What the question names, as the budget matches it: identifiers as whole
// words, paths and file names as substrings. The question itself is analysed
// once (shared/question.ts); this is only the budget's view of that analysis,
// used to rank items and to choose the lines of an item worth keeping.

import {
  analyseText,
  codeShaped,
  type Question,
  subjectIdentifiers,
  subjectPaths,
  surelyPath,
} from '../shared/question.ts';
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

/** The budget's view of an analysed question (a follow-up's subject included). */
export function termsOf(question: Question): QuestionTerms {
  const identifiers = new Set<string>();
  const paths = new Set<string>();
  for (const { term, quoted, proper } of subjectIdentifiers(question)) {
    // A capitalised prose word ("Python") is retrieval's guess, not a name the question wrote as code.
    if (proper) continue;
    const parts = term.split(/\.|::|#/).filter((part) => part.length > 0);
    if (parts.length > 1) {
      // `OrderService.create`: the whole, and each part that looks like code on its own.
      if (quoted || parts.some(codeShaped)) identifiers.add(term);
      for (const part of parts) if (part.length >= MIN_LENGTH && (quoted || codeShaped(part))) identifiers.add(part);
    } else if (term.length >= MIN_LENGTH) identifiers.add(term);
  }
  for (const { token } of subjectPaths(question)) {
    if (!surelyPath(token)) continue;
    const clean = token.replace(/^\.\//, '');
    paths.add(clean);
    const base = clean.split('/').at(-1) ?? '';
    if (base.includes('.') && base.length >= MIN_LENGTH) paths.add(base);
  }
  return { identifiers: [...identifiers].slice(0, MAX_TERMS), paths: [...paths].slice(0, MAX_TERMS) };
}

/** The terms of one message on its own. */
export function questionTerms(text: string): QuestionTerms {
  return termsOf(analyseText(text));
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
