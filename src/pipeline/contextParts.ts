// The audit's account of the context a request carried: every block and
// `<context-update>` attachment found in the final forwarded messages, whether
// this turn added it or an earlier turn did, with each source's share. A part
// the budget left out (its message was dropped) is not in the account, since
// it was not sent.

import type { ChatMessage, ContextPart, ContextPartSource } from '../shared/types.ts';
import type { ContextOrigin } from './conversations.ts';

export interface PendingPart {
  kind: 'block' | 'update';
  text: string;
  carried: boolean;
  origin: ContextOrigin;
  sources: ContextPartSource[];
}

/** A part found in the messages, with its text (the snapshot keeps the part, not the text twice). */
export interface LocatedPart {
  part: ContextPart;
  text: string;
}

export function locateParts(
  messages: readonly ChatMessage[],
  pending: readonly PendingPart[],
  count: (text: string) => number,
): LocatedPart[] {
  const parts: LocatedPart[] = [];
  let from = 0;
  for (const part of pending) {
    if (part.text === '') continue;
    const index =
      part.kind === 'block'
        ? messages.findIndex((m) => m.role === 'system' && m.content === part.text)
        : findAttachment(messages, part.text, from);
    if (index < 0) continue;
    if (part.kind === 'update') from = index + 1;
    parts.push({
      part: {
        kind: part.kind,
        message: index,
        carried: part.carried,
        fromTurn: part.origin.turn,
        ...(part.origin.snapshotId !== undefined ? { fromSnapshot: part.origin.snapshotId } : {}),
        chars: part.text.length,
        tokens: count(part.text),
        sources: part.sources,
      },
      text: part.text,
    });
  }
  return parts;
}

function findAttachment(messages: readonly ChatMessage[], text: string, from: number): number {
  for (let i = from; i < messages.length; i++) {
    const message = messages[i] as ChatMessage;
    if (message.role !== 'user') continue;
    const { content } = message;
    if (
      typeof content === 'string'
        ? content.endsWith(`\n\n${text}`)
        : content?.some((p) => p.type === 'text' && p.text === text)
    )
      return i;
  }
  return -1;
}
