// POST /v1/responses onto the chat pipeline: the Responses request (`input`,
// `instructions`, function tools, `previous_response_id`) becomes the chat
// request every other client sends, so the same context, redaction, budget and
// audit apply. What chat cannot express is a 400 naming it.

import type { ChatRequest, HostedTool } from '../shared/chatRequest.ts';
import { BadRequestError } from '../shared/errors.ts';
import type { ResponseItem, ResponsesRequest } from '../shared/responsesRequest.ts';
import type { ChatMessage, ContentPart, ToolDefinition } from '../shared/types.ts';
import type { ResponseMemory } from './responseMemory.ts';
import { type PipelineDeps, type PipelineInput, type PipelineResult, runPipeline } from './runPipeline.ts';
import { resolveWorkspace } from './workspace.ts';

export interface ResponsesInput {
  body: ResponsesRequest;
  headers: PipelineInput['headers'];
  requestId: string;
  /** The server made the id up (the client sent none): stored as it is, never scanned. */
  requestIdMinted?: boolean | undefined;
  signal: AbortSignal;
  /** Who is asking, where the server has a token (a digest of the one presented); absent without one. */
  credential?: string | undefined;
}

export interface ResponsesRun extends PipelineResult {
  /** The conversation as chat messages without the instructions: what the memory keeps. */
  history: ChatMessage[];
  /** Where this response may be continued from (the memory's scope). */
  scope: string;
}

/**
 * The workspace the request reads (its X-Ctx-Workspace, resolved as the pipeline does) and the
 * credential: a stored response is found again only by requests with the same two.
 */
export function responseScope(input: Pick<ResponsesInput, 'headers' | 'credential'>, deps: PipelineDeps): string {
  const workspace = resolveWorkspace(input.headers.workspace, deps.settings, deps.fs);
  return `${workspace}\u0000${input.credential ?? ''}`;
}

export async function runResponses(
  input: ResponsesInput,
  deps: PipelineDeps,
  memory: ResponseMemory,
): Promise<ResponsesRun> {
  const scope = responseScope(input, deps);
  const { request, history } = toChatRequest(input.body, memory, scope);
  const { headers, requestId, requestIdMinted, signal } = input;
  const result = await runPipeline({ request, headers, requestId, requestIdMinted, signal }, deps);
  return { ...result, history, scope };
}

export function toChatRequest(
  body: ResponsesRequest,
  memory: ResponseMemory,
  scope: string,
): { request: ChatRequest; history: ChatMessage[] } {
  const earlier = previousHistory(body.previous_response_id, memory, scope);
  const given = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : (body.input ?? []);
  const history = itemsToMessages(given, memory, scope, earlier);
  const messages: ChatMessage[] = body.instructions
    ? [{ role: 'system', content: body.instructions }, ...history]
    : history;
  if (!messages.some((message) => message.role === 'user' || message.role === 'tool')) {
    throw new BadRequestError(
      'input is empty: send the user message as a string or as input items.',
      'invalid_request',
      'input',
    );
  }
  const request: ChatRequest = { model: body.model, messages, stream: body.stream === true };
  const tools = (body.tools ?? []).map(toChatTool);
  if (tools.length > 0) request.tools = tools;
  if (body.tool_choice !== undefined && body.tool_choice !== null)
    request.tool_choice = toChatToolChoice(body.tool_choice);
  if (typeof body.max_output_tokens === 'number') request.max_completion_tokens = body.max_output_tokens;
  if (typeof body.temperature === 'number') request.temperature = body.temperature;
  if (typeof body.top_p === 'number') request.top_p = body.top_p;
  const format = toResponseFormat(body.text?.format);
  if (format) request.response_format = format;
  if (body.reasoning?.effort) request.reasoning_effort = body.reasoning.effort;
  return { request, history };
}

/** Unknown, forgotten, or made in another workspace: the same answer, which tells nothing of the others. */
function previousHistory(id: string | null | undefined, memory: ResponseMemory, scope: string): ChatMessage[] {
  if (!id) return [];
  const previous = memory.response(id, scope);
  if (!previous) {
    throw new BadRequestError(
      `previous_response_id "${id}" is not known to this ctxproxy: it keeps the last ${memory.maxResponses} responses in memory only, and forgets them on restart (and those sent with store: false); a response is known only to requests for the workspace that made it. Resend the whole conversation in input instead.`,
      'previous_response_not_found',
      'previous_response_id',
    );
  }
  return previous.history;
}

/** Input (or remembered output) items → chat messages, appended to `start`. */
export function itemsToMessages(
  items: ResponseItem[],
  memory: ResponseMemory,
  scope: string,
  start: ChatMessage[] = [],
): ChatMessage[] {
  const messages = [...start];
  for (const raw of items) {
    const item = raw.type === 'item_reference' ? referenced(raw, memory, scope) : raw;
    if (item === undefined) continue;
    const type = item.type ?? 'message';
    if (type === 'message') messages.push(toMessage(item));
    else if (type === 'function_call') addToolCall(messages, item);
    else if (type === 'function_call_output') {
      messages.push({
        role: 'tool',
        tool_call_id: requiredString(item, 'call_id'),
        content: textOf(item.output, 'function_call_output'),
      });
    } else if (type === 'reasoning') {
      // The model's earlier reasoning is not sent back, as with chat completions.
    } else {
      throw new BadRequestError(
        `input items of type "${String(type)}" are not supported by ctxproxy; use messages, function_call and function_call_output.`,
        'unsupported_input_item',
        'input',
      );
    }
  }
  return messages;
}

/**
 * The AI SDK's default provider sends earlier assistant messages and reasoning as
 * references when `store` is on. Reasoning is never sent to the model, so an
 * unknown reasoning reference is skipped; any other unknown one is a 400.
 */
function referenced(reference: ResponseItem, memory: ResponseMemory, scope: string): ResponseItem | undefined {
  const id = requiredString(reference, 'id');
  const item = memory.item(id, scope);
  if (!item && id.startsWith('rs_')) return undefined;
  if (!item) {
    throw new BadRequestError(
      `item_reference "${id}" is not known to this ctxproxy (it keeps recent responses in memory only); resend the item itself, or send store: false.`,
      'item_not_found',
      'input',
    );
  }
  return item;
}

const ROLES = new Set(['user', 'assistant', 'system', 'developer']);

function toMessage(item: ResponseItem): ChatMessage {
  const role = item.role;
  if (typeof role !== 'string' || !ROLES.has(role)) {
    throw new BadRequestError(
      `An input message has an unknown role ${JSON.stringify(role)}.`,
      'invalid_value',
      'input',
    );
  }
  const content = item.content;
  if (typeof content === 'string') return { role: role as ChatMessage['role'], content };
  if (!Array.isArray(content)) throw new BadRequestError('An input message has no content.', 'invalid_value', 'input');
  const parts = content.map(toContentPart);
  // Assistant and system turns are text; only a user turn may carry images.
  if (role !== 'user' || parts.every((part) => part.type === 'text')) {
    return { role: role as ChatMessage['role'], content: parts.map((p) => (p.type === 'text' ? p.text : '')).join('') };
  }
  return { role: 'user', content: parts };
}

function toContentPart(part: unknown): ContentPart {
  const p = (part ?? {}) as Record<string, unknown>;
  switch (p.type) {
    case 'input_text':
    case 'output_text':
    case 'text':
      return { type: 'text', text: typeof p.text === 'string' ? p.text : '' };
    case 'refusal':
      return { type: 'text', text: typeof p.refusal === 'string' ? p.refusal : '' };
    case 'input_image':
      if (typeof p.image_url === 'string') return { type: 'image_url', image_url: { url: p.image_url } };
      throw new BadRequestError(
        'input_image needs an image_url (a base64 data URL); file ids are not supported.',
        'unsupported_input',
        'input',
      );
    default:
      throw new BadRequestError(
        `content parts of type ${JSON.stringify(p.type)} are not supported; use input_text or input_image.`,
        'unsupported_input',
        'input',
      );
  }
}

/** Consecutive function calls become one assistant message with several tool calls, as chat has them. */
function addToolCall(messages: ChatMessage[], item: ResponseItem): void {
  const call = {
    id: requiredString(item, 'call_id'),
    type: 'function' as const,
    function: {
      name: requiredString(item, 'name'),
      arguments: typeof item.arguments === 'string' ? item.arguments : '{}',
    },
  };
  const last = messages.at(-1);
  if (last?.role === 'assistant') {
    messages[messages.length - 1] = { ...last, tool_calls: [...(last.tool_calls ?? []), call] };
  } else {
    messages.push({ role: 'assistant', content: null, tool_calls: [call] });
  }
}

function textOf(value: unknown, what: string): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map((part) => (toContentPart(part) as { text?: string }).text ?? '').join('');
  throw new BadRequestError(`${what} needs an output string.`, 'invalid_value', 'input');
}

function requiredString(item: ResponseItem, key: string): string {
  const value = item[key];
  if (typeof value === 'string' && value !== '') return value;
  throw new BadRequestError(`An input item of type ${String(item.type)} needs "${key}".`, 'invalid_value', 'input');
}

/** A hosted tool (any type but function) goes on as it is: the pipeline leaves it out with a warning (hostedTools.ts). */
function toChatTool(tool: ResponseItem): ToolDefinition | HostedTool {
  if (tool.type !== 'function') {
    if (typeof tool.type === 'string' && tool.type !== '') return { ...tool, type: tool.type };
    throw new BadRequestError('Every tool needs a "type".', 'invalid_value', 'tools');
  }
  const fn: ToolDefinition['function'] = { name: requiredString(tool, 'name') };
  if (typeof tool.description === 'string') fn.description = tool.description;
  if (tool.parameters && typeof tool.parameters === 'object')
    fn.parameters = tool.parameters as Record<string, unknown>;
  if (typeof tool.strict === 'boolean') fn.strict = tool.strict;
  return { type: 'function', function: fn };
}

function toChatToolChoice(choice: string | ResponseItem): unknown {
  if (typeof choice === 'string') return choice;
  if (choice.type === 'function' && typeof choice.name === 'string') {
    return { type: 'function', function: { name: choice.name } };
  }
  return choice.mode ?? 'auto';
}

function toResponseFormat(format: ResponseItem | null | undefined): ChatRequest['response_format'] {
  if (!format || format.type === 'text') return undefined;
  if (format.type === 'json_schema') {
    const { type: _type, ...schema } = format;
    return { type: 'json_schema', json_schema: schema };
  }
  return { ...format, type: String(format.type) };
}
