// Splits forwarded message text into what the detail page shows differently:
// redaction markers (`[REDACTED:rule-id]`, highlighted) here; context fences
// (folded per source) through shared/contextFences.ts. Pure string work; the
// pages render the pieces through JSX, so nothing here is ever trusted as HTML.

import { messageText } from '../shared/messageText.ts';
import type { ChatMessage, ImagePart } from '../shared/types.ts';

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
export function shownText(message: ChatMessage): string {
  return messageText(message, imagePlaceholder);
}

function imagePlaceholder(part: ImagePart): string {
  const image = part.image_url;
  // The audit log keeps an image as its type, size and hash (pipeline/images.ts).
  if (typeof image !== 'string' && image.media_type !== undefined)
    return `[image: ${image.media_type}, ${image.bytes ?? '?'} bytes, ${image.url.slice(0, 19)}…]`;
  const url = typeof image === 'string' ? image : image.url;
  return `[image: ${url.length > 80 ? `${url.slice(0, 80)}…` : url}]`;
}

/**
 * A plain-text rendering of the whole message list, for diffs between turns.
 * The context block (when given) becomes one placeholder line, because the
 * conversation view diffs it on its own and should not show its changes twice.
 */
export function messagesAsLines(messages: ChatMessage[], contextBlock?: string | undefined): string {
  return messages
    .map((message, index) => {
      const text = shownText(message);
      const toolCalls = (message.tool_calls ?? []).map(
        (call) => `tool call ${call.function.name}(${call.function.arguments})`,
      );
      const body = contextBlock !== undefined && text === contextBlock ? '(the context block, compared above)' : text;
      return [`### ${index + 1}. ${message.role}`, body, ...toolCalls].join('\n');
    })
    .join('\n');
}
