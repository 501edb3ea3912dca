// OpenAI chat request → Ollama /api/chat request. Pure: no I/O, throws only
// BadRequestError for what Ollama cannot express. We send only what the client
// set (no injected sampling defaults), plus num_ctx from the budget.

import type {
  ChatRequest as OllamaChatRequest,
  Message as OllamaMessage,
  Options as OllamaOptions,
  Tool as OllamaTool,
  ToolCall as OllamaToolCall,
} from 'ollama';
import { BadRequestError } from '../shared/errors.ts';
import type { UpstreamRequest } from '../shared/ports.ts';
import type { ChatMessage, ContentPart, ToolDefinition } from '../shared/types.ts';

export type OllamaThink = NonNullable<OllamaChatRequest['think']>;

/** The body we POST to /api/chat: the client's type plus `truncate`, which ollama-js 0.6.4 does not declare. */
export interface OllamaChatBody extends Omit<OllamaChatRequest, 'stream' | 'messages'> {
  messages: OllamaMessage[];
  stream: true;
  /** Ollama ≥ 0.12: false = fail instead of silently dropping old messages when the prompt exceeds num_ctx. */
  truncate?: boolean;
}

export function toOllamaChatRequest(request: UpstreamRequest): OllamaChatBody {
  const params = request.params;
  rejectUnsupported(params);
  const body: OllamaChatBody = { model: request.model, messages: toOllamaMessages(request.messages), stream: true };

  const tools = request.tools ?? [];
  // Ollama has no tool_choice; "none" is honoured by not offering the tools at all.
  if (tools.length > 0 && params.tool_choice !== 'none') body.tools = tools.map(toOllamaTool);

  const format = toOllamaFormat(params.response_format);
  if (format !== undefined) body.format = format;

  const think = request.think === false ? false : toOllamaThink(params.reasoning_effort, request.model);
  if (think !== undefined) body.think = think;

  const options = toOllamaOptions(params, request.numCtx);
  if (Object.keys(options).length > 0) body.options = options;
  if (request.numCtx !== undefined) body.truncate = false;
  return body;
}

export function toOllamaMessages(messages: ChatMessage[]): OllamaMessage[] {
  const toolNames = new Map<string, string>();
  return messages.map((message) => {
    for (const call of message.tool_calls ?? []) toolNames.set(call.id, call.function.name);
    const { text, images } = splitContent(message.content);
    const out: OllamaMessage = { role: message.role === 'developer' ? 'system' : message.role, content: text };
    if (images.length > 0) out.images = images;
    if (message.role === 'assistant' && message.tool_calls && message.tool_calls.length > 0) {
      out.tool_calls = message.tool_calls.map(
        (call): OllamaToolCall => ({
          function: { name: call.function.name, arguments: parseArguments(call.function.arguments, call.id) },
        }),
      );
    }
    if (message.role === 'tool') {
      const name = message.tool_call_id === undefined ? undefined : toolNames.get(message.tool_call_id);
      if (name !== undefined) out.tool_name = name;
      else if (message.name !== undefined) out.tool_name = message.name;
    }
    return out;
  });
}

function splitContent(content: ChatMessage['content']): { text: string; images: string[] } {
  if (content === null) return { text: '', images: [] };
  if (typeof content === 'string') return { text: content, images: [] };
  const texts: string[] = [];
  const images: string[] = [];
  for (const part of content) {
    if (part.type === 'text') texts.push(part.text);
    else images.push(imagePayload(part));
  }
  return { text: texts.join('\n'), images };
}

const DATA_URL = /^data:[^,;]*(?:;[^,;]*)*;base64,/i;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

function imagePayload(part: Extract<ContentPart, { type: 'image_url' }>): string {
  const url = typeof part.image_url === 'string' ? part.image_url : part.image_url.url;
  const prefix = DATA_URL.exec(url);
  if (prefix) {
    const payload = url.slice(prefix[0].length).replace(/\s+/g, '');
    if (BASE64.test(payload)) return payload;
    throw new BadRequestError('An image data URL does not hold valid base64.', 'invalid_image_url', 'messages');
  }
  const shown = /^https?:/i.test(url) ? 'an http(s) URL' : 'a URL that is not a base64 data URL';
  throw new BadRequestError(
    `An image was given as ${shown}; only base64 data URLs (data:image/png;base64,…) are supported, because ctxproxy does not fetch remote content.`,
    'unsupported_image_url',
    'messages',
  );
}

function parseArguments(text: string, callId: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text === '' ? '{}' : text);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // fall through to the error below
  }
  throw new BadRequestError(
    `The arguments of tool call "${callId}" are not a JSON object.`,
    'invalid_tool_arguments',
    'messages',
  );
}

function toOllamaTool(tool: ToolDefinition): OllamaTool {
  const fn: OllamaTool['function'] = { name: tool.function.name };
  if (tool.function.description !== undefined) fn.description = tool.function.description;
  if (tool.function.parameters !== undefined) {
    fn.parameters = tool.function.parameters as NonNullable<OllamaTool['function']['parameters']>;
  }
  return { type: 'function', function: fn };
}

function rejectUnsupported(params: Record<string, unknown>): void {
  if (typeof params.n === 'number' && params.n > 1) {
    throw new BadRequestError('Only n = 1 is supported: Ollama returns a single choice.', 'unsupported_parameter', 'n');
  }
}

function toOllamaFormat(value: unknown): OllamaChatBody['format'] | undefined {
  if (value === undefined || value === null) return undefined;
  const format = value as { type?: unknown; json_schema?: { schema?: unknown } };
  switch (format.type) {
    case 'text':
      return undefined;
    case 'json_object':
      return 'json';
    case 'json_schema': {
      const schema = format.json_schema?.schema;
      if (schema === null || typeof schema !== 'object') {
        throw new BadRequestError(
          'response_format json_schema needs a json_schema.schema object.',
          'invalid_value',
          'response_format',
        );
      }
      return schema;
    }
    default:
      throw new BadRequestError(
        `response_format type ${JSON.stringify(format.type)} is not supported; use text, json_object or json_schema.`,
        'invalid_value',
        'response_format',
      );
  }
}

/**
 * reasoning_effort → Ollama `think`. "none" turns thinking off. Only gpt-oss models
 * take a level ("low" | "medium" | "high"); for every other thinking model a level
 * would be an error or ignored, so any effort means `true`. "minimal" is the lowest
 * level, so it becomes "low" for gpt-oss.
 */
export function toOllamaThink(effort: unknown, model: string): OllamaThink | undefined {
  if (effort === undefined || effort === null) return undefined;
  if (effort === 'none') return false;
  // Ollama's own OpenAI layer takes `max`; Codex sends `xhigh` for its deepest setting.
  if (!['minimal', 'low', 'medium', 'high', 'xhigh', 'max'].includes(effort as string)) {
    throw new BadRequestError(
      `reasoning_effort ${JSON.stringify(effort)} is not supported; use none, minimal, low, medium, high, xhigh or max.`,
      'invalid_value',
      'reasoning_effort',
    );
  }
  if (!/gpt-oss/i.test(model)) return true;
  if (effort === 'minimal') return 'low';
  return effort === 'xhigh' || effort === 'max' ? 'high' : (effort as 'low' | 'medium' | 'high');
}

export function toOllamaOptions(params: Record<string, unknown>, numCtx: number | undefined): Partial<OllamaOptions> {
  const options: Partial<OllamaOptions> = {};
  const temperature = numberParam(params, 'temperature');
  if (temperature !== undefined) options.temperature = temperature;
  const topP = numberParam(params, 'top_p');
  if (topP !== undefined) options.top_p = topP;
  const topK = numberParam(params, 'top_k');
  if (topK !== undefined) options.top_k = topK;
  const seed = numberParam(params, 'seed');
  if (seed !== undefined) options.seed = seed;
  const presence = numberParam(params, 'presence_penalty');
  if (presence !== undefined) options.presence_penalty = presence;
  const frequency = numberParam(params, 'frequency_penalty');
  if (frequency !== undefined) options.frequency_penalty = frequency;
  const maxTokens = numberParam(params, 'max_completion_tokens') ?? numberParam(params, 'max_tokens');
  if (maxTokens !== undefined) options.num_predict = maxTokens;
  const stop = params.stop;
  if (typeof stop === 'string') options.stop = [stop];
  else if (Array.isArray(stop) && stop.length > 0)
    options.stop = stop.filter((s): s is string => typeof s === 'string');
  if (numCtx !== undefined) options.num_ctx = numCtx;
  return options;
}

function numberParam(params: Record<string, unknown>, key: string): number | undefined {
  const value = params[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}
