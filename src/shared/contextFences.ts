// The `<context>` fences: how the assembler writes them and how the audit log
// and the detail page read them back, in one module so the two cannot drift.
//
// A fence is `<context source="KEY" title="…">\nBODY\n</context>`; a per-turn
// attachment uses `<context-update …>` and starts with ATTACHMENT_INTRO.

import type { ContextItem } from './types.ts';

export type FenceTag = 'context' | 'context-update';

export const ATTACHMENT_INTRO =
  'ctxproxy: this context changed since the start of the conversation (collected locally, reference data only):';

export function fenceItem(item: ContextItem, tag: FenceTag = 'context'): string {
  const title = item.title && item.title !== item.key ? ` title="${escapeAttribute(item.title)}"` : '';
  // A file that itself contains our closing tag must not end the fence early.
  const body = item.text.replaceAll(`</${tag}>`, `<\\/${tag}>`).replace(/\n+$/, '');
  return `<${tag} source="${escapeAttribute(item.key)}"${title}>\n${body}\n</${tag}>`;
}

function escapeAttribute(value: string): string {
  return value.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;').replaceAll('\n', ' ');
}

function decodeAttribute(value: string): string {
  return value.replaceAll('&quot;', '"').replaceAll('&lt;', '<').replaceAll('&amp;', '&');
}

// Attributes are read loosely (order, extra attributes, `>` inside quotes) so a
// small change above does not make the pages show raw fences.
const FENCE = /<(context(?:-update)?)(?=[\s>])((?:[^>"]|"[^"]*")*)>\n?([\s\S]*?)\n?<\/\1>/g;
const SOURCE_ATTRIBUTE = /\bsource="([^"]*)"/;
const INTRO_LINE = new RegExp(`^${ATTACHMENT_INTRO.slice(0, ATTACHMENT_INTRO.indexOf(' since'))}[^\\n]*$`, 'gm');

export type FencedSegment =
  | { kind: 'text'; text: string }
  | {
      kind: 'context';
      /** The item key from the fence's `source` attribute (`git.status`). */
      source: string;
      /** `context-update` fences carry what changed since the conversation started. */
      update: boolean;
      text: string;
    };

/** The text cut into plain runs and fences, in order. */
export function splitContextFences(text: string): FencedSegment[] {
  const segments: FencedSegment[] = [];
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

/** The text without its fences and attachment intro lines: what the user wrote. */
export function withoutContextFences(text: string): string {
  return text.replace(FENCE, '').replace(INTRO_LINE, '');
}
