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
import type { ChatMessage, ToolDefinition } from '../shared/types.ts';
import { MESSAGES_REQUEST_FIELDS } from './fieldPolicy.ts';
import { type LeftOut, leaveOut, requiredString, toChatMessages } from './messagesContent.ts';
import { type PipelineDeps, type PipelineInput, type PipelineResult, prepare, runPipeline } from './runPipeline.ts';

export interface MessagesInput {
  body: MessagesRequest;
  headers: PipelineInput['headers'];
  requestId: string;
  requestIdMinted?: boolean | undefined;
  signal: AbortSignal;
}

export async function runMessages(input: MessagesInput, deps: PipelineDeps): Promise<PipelineResult> {
  const { body, ...facts } = input;
  const { request, warnings } = toChatRequest(body);
  return runPipeline({ ...facts, request, warnings }, deps);
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
  const { body, ...facts } = input;
  const { request } = promptRequest(body);
  // No num_ctx is sent, so none is remembered as the model's loaded window.
  const prepared = await prepare({ ...facts, request }, { ...deps, loadedNumCtx: undefined });
  const { budget } = prepared.budgeted.turn;
  return { inputTokens: budget.estimatedPromptTokens, modeUsed: budget.modeUsed };
}

interface Mapping {
  warnings: string[];
  leftOut: LeftOut;
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
  for (const message of body.messages) messages.push(...toChatMessages(message, mapping.leftOut));
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
      leaveOut(mapping.leftOut, family ? `server tool(s) ${family}` : 'server tool(s) of another type');
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
 * thinking or output_config.effort → reasoning_effort (Ollama `think`): disabled
 * turns it off; adaptive leaves it to the model's own default, so a model that
 * cannot think still answers (Claude Code sends adaptive with every turn, and
 * Ollama refuses `think` for such a model); any other type (enabled,
 * between_tools …) turns it on, at the effort asked for or medium.
 */
function reasoningEffort(body: MessagesRequest | CountTokensRequest): string | undefined {
  const type = body.thinking?.type;
  if (type === 'disabled') return 'none';
  if (type === 'adaptive') return undefined;
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
