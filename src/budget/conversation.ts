// The conversation is counted first and must fit on its own. When it does not,
// its oldest turns go (never system/developer messages, never the latest user
// turn and what follows it; an assistant tool call leaves with its results),
// and one marker message says so where they were. With overflow 'error', or
// when even the protected messages cannot fit, a ContextLengthError carries the
// numbers instead.
//
// The latest user turn is every user message since the model last spoke: a
// paste sent as its own message and the question sent after it are both the
// user's latest words. When they cannot fit, the answer is a 400 that says by
// how much and what to do, never a trimmed or dropped message: the user's own
// words are theirs to cut (a trimmed log answered with confidence would look
// complete to them, since SDKs do not show X-Ctx-Warning), and an error is shown
// by every client. Context is always cut first: by the time this error is
// thrown no repository context is left, so a lighter mode would not help.

import { ContextLengthError } from '../shared/errors.ts';
import type { ChatMessage, ToolDefinition } from '../shared/types.ts';
import type { TokenCounter } from './tokenCounter.ts';

export type HistoryOverflow = 'drop-oldest' | 'error';

export interface FitConversationInput {
  messages: ChatMessage[];
  tools?: ToolDefinition[] | undefined;
  /** Tokens the conversation may use (the whole usable budget: context comes after). */
  usable: number;
  counter: TokenCounter;
  overflow: HistoryOverflow;
  /** The model's window, for the marker and error texts. */
  window?: number | undefined;
}

export interface FitConversationResult {
  messages: ChatMessage[];
  droppedMessages: number;
  /** Tokens of the returned messages (with tools), as `counter.countMessages` counts them. */
  tokens: number;
}

export function droppedMessagesMarker(dropped: number, window: number | undefined): string {
  const target = window === undefined ? 'the token budget' : `the model's ${window}-token window`;
  const what = dropped === 1 ? '1 earlier message was' : `${dropped} earlier messages were`;
  return `[ctxproxy: ${what} left out to fit ${target}]`;
}

function markerMessage(dropped: number, window: number | undefined): ChatMessage {
  return { role: 'system', content: droppedMessagesMarker(dropped, window) };
}

function isInstruction(message: ChatMessage): boolean {
  return message.role === 'system' || message.role === 'developer';
}

/**
 * Index where the latest turn starts: the first of the user messages sent since the model last
 * spoke (a paste and the question after it; instructions between them stay protected anyway),
 * else the last non-instruction message.
 */
function latestTurnStart(messages: ChatMessage[]): number {
  let start = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    const role = messages[i]?.role;
    if (role === 'user') start = i;
    else if (start >= 0 && role !== 'system' && role !== 'developer') break;
  }
  if (start >= 0) return start;
  for (let i = messages.length - 1; i >= 0; i--) if (!isInstruction(messages[i] as ChatMessage)) return i;
  return messages.length;
}

/** Characters of a message's text (its text parts), for the "shorten by" figure. */
function textChars(message: ChatMessage): number {
  if (typeof message.content === 'string') return message.content.length;
  if (!Array.isArray(message.content)) return 0;
  let chars = 0;
  for (const part of message.content) if (part.type === 'text') chars += part.text.length;
  return chars;
}

/**
 * Droppable groups, oldest first: one message, or an assistant tool call with
 * its results (matched by tool_call_id, else the tool messages right after it),
 * so a result never outlives its call.
 */
function droppableGroups(messages: ChatMessage[], before: number): number[][] {
  const groups: number[][] = [];
  const groupOfCall = new Map<string, number[]>();
  let previousCallGroup: number[] | undefined;
  for (let i = 0; i < before; i++) {
    const message = messages[i] as ChatMessage;
    if (isInstruction(message)) continue;
    if (message.role === 'tool') {
      const owner = (message.tool_call_id && groupOfCall.get(message.tool_call_id)) || previousCallGroup;
      if (owner) {
        owner.push(i);
        continue;
      }
    }
    const group = [i];
    groups.push(group);
    previousCallGroup = undefined;
    if (message.role === 'assistant' && (message.tool_calls?.length ?? 0) > 0) {
      for (const call of message.tool_calls ?? []) groupOfCall.set(call.id, group);
      previousCallGroup = group;
    }
  }
  return groups;
}

function tooLong(needed: number, usable: number, window: number | undefined, detail: string): ContextLengthError {
  const windowText = window === undefined ? '' : ` (${window}-token window x safety ratio, minus the reply reserve)`;
  return new ContextLengthError(
    `This conversation needs ~${needed} tokens but the model's window allows ${usable}${windowText}. ${detail}`,
  );
}

/**
 * The 400 for a latest turn that cannot fit even alone: the numbers, and what the user can do.
 * The characters to cut follow the message's own characters per token (logs and code pack fewer
 * characters into a token than prose).
 */
function latestTurnTooLong(figures: {
  needed: number;
  usable: number;
  window: number | undefined;
  latestTokens: number;
  latestChars: number;
}): ContextLengthError {
  const { needed, usable, window, latestTokens, latestChars } = figures;
  const over = needed - usable;
  const perToken = latestTokens > 0 ? latestChars / latestTokens : 4;
  const cutChars = Math.ceil(over * perToken);
  const room =
    window === undefined
      ? `the token budget allows ${usable}`
      : `the model's ${window}-token window leaves ${usable} for the prompt (window x safety ratio, minus the reply reserve)`;
  return new ContextLengthError(
    `Your latest message (~${latestTokens} tokens) does not fit this model: with the system messages it needs ~${needed} tokens, and ${room}. Nothing was cut and nothing was sent to the model. Shorten it by at least ~${over} tokens (~${cutChars} characters; for a log, its last lines and the errors), or use a model with a larger window. No repository context was added, so a lighter mode (quick, off) would not help.`,
    { hint: LATEST_TURN_HINT },
  );
}

/** What the proxy's log prints for that 400 (its own words only: nothing of the request). */
export const LATEST_TURN_HINT =
  "The client's latest message is longer than the model's window: ask for a shorter paste or a model with a larger window; nothing was sent.";

export function fitConversation(input: FitConversationInput): FitConversationResult {
  const { messages, tools, usable, counter, window } = input;
  const tokens = counter.countMessages(messages, tools);
  if (tokens <= usable) return { messages, droppedMessages: 0, tokens };

  const turnStart = latestTurnStart(messages);
  const groups = droppableGroups(messages, turnStart);
  const droppable = new Set(groups.flat());
  const protectedOnly = messages.filter((_, i) => !droppable.has(i));
  const minimum = counter.countMessages(
    droppable.size > 0 ? [...protectedOnly, markerMessage(droppable.size, window)] : protectedOnly,
    tools,
  );
  if (minimum > usable) {
    const latest = messages.slice(turnStart).filter((message) => message.role === 'user');
    throw latestTurnTooLong({
      needed: minimum,
      usable,
      window,
      latestTokens: counter.countMessages(latest),
      latestChars: latest.reduce((sum, message) => sum + textChars(message), 0),
    });
  }
  if (input.overflow === 'error') {
    throw tooLong(
      tokens,
      usable,
      window,
      'Earlier messages were not dropped because historyOverflow is "error"; start a new conversation or shorten it.',
    );
  }

  // Linear in the messages: each is counted once, and the running total is
  // kept in raw (uncalibrated, integer) tokens, which add up exactly to what
  // countMessages would return for the fitted list.
  const ratio = counter.ratio;
  let remaining = counter.rawBase(tools);
  const raw = messages.map((message) => counter.rawMessage(message));
  for (const cost of raw) remaining += cost;
  const dropped = new Set<number>();
  for (const group of groups) {
    for (const i of group) {
      dropped.add(i);
      remaining -= raw[i] as number;
    }
    if (Math.ceil((remaining + counter.rawMessage(markerMessage(dropped.size, window))) * ratio) > usable) continue;
    const fitted = assemble(messages, dropped, window);
    return { messages: fitted, droppedMessages: dropped.size, tokens: counter.countMessages(fitted, tools) };
  }
  // Every droppable group is gone; the minimum was checked above, so this fits.
  const fitted = assemble(messages, droppable, window);
  return { messages: fitted, droppedMessages: droppable.size, tokens: counter.countMessages(fitted, tools) };
}

function assemble(messages: ChatMessage[], dropped: Set<number>, window: number | undefined): ChatMessage[] {
  const out: ChatMessage[] = [];
  let markerPlaced = false;
  messages.forEach((message, i) => {
    if (!dropped.has(i)) {
      out.push(message);
      return;
    }
    if (!markerPlaced) {
      out.push(markerMessage(dropped.size, window));
      markerPlaced = true;
    }
  });
  return out;
}
