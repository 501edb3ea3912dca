// Splits forwarded message text into what the detail page shows differently:
// context fences (`<context source="…">…</context>`, folded per source) and
// redaction markers (`[REDACTED:rule-id]`, highlighted). Pure string work; the
// pages render the pieces through JSX, so nothing here is ever trusted as HTML.

import type { ChatMessage } from '../shared/types.ts';

export type TextSegment =
  | { kind: 'text'; text: string }
  | { kind: 'context'; source: string; attributes: string; text: string };

// The opening tag's attributes are kept loose (`source` first or not, extra
// attributes such as `title`) so a change in the assembler's fence does not
// make the page show raw fences.
const FENCE = /<context\b([^>]*)>\n?([\s\S]*?)\n?<\/context>/g;
const SOURCE_ATTRIBUTE = /\bsource="([^"]*)"/;

export function splitContextFences(text: string): TextSegment[] {
  const segments: TextSegment[] = [];
  let last = 0;
  for (const match of text.matchAll(FENCE)) {
    const start = match.index;
    if (start > last) segments.push({ kind: 'text', text: text.slice(last, start) });
    const attributes = (match[1] ?? '').trim();
    const source = SOURCE_ATTRIBUTE.exec(attributes)?.[1] ?? 'unknown';
    segments.push({ kind: 'context', source, attributes, text: match[2] ?? '' });
    last = start + match[0].length;
  }
  if (last < text.length) segments.push({ kind: 'text', text: text.slice(last) });
  return segments;
}

export type RedactionPiece = { kind: 'text'; text: string } | { kind: 'redacted'; ruleId: string; text: string };

const REDACTION_MARKER = /\[REDACTED:([A-Za-z0-9._:@/-]+)\]/g;

export function splitRedactions(text: string): RedactionPiece[] {
  const pieces: RedactionPiece[] = [];
  let last = 0;
  for (const match of text.matchAll(REDACTION_MARKER)) {
    if (match.index > last) pieces.push({ kind: 'text', text: text.slice(last, match.index) });
    pieces.push({ kind: 'redacted', ruleId: match[1] ?? '', text: match[0] });
    last = match.index + match[0].length;
  }
  if (last < text.length) pieces.push({ kind: 'text', text: text.slice(last) });
  return pieces;
}

/** The text of a message as forwarded; image parts become a one-line placeholder. */
export function messageText(message: ChatMessage): string {
  const { content } = message;
  if (content === null) return '';
  if (typeof content === 'string') return content;
  return content
    .map((part) => {
      if (part.type === 'text') return part.text;
      const url = typeof part.image_url === 'string' ? part.image_url : part.image_url.url;
      return `[image: ${url.length > 80 ? `${url.slice(0, 80)}…` : url}]`;
    })
    .join('\n');
}

/** A plain-text rendering of the whole message list, for diffs between turns. */
export function messagesAsLines(messages: ChatMessage[]): string {
  return messages
    .map((message, index) => {
      const toolCalls = (message.tool_calls ?? []).map(
        (call) => `tool call ${call.function.name}(${call.function.arguments})`,
      );
      return [`### ${index + 1}. ${message.role}`, messageText(message), ...toolCalls].join('\n');
    })
    .join('\n');
}
