// Splits forwarded message text into what the detail page shows differently:
// context fences (`<context source="…">…</context>`, folded per source) and
// redaction markers (`[REDACTED:rule-id]`, highlighted). Pure string work; the
// pages render the pieces through JSX, so nothing here is ever trusted as HTML.

import type { ChatMessage } from '../shared/types.ts';

export type TextSegment =
  | { kind: 'text'; text: string }
  | {
      kind: 'context';
      /** The item key from the fence's `source` attribute (`git.status`). */
      source: string;
      /** `context-update` fences carry what changed since the conversation started. */
      update: boolean;
      text: string;
    };

// The assembler writes `<context source="KEY" title="…">\nBODY\n</context>`,
// and `<context-update …>` for per-turn attachments. The attributes are read
// loosely (order, extra attributes) so a small change in the assembler does
// not make the page show raw fences.
const FENCE = /<(context(?:-update)?)(?=[\s>])((?:[^>"]|"[^"]*")*)>\n?([\s\S]*?)\n?<\/\1>/g;
const SOURCE_ATTRIBUTE = /\bsource="([^"]*)"/;

function decodeAttribute(value: string): string {
  return value.replaceAll('&quot;', '"').replaceAll('&lt;', '<').replaceAll('&amp;', '&');
}

export function splitContextFences(text: string): TextSegment[] {
  const segments: TextSegment[] = [];
  let last = 0;
  for (const match of text.matchAll(FENCE)) {
    const start = match.index;
    if (start > last) segments.push({ kind: 'text', text: text.slice(last, start) });
    const attribute = SOURCE_ATTRIBUTE.exec(match[2] ?? '')?.[1];
    segments.push({
      kind: 'context',
      source: attribute === undefined ? 'unknown' : decodeAttribute(attribute),
      update: match[1] === 'context-update',
      text: match[3] ?? '',
    });
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
      const image = part.image_url;
      // The audit log keeps an image as its type, size and hash (pipeline/images.ts).
      if (typeof image !== 'string' && image.media_type !== undefined)
        return `[image: ${image.media_type}, ${image.bytes ?? '?'} bytes, ${image.url.slice(0, 19)}…]`;
      const url = typeof image === 'string' ? image : image.url;
      return `[image: ${url.length > 80 ? `${url.slice(0, 80)}…` : url}]`;
    })
    .join('\n');
}

/**
 * A plain-text rendering of the whole message list, for diffs between turns.
 * The context block (when given) becomes one placeholder line, because the
 * conversation view diffs it on its own and should not show its changes twice.
 */
export function messagesAsLines(messages: ChatMessage[], contextBlock?: string | undefined): string {
  return messages
    .map((message, index) => {
      const text = messageText(message);
      const toolCalls = (message.tool_calls ?? []).map(
        (call) => `tool call ${call.function.name}(${call.function.arguments})`,
      );
      const body = contextBlock !== undefined && text === contextBlock ? '(the context block, compared above)' : text;
      return [`### ${index + 1}. ${message.role}`, body, ...toolCalls].join('\n');
    })
    .join('\n');
}
