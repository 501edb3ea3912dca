// Step 1 of the pipeline: which mode this request runs in. Pure.
// Precedence: header X-Ctx-Mode, a `+mode` model suffix, a leading `/mode NAME`
// line in the last user message, the server's --mode, else auto.

import { BadRequestError } from '../shared/errors.ts';
import { firstText, messageText } from '../shared/messageText.ts';
import { parseWindow } from '../shared/parseWindow.ts';
import { type ChatMessage, MODE_NAMES, type ModeName, type ModeRequest } from '../shared/types.ts';

export type ModeOrigin = 'header' | 'model-suffix' | 'message' | 'server' | 'auto';

export interface ModeSelection {
  modeAsked: ModeRequest;
  /** The concrete mode before budgeting (auto resolved). */
  mode: ModeName;
  origin: ModeOrigin;
  /** Why this mode, for the audit: who asked for it, and what `auto` saw ("auto: a stack trace in the question"). */
  reason: string;
  /** The model name with any `+mode` suffix removed: what the upstream is asked for. */
  model: string;
  /** The client's messages with a leading `/mode` line removed from the last user message. */
  messages: ChatMessage[];
}

export interface ModeSelectionInput {
  headerMode?: string | undefined;
  model: string;
  messages: ChatMessage[];
  serverMode: ModeRequest;
  looksLikeStackTrace: (text: string) => boolean;
}

const MODE_REQUESTS: readonly string[] = [...MODE_NAMES, 'auto'];
// `/mode NAME` on its own first line, or followed by the question on the same line.
const MODE_LINE = /^[ \t]*\/mode[ \t]+(\S+)(?:[ \t]*\r?\n|[ \t]+|$)/;

export function isModeRequest(value: string): value is ModeRequest {
  return MODE_REQUESTS.includes(value);
}

/** One answer for an unknown mode, wherever it was given. */
function invalidMode(where: string): BadRequestError {
  return new BadRequestError(`${where} is not a mode; use one of ${MODE_REQUESTS.join(', ')}.`, 'invalid_mode');
}

export function selectMode(input: ModeSelectionInput): ModeSelection {
  const { model, suffixMode, invalidSuffix } = splitModelSuffix(input.model);
  if (invalidSuffix !== undefined) throw invalidMode(`The model suffix "+${invalidSuffix}" (in "${input.model}")`);
  const { messages, lineMode, invalidLine } = stripModeLines(input.messages);
  if (invalidLine !== undefined) throw invalidMode(`"/mode ${invalidLine}" in the last user message`);

  let modeAsked: ModeRequest = input.serverMode;
  let origin: ModeOrigin = input.serverMode === 'auto' ? 'auto' : 'server';
  if (lineMode) [modeAsked, origin] = [lineMode, 'message'];
  if (suffixMode) [modeAsked, origin] = [suffixMode, 'model-suffix'];
  if (input.headerMode !== undefined && input.headerMode !== '') {
    const header = input.headerMode.trim().toLowerCase();
    if (!isModeRequest(header)) throw invalidMode(`X-Ctx-Mode "${input.headerMode}"`);
    [modeAsked, origin] = [header, 'header'];
  }

  const trace = modeAsked === 'auto' && input.looksLikeStackTrace(parseWindow(lastUserText(messages)));
  const mode: ModeName = modeAsked === 'auto' ? (trace ? 'debug' : 'git-aware') : modeAsked;
  const auto = trace ? 'auto: a stack trace or error output in the question' : 'auto: no stack trace in the question';
  const reason = origin === 'auto' ? auto : `${ASKED_BY[origin]}${modeAsked === 'auto' ? `; ${auto}` : ''}`;
  return { modeAsked, mode, origin, reason, model, messages };
}

const ASKED_BY: Record<Exclude<ModeOrigin, 'auto'>, string> = {
  header: 'asked for in the X-Ctx-Mode header',
  'model-suffix': "asked for by the model name's +mode suffix",
  message: 'asked for by a /mode line in the message',
  server: "the server's --mode setting",
};

/**
 * `qwen2.5-coder:7b+debug` → model `qwen2.5-coder:7b`, mode `debug`. Model
 * names never hold a `+`, so any other suffix is a mistyped mode.
 */
export function splitModelSuffix(name: string): { model: string; suffixMode?: ModeRequest; invalidSuffix?: string } {
  const at = name.lastIndexOf('+');
  if (at <= 0) return { model: name };
  const suffix = name.slice(at + 1).toLowerCase();
  return isModeRequest(suffix)
    ? { model: name.slice(0, at), suffixMode: suffix }
    : { model: name, invalidSuffix: name.slice(at + 1) };
}

/**
 * The last user message's `/mode` line picks the mode. Earlier user messages
 * lose theirs too, as they did when they were the last one, so the history
 * forwarded at turn N+1 begins with what turn N forwarded.
 */
function stripModeLines(messages: ChatMessage[]): {
  messages: ChatMessage[];
  lineMode?: ModeRequest;
  invalidLine?: string;
} {
  const last = lastUserIndex(messages);
  let lineMode: ModeRequest | undefined;
  let copy: ChatMessage[] | undefined;
  for (let index = 0; index <= last; index++) {
    const message = messages[index] as ChatMessage;
    if (message.role !== 'user') continue;
    const text = firstText(message);
    const match = text === undefined ? null : MODE_LINE.exec(text);
    const name = match?.[1]?.toLowerCase();
    if (!match || !name) continue;
    if (!isModeRequest(name)) {
      if (index === last) return { messages, invalidLine: match[1] as string };
      continue;
    }
    if (index === last) lineMode = name;
    copy ??= [...messages];
    copy[index] = { ...message, content: withoutModeLine(message, (text as string).slice(match[0].length)) };
  }
  return lineMode ? { messages: copy ?? messages, lineMode } : { messages: copy ?? messages };
}

function withoutModeLine(message: ChatMessage, stripped: string): ChatMessage['content'] {
  if (typeof message.content === 'string') return stripped;
  const parts = [...(message.content ?? [])];
  const first = parts.findIndex((part) => part.type === 'text');
  parts[first] = { type: 'text', text: stripped };
  return parts;
}

export function lastUserIndex(messages: ChatMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]?.role === 'user') return i;
  return -1;
}

/** All text of the last user message (text parts joined). */
export function lastUserText(messages: ChatMessage[]): string {
  const message = messages[lastUserIndex(messages)];
  return message ? messageText(message) : '';
}
