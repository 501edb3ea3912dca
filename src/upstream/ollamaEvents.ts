// Ollama /api/chat stream lines → UpstreamEvents. Pure and stateful per stream:
// it remembers whether a tool call was seen, for the finish reason.

import { randomBytes } from 'node:crypto';
import type { ChatResponse } from 'ollama';
import type { FinishReason, ToolCall, UpstreamEvent } from '../shared/types.ts';

/** A tool call as Ollama streams it; recent versions add an `id` the client's type lacks. */
interface OllamaStreamedToolCall {
  id?: unknown;
  function?: { name?: unknown; arguments?: unknown };
}

export function newToolCallId(): string {
  return `call_${randomBytes(12).toString('base64url')}`;
}

export interface OllamaEventMapper {
  /** Events for one stream line: at most one delta, then `done` when the line is the last. */
  map(line: ChatResponse): UpstreamEvent[];
}

export function createOllamaEventMapper(makeId: () => string = newToolCallId): OllamaEventMapper {
  let sawToolCall = false;
  return {
    map(line) {
      const events: UpstreamEvent[] = [];
      const message = line.message as ChatResponse['message'] | undefined;
      const content = message?.content;
      const thinking = message?.thinking;
      const toolCalls = toToolCalls(message?.tool_calls as OllamaStreamedToolCall[] | undefined, makeId);
      if (toolCalls.length > 0) sawToolCall = true;
      if (content || thinking || toolCalls.length > 0) {
        events.push({
          type: 'delta',
          ...(content ? { content } : {}),
          ...(thinking ? { reasoning: thinking } : {}),
          ...(toolCalls.length > 0 ? { toolCalls } : {}),
        });
      }
      if (line.done) {
        const finishReason: FinishReason =
          line.done_reason === 'length' ? 'length' : sawToolCall ? 'tool_calls' : 'stop';
        const promptTokens = countOf(line.prompt_eval_count);
        const completionTokens = countOf(line.eval_count);
        events.push({
          type: 'done',
          finishReason,
          ...(promptTokens !== undefined || completionTokens !== undefined
            ? { usage: { promptTokens: promptTokens ?? 0, completionTokens: completionTokens ?? 0 } }
            : {}),
        });
      }
      return events;
    },
  };
}

function toToolCalls(calls: OllamaStreamedToolCall[] | undefined, makeId: () => string): ToolCall[] {
  if (!Array.isArray(calls)) return [];
  return calls.map((call) => ({
    id: typeof call.id === 'string' && call.id !== '' ? call.id : makeId(),
    type: 'function',
    function: {
      name: typeof call.function?.name === 'string' ? call.function.name : '',
      arguments: argumentsText(call.function?.arguments),
    },
  }));
}

function argumentsText(value: unknown): string {
  // Ollama sends an object; OpenAI clients expect the JSON text of it.
  return typeof value === 'string' ? value : JSON.stringify(value ?? {});
}

function countOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}
