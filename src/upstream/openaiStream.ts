// An OpenAI-compatible SSE stream (llama.cpp server, LM Studio, vLLM) →
// UpstreamEvents. Tool-call fragments are gathered by index and emitted whole,
// once, before `done`; the finish reason follows the same precedence as Ollama's:
// length > tool_calls > stop.

import type { FinishReason, ToolCall, UpstreamEvent, Usage } from '../shared/types.ts';
import { StreamEndedEarly } from './upstreamErrors.ts';

interface ChunkToolCall {
  index?: number;
  id?: string;
  function?: { name?: string; arguments?: string };
}

interface Chunk {
  error?: unknown;
  choices?: {
    delta?: {
      content?: string | null;
      reasoning_content?: string | null;
      reasoning?: string | null;
      tool_calls?: ChunkToolCall[];
    };
    finish_reason?: string | null;
  }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
}

/** Thrown for an `{"error": …}` event; the adapter classifies it like any other failure. */
export class StreamReportedError extends Error {
  override readonly name = 'StreamReportedError';
}

/** Yields the `data:` payloads of an SSE body, ending at `[DONE]`. */
export async function* sseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  for await (const bytes of body) {
    buffer += decoder.decode(bytes, { stream: true });
    let newline = buffer.search(/\r?\n/);
    while (newline !== -1) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(buffer[newline] === '\r' ? newline + 2 : newline + 1);
      if (line === '') {
        if (data.length > 0) yield data.join('\n');
        data = [];
      } else if (line.startsWith('data:')) {
        data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
      }
      newline = buffer.search(/\r?\n/);
    }
  }
  if (buffer.startsWith('data:')) data.push(buffer.slice(buffer.startsWith('data: ') ? 6 : 5));
  if (data.length > 0) yield data.join('\n');
}

export async function* openAIEvents(
  payloads: AsyncIterable<string>,
  makeId: () => string,
): AsyncGenerator<UpstreamEvent> {
  const calls = new Map<number, { id?: string; name: string; arguments: string }>();
  let finish: string | undefined;
  let usage: Usage | undefined;
  let sawDone = false;
  for await (const payload of payloads) {
    if (payload.trim() === '[DONE]') {
      sawDone = true;
      break;
    }
    const chunk = JSON.parse(payload) as Chunk;
    if (chunk.error !== undefined) throw new StreamReportedError(errorText(chunk.error));
    if (chunk.usage) {
      usage = { promptTokens: chunk.usage.prompt_tokens ?? 0, completionTokens: chunk.usage.completion_tokens ?? 0 };
    }
    const choice = chunk.choices?.[0];
    if (!choice) continue;
    const content = choice.delta?.content ?? undefined;
    const reasoning = choice.delta?.reasoning_content ?? choice.delta?.reasoning ?? undefined;
    if (content || reasoning) {
      yield { type: 'delta', ...(content ? { content } : {}), ...(reasoning ? { reasoning } : {}) };
    }
    for (const fragment of choice.delta?.tool_calls ?? []) {
      const index = fragment.index ?? 0;
      const call = calls.get(index) ?? { name: '', arguments: '' };
      if (fragment.id) call.id = fragment.id;
      if (fragment.function?.name) call.name += fragment.function.name;
      if (fragment.function?.arguments) call.arguments += fragment.function.arguments;
      calls.set(index, call);
    }
    if (choice.finish_reason) finish = choice.finish_reason;
  }
  if (!sawDone && finish === undefined) throw new StreamEndedEarly();

  if (calls.size > 0) {
    const toolCalls: ToolCall[] = [...calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, call]) => ({
        id: call.id ?? makeId(),
        type: 'function',
        function: { name: call.name, arguments: call.arguments === '' ? '{}' : call.arguments },
      }));
    yield { type: 'delta', toolCalls };
  }
  const finishReason: FinishReason =
    finish === 'length' ? 'length' : calls.size > 0 || finish === 'tool_calls' ? 'tool_calls' : 'stop';
  yield { type: 'done', finishReason, ...(usage ? { usage } : {}) };
}

function errorText(error: unknown): string {
  if (typeof error === 'string') return error;
  if (error !== null && typeof error === 'object' && typeof (error as { message?: unknown }).message === 'string') {
    return (error as { message: string }).message;
  }
  return JSON.stringify(error);
}
