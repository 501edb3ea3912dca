// The audit's token figures, counted on what was sent: one counter (the
// estimator, at ratio 1) over the exact forwarded messages, carried context
// included, and the same texts through the model's calibration beside it. The
// budget fits with the calibrated counter; the snapshot never mixes the two or
// subtracts one from the other.

import type { TokenCounter } from '../budget/index.ts';
import type { ChatMessage, ContextPart, SentTokens, ToolDefinition } from '../shared/types.ts';
import type { LocatedPart } from './contextParts.ts';

export interface SentFigures extends SentTokens {
  calibrated: SentTokens & { ratio: number };
}

/**
 * `located` are the parts found in `forwarded` (contextParts.ts); `counter` counts at ratio 1 and has the
 * forwarded texts counted ahead (see assembleStage.ts); `ratio` is the model's calibration (1: none learned).
 */
export function sentFigures(
  forwarded: readonly ChatMessage[],
  tools: ToolDefinition[] | undefined,
  located: readonly LocatedPart[],
  counter: TokenCounter,
  ratio: number,
): SentFigures {
  // The user's words without their attachment are the client's own text, which the budget counted already.
  const conversation = withoutContext(
    forwarded,
    located.map((found) => found.part),
  );
  const figures = (c: TokenCounter): SentTokens => ({
    promptTokens: c.countMessages([...forwarded], tools),
    conversationTokens: c.countMessages(conversation, tools),
    contextTokens: located.reduce((sum, found) => sum + c.count(found.text), 0),
  });
  return { ...figures(counter), calibrated: { ratio, ...figures(counter.withRatio(ratio)) } };
}

/** The forwarded messages with the context taken out: the block's message dropped, each attachment cut off. */
export function withoutContext(forwarded: readonly ChatMessage[], parts: readonly ContextPart[]): ChatMessage[] {
  const blocks = new Set(parts.filter((part) => part.kind === 'block').map((part) => part.message));
  const updates = new Map(parts.filter((part) => part.kind === 'update').map((part) => [part.message, part.chars]));
  const out: ChatMessage[] = [];
  forwarded.forEach((message, index) => {
    if (blocks.has(index)) return;
    const chars = updates.get(index);
    out.push(chars === undefined ? message : cutAttachment(message, chars));
  });
  return out;
}

/** attachToMessage (assemble.ts) in reverse: the user's words as written. */
function cutAttachment(message: ChatMessage, chars: number): ChatMessage {
  const { content } = message;
  if (typeof content === 'string')
    return { ...message, content: content.slice(0, Math.max(0, content.length - chars - 2)) };
  if (!Array.isArray(content)) return message;
  const at = content.findLastIndex((part) => part.type === 'text' && part.text.length === chars);
  return at < 0 ? message : { ...message, content: content.filter((_, index) => index !== at) };
}
