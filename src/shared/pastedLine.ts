// A line of code pasted into the question ("which commit introduced
// `x = a / b` in lib/rates.py?"): a backticked span with a space in it, which
// no identifier or path has. Such a question is about the line's history: the
// commit that changed it answers, not the whole file or the definitions of
// every name on the line.

import { hasIntent } from './question.ts';
import type { Question } from './questionTypes.ts';

/** Backticked spans of 12-200 characters with a space: pasted code, at most two. */
export function pastedLines(text: string): string[] {
  const spans = [...text.matchAll(/`([^`\n]{12,200})`/g)]
    .map((match) => (match[1] ?? '').trim())
    .filter((span) => /\s/.test(span));
  return [...new Set(spans)].slice(0, 2);
}

/** The lines a history question pasted ("which commit introduced `…`"); empty for any other question. */
export function historyOfPastedLines(question: Question): string[] {
  return hasIntent(question, 'history') ? pastedLines(question.text) : [];
}
