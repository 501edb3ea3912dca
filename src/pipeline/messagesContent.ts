// Anthropic content blocks → chat messages, for messagesInput.ts: text and
// images, tool_use blocks as an assistant's tool calls, tool_result blocks as
// tool messages. Blocks of hosted features (documents, server tool results …)
// are left out and counted; earlier thinking is not sent back.

import { BadRequestError } from '../shared/errors.ts';
import type { MessagesBlock, MessagesRequest } from '../shared/messagesRequest.ts';
import type { ChatMessage, ContentPart, ToolCall } from '../shared/types.ts';

/** A `system` turn among the messages: its text blocks, a line apart, as a chat system message. */
function systemTurn(blocks: MessagesBlock[], leftOut: LeftOut): ChatMessage {
  const texts: string[] = [];
  blocks.forEach((block, index) => {
    if (block.type === 'text') texts.push(requiredString(block, 'text', `messages content block ${index}`));
    else
      leaveOut(leftOut, `${block.type === 'image' ? 'image block(s)' : knownBlockName(block.type)} in a system turn`);
  });
  return { role: 'system', content: texts.join('\n') };
}

/** What was left out, by a name safe to show (never the client's own type string), and how many. */
export type LeftOut = Map<string, number>;

/**
 * One Anthropic message → chat messages. A user turn's tool_result blocks come
 * first, each as a tool message (chat puts results right after the calls),
 * then its text and images; an assistant turn's tool_use blocks become its tool calls.
 */
export function toChatMessages(message: MessagesRequest['messages'][number], leftOut: LeftOut): ChatMessage[] {
  if (typeof message.content === 'string') return [{ role: message.role, content: message.content }];
  if (message.role === 'system') return [systemTurn(message.content, leftOut)];
  const results: ChatMessage[] = [];
  const parts: ContentPart[] = [];
  const calls: ToolCall[] = [];
  message.content.forEach((block, index) => {
    const where = `messages content block ${index}`;
    switch (block.type) {
      case 'text':
        parts.push({ type: 'text', text: requiredString(block, 'text', where) });
        return;
      case 'image':
        if (message.role === 'assistant') leaveOut(leftOut, 'image block(s) in assistant turns');
        else parts.push(imagePart(block, where));
        return;
      case 'tool_use':
        calls.push({
          id: requiredString(block, 'id', where),
          type: 'function',
          function: { name: requiredString(block, 'name', where), arguments: JSON.stringify(block.input ?? {}) },
        });
        return;
      case 'tool_result':
        results.push(toolResult(block, where, leftOut));
        return;
      case 'thinking':
      case 'redacted_thinking':
        // The model's earlier reasoning is not sent back, as with chat completions.
        return;
      default:
        leaveOut(leftOut, knownBlockName(block.type));
    }
  });

  const out: ChatMessage[] = message.role === 'user' ? [...results] : [];
  const texts = parts.every((part) => part.type === 'text');
  if (parts.length > 0 || calls.length > 0) {
    const content =
      texts || message.role === 'assistant'
        ? parts.map((part) => (part.type === 'text' ? part.text : '')).join('\n')
        : parts;
    const chat: ChatMessage = { role: message.role, content: calls.length > 0 && content === '' ? null : content };
    if (calls.length > 0) chat.tool_calls = calls;
    out.push(chat);
  }
  if (message.role === 'assistant') out.push(...results);
  return out;
}

function toolResult(block: MessagesBlock, where: string, leftOut: LeftOut): ChatMessage {
  const id = requiredString(block, 'tool_use_id', where);
  const prefix = block.is_error === true ? 'Error: ' : '';
  const content = block.content;
  if (content === undefined || content === null || typeof content === 'string') {
    return { role: 'tool', tool_call_id: id, content: `${prefix}${content ?? ''}` };
  }
  if (!Array.isArray(content)) {
    throw new BadRequestError(
      `${where}: tool_result content must be a string or blocks.`,
      'invalid_request',
      'messages',
    );
  }
  const parts: ContentPart[] = [];
  content.forEach((inner: unknown, index) => {
    const part = (inner ?? {}) as MessagesBlock;
    const at = `${where}, tool_result block ${index}`;
    if (part.type === 'text') parts.push({ type: 'text', text: requiredString(part, 'text', at) });
    else if (part.type === 'image') parts.push(imagePart(part, at));
    else leaveOut(leftOut, knownBlockName(part.type));
  });
  if (parts.every((part) => part.type === 'text')) {
    return { role: 'tool', tool_call_id: id, content: prefix + parts.map((part) => part.text).join('\n') };
  }
  return { role: 'tool', tool_call_id: id, content: prefix ? [{ type: 'text', text: prefix }, ...parts] : parts };
}

/** base64 → a data URL; a url source is passed on and refused by images.ts (ctxproxy fetches nothing). */
function imagePart(block: MessagesBlock, where: string): ContentPart {
  const source = (block.source ?? {}) as MessagesBlock;
  if (source.type === 'base64') {
    const media = typeof source.media_type === 'string' ? source.media_type : 'application/octet-stream';
    return { type: 'image_url', image_url: { url: `data:${media};base64,${requiredString(source, 'data', where)}` } };
  }
  if (source.type === 'url') return { type: 'image_url', image_url: { url: requiredString(source, 'url', where) } };
  throw new BadRequestError(
    `${where}: an image source must be of type base64 (or url, which ctxproxy refuses: it does not fetch remote content).`,
    'invalid_request',
    'messages',
  );
}

const KNOWN_BLOCKS = [
  'document',
  'search_result',
  'server_tool_use',
  'web_search_tool_result',
  'web_fetch_tool_result',
  'container_upload',
  'mcp_tool_use',
  'mcp_tool_result',
];

function knownBlockName(type: unknown): string {
  return typeof type === 'string' && KNOWN_BLOCKS.includes(type)
    ? `${type} block(s)`
    : 'content block(s) of another type';
}

export function leaveOut(leftOut: LeftOut, what: string): void {
  leftOut.set(what, (leftOut.get(what) ?? 0) + 1);
}

export function requiredString(block: MessagesBlock, key: string, where: string): string {
  const value = block[key];
  if (typeof value === 'string') return value;
  throw new BadRequestError(`${where} needs a string "${key}".`, 'invalid_request', 'messages');
}
