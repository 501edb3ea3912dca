// POST /v1/messages (Anthropic's Messages API, Claude Code's wire format) onto
// the chat pipeline: system blocks, content blocks, tool_use / tool_result and
// the sampling fields become the chat request every other client sends, so the
// same context, redaction, budget and audit apply. Follows Ollama's own
// Anthropic layer (anthropic/anthropic.go) where it maps; fieldPolicy.ts's
// MESSAGES_REQUEST_FIELDS lists what each field becomes. What a local model
// cannot use (server tools, blocks of hosted features) is left out with a
// warning rather than failing the request; what is malformed is a 400.

import type { ChatRequest } from '../shared/chatRequest.ts';
import { BadRequestError } from '../shared/errors.ts';
import type { CountTokensRequest, MessagesBlock, MessagesRequest } from '../shared/messagesRequest.ts';
import type { ChatMessage, ContentPart, ToolCall, ToolDefinition } from '../shared/types.ts';
import { MESSAGES_REQUEST_FIELDS } from './fieldPolicy.ts';
import { type PipelineDeps, type PipelineInput, type PipelineResult, prepare, runPipeline } from './runPipeline.ts';

export interface MessagesInput {
  body: MessagesRequest;
  headers: PipelineInput['headers'];
  requestId: string;
  requestIdMinted?: boolean | undefined;
  signal: AbortSignal;
}

export async function runMessages(input: MessagesInput, deps: PipelineDeps): Promise<PipelineResult> {
  const { request, warnings } = toChatRequest(input.body);
  return runPipeline({ ...input, request, warnings }, deps);
}

/**
 * The prompt's tokens as ctxproxy would forward it: the client's messages and
 * tools plus the context this turn adds, counted by the same budget that fits
 * it to the window. Nothing is sent to the model, so nothing is audited.
 */
export async function countMessageTokens(
  input: Omit<MessagesInput, 'body'> & { body: CountTokensRequest },
  deps: PipelineDeps,
): Promise<{ inputTokens: number; modeUsed: string }> {
  const { request } = promptRequest(input.body);
  // No num_ctx is sent, so none is remembered as the model's loaded window.
  const prepared = await prepare({ ...input, request }, { ...deps, loadedNumCtx: undefined });
  const { budget } = prepared.budgeted.turn;
  return { inputTokens: budget.estimatedPromptTokens, modeUsed: budget.modeUsed };
}

interface Mapping {
  warnings: string[];
  /** Block types left out, by a name safe to show (never the client's own type string). */
  leftOut: Map<string, number>;
}

type Mapped = { request: ChatRequest; warnings: string[] };

/** A /v1/messages request as the chat request the pipeline runs, and what the mapping left out. */
export function toChatRequest(body: MessagesRequest): Mapped {
  const mapped = promptRequest(body);
  addSampling(mapped.request, body);
  return mapped;
}

/** The prompt alone (messages, system, tools, thinking): what count_tokens counts, and what a reply needs. */
function promptRequest(body: MessagesRequest | CountTokensRequest): Mapped {
  const mapping: Mapping = { warnings: [], leftOut: new Map() };
  const messages: ChatMessage[] = [];
  const system = systemText(body.system);
  if (system !== '') messages.push({ role: 'system', content: system });
  for (const message of body.messages) messages.push(...toChatMessages(message, mapping));
  if (!messages.some((message) => message.role === 'user' || message.role === 'tool')) {
    throw new BadRequestError('messages holds no user turn to answer.', 'invalid_request', 'messages');
  }

  const request: ChatRequest = { model: body.model, messages, stream: false };
  const tools = toChatTools(body.tools ?? [], mapping);
  if (tools.length > 0) {
    request.tools = tools;
    const choice = body.tool_choice;
    if (choice) {
      request.tool_choice = toChatToolChoice(choice);
      if (choice.disable_parallel_tool_use === true) request.parallel_tool_calls = false;
    }
  }
  const effort = reasoningEffort(body);
  if (effort !== undefined) request.reasoning_effort = effort;
  const format = responseFormat(body);
  if (format) request.response_format = format;

  for (const [what, count] of mapping.leftOut) {
    mapping.warnings.push(`left out ${count} ${what} that a local model cannot use`);
  }
  const unknown = Object.keys(body).filter((key) => !Object.hasOwn(MESSAGES_REQUEST_FIELDS, key)).length;
  // Counted, never named: an unknown key is client text that was not scanned.
  if (unknown > 0) mapping.warnings.push(`ignored ${unknown} request field(s) that ctxproxy does not forward`);
  return { request, warnings: mapping.warnings };
}

function addSampling(request: ChatRequest, body: MessagesRequest): void {
  request.stream = body.stream === true;
  request.max_tokens = body.max_tokens;
  if (body.stop_sequences && body.stop_sequences.length > 0) request.stop = body.stop_sequences;
  if (typeof body.temperature === 'number') request.temperature = body.temperature;
  if (typeof body.top_p === 'number') request.top_p = body.top_p;
  if (typeof body.top_k === 'number') request.top_k = body.top_k;
  if (typeof body.metadata?.user_id === 'string') request.user = body.metadata.user_id;
}

/** Text blocks joined by a blank line (Claude Code sends its identity and its instructions as two blocks). */
function systemText(system: MessagesRequest['system']): string {
  if (system === undefined || system === null) return '';
  if (typeof system === 'string') return system;
  return system
    .map((block, index) => {
      if (block.type !== 'text' || typeof block.text !== 'string') {
        throw new BadRequestError(`system[${index}] must be a text block.`, 'invalid_request', 'system');
      }
      return block.text;
    })
    .filter((text) => text !== '')
    .join('\n\n');
}

/**
 * One Anthropic message → chat messages. A user turn's tool_result blocks come
 * first, each as a tool message (chat puts results right after the calls),
 * then its text and images; an assistant turn's tool_use blocks become its tool calls.
 */
function toChatMessages(message: MessagesRequest['messages'][number], mapping: Mapping): ChatMessage[] {
  if (typeof message.content === 'string') return [{ role: message.role, content: message.content }];
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
        if (message.role === 'assistant') leaveOut(mapping, 'image block(s) in assistant turns');
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
        results.push(toolResult(block, where, mapping));
        return;
      case 'thinking':
      case 'redacted_thinking':
        // The model's earlier reasoning is not sent back, as with chat completions.
        return;
      default:
        leaveOut(mapping, knownBlockName(block.type));
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

function toolResult(block: MessagesBlock, where: string, mapping: Mapping): ChatMessage {
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
    else leaveOut(mapping, knownBlockName(part.type));
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

/** Server tools Anthropic runs itself; a local model cannot, so they are left out. Named by family only. */
const SERVER_TOOL_FAMILIES = [
  'web_search',
  'web_fetch',
  'bash',
  'text_editor',
  'computer',
  'code_execution',
  'memory',
  'tool_search_tool',
  'mcp_toolset',
];

function toChatTools(tools: MessagesBlock[], mapping: Mapping): ToolDefinition[] {
  const out: ToolDefinition[] = [];
  tools.forEach((tool, index) => {
    if (tool.type !== undefined && tool.type !== null && tool.type !== 'custom') {
      const family = SERVER_TOOL_FAMILIES.find((name) => typeof tool.type === 'string' && tool.type.startsWith(name));
      leaveOut(mapping, family ? `server tool(s) ${family}` : 'server tool(s) of another type');
      return;
    }
    const fn: ToolDefinition['function'] = { name: requiredString(tool, 'name', `tools[${index}]`) };
    if (typeof tool.description === 'string') fn.description = tool.description;
    if (tool.input_schema !== undefined && tool.input_schema !== null) {
      if (typeof tool.input_schema !== 'object' || Array.isArray(tool.input_schema)) {
        throw new BadRequestError(
          `tools[${index}].input_schema must be a JSON schema object.`,
          'invalid_request',
          'tools',
        );
      }
      fn.parameters = tool.input_schema as Record<string, unknown>;
    }
    out.push({ type: 'function', function: fn });
  });
  return out;
}

function toChatToolChoice(choice: NonNullable<MessagesRequest['tool_choice']>): unknown {
  switch (choice.type) {
    case 'any':
      return 'required';
    case 'tool':
      if (!choice.name)
        throw new BadRequestError('tool_choice of type tool needs a name.', 'invalid_request', 'tool_choice');
      return { type: 'function', function: { name: choice.name } };
    default:
      return choice.type;
  }
}

/**
 * thinking or output_config.effort → reasoning_effort, as Ollama maps them to
 * `think`: disabled turns it off, any other thinking type (enabled, adaptive,
 * between_tools …) turns it on, at the effort asked for or medium.
 */
function reasoningEffort(body: MessagesRequest | CountTokensRequest): string | undefined {
  const type = body.thinking?.type;
  if (type === 'disabled') return 'none';
  const effort = body.output_config?.effort?.toLowerCase().trim();
  const level = effort === 'max' || effort === 'xhigh' ? 'high' : effort;
  const known = level === 'low' || level === 'medium' || level === 'high' ? level : undefined;
  if (type !== undefined) return known ?? 'medium';
  return known;
}

/** output_config.format (structured outputs) → response_format json_schema, which Ollama takes as `format`. */
function responseFormat(body: MessagesRequest | CountTokensRequest): ChatRequest['response_format'] {
  const format = body.output_config?.format;
  if (format === undefined || format === null) return undefined;
  if (format.type !== 'json_schema' || typeof format.schema !== 'object' || format.schema === null) {
    throw new BadRequestError(
      'output_config.format must be {"type":"json_schema","schema":{…}}.',
      'invalid_request',
      'output_config',
    );
  }
  return { type: 'json_schema', json_schema: { name: 'output', schema: format.schema } };
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

function leaveOut(mapping: Mapping, what: string): void {
  mapping.leftOut.set(what, (mapping.leftOut.get(what) ?? 0) + 1);
}

function requiredString(block: MessagesBlock, key: string, where: string): string {
  const value = block[key];
  if (typeof value === 'string') return value;
  throw new BadRequestError(`${where} needs a string "${key}".`, 'invalid_request', 'messages');
}
