// Upstream events → OpenAI's chat-completion shapes: one JSON object for a
// non-streaming client, or the exact SSE chunk sequence for a streaming one.

import { randomUUID } from 'node:crypto';
import { type ProxyError, toProxyError } from '../shared/errors.ts';
import type { FinishReason, ToolCall, UpstreamEvent, Usage } from '../shared/types.ts';

export interface ResponseIdentity {
  id: string;
  created: number;
  model: string;
}

/** 122 random bits as hex; randomUUID draws from a pre-filled entropy cache, randomBytes makes a call per id. */
export function newCompletionIdentity(model: string, nowMs: number): ResponseIdentity {
  return { id: `chatcmpl-${randomUUID().replaceAll('-', '')}`, created: Math.floor(nowMs / 1000), model };
}

function usageBody(usage: Usage | undefined) {
  const prompt = usage?.promptTokens ?? 0;
  const completion = usage?.completionTokens ?? 0;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/** Reads the whole answer and returns OpenAI's `chat.completion` object. */
export async function aggregateCompletion(events: AsyncIterable<UpstreamEvent>, identity: ResponseIdentity) {
  let content = '';
  let reasoning = '';
  const toolCalls: ToolCall[] = [];
  let finishReason: FinishReason = 'stop';
  let usage: Usage | undefined;
  for await (const event of events) {
    if (event.type === 'delta') {
      content += event.content ?? '';
      reasoning += event.reasoning ?? '';
      if (event.toolCalls) toolCalls.push(...event.toolCalls);
    } else {
      finishReason = event.finishReason;
      usage = event.usage;
    }
  }
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: content === '' && toolCalls.length > 0 ? null : content,
  };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  if (reasoning) {
    message.reasoning = reasoning;
    message.reasoning_content = reasoning;
  }
  return {
    id: identity.id,
    object: 'chat.completion',
    created: identity.created,
    model: identity.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
    usage: usageBody(usage),
  };
}

const encoder = new TextEncoder();

/**
 * The SSE body, as the text of each write: role on the first chunk only, the
 * finish reason on its own chunk with an empty delta, a usage chunk with
 * `choices: []` only when asked, then `[DONE]`. An error after the stream
 * started is sent as an `error` frame and the stream ends without `[DONE]`.
 * The frames of one upstream event leave in one write. Stopping early (the
 * client left) ends the upstream iteration, so the pipeline can stop the model.
 */
export async function* sseChunks(
  events: AsyncIterable<UpstreamEvent>,
  identity: ResponseIdentity,
  options: { includeUsage: boolean; onError?: (error: ProxyError) => void },
): AsyncGenerator<string, void, undefined> {
  const iterator = events[Symbol.asyncIterator]();
  const extra = options.includeUsage ? { usage: null } : {};
  let toolIndex = 0;
  const frame = (choices: unknown[], more: Record<string, unknown> = extra) =>
    `data: ${JSON.stringify({ id: identity.id, object: 'chat.completion.chunk', created: identity.created, model: identity.model, choices, ...more })}\n\n`;
  const choice = (delta: Record<string, unknown>, finishReason: FinishReason | null = null) => ({
    index: 0,
    delta,
    logprobs: null,
    finish_reason: finishReason,
  });

  try {
    yield frame([choice({ role: 'assistant', content: '' })]);
    for (;;) {
      let out = '';
      let last = false;
      try {
        const next = await iterator.next();
        if (next.done) throw new Error('the upstream stream ended without a final event');
        const event = next.value;
        if (event.type === 'delta') {
          if (event.reasoning)
            out += frame([choice({ reasoning: event.reasoning, reasoning_content: event.reasoning })]);
          if (event.content) out += frame([choice({ content: event.content })]);
          if (event.toolCalls?.length) {
            const calls = event.toolCalls.map((call) => ({ index: toolIndex++, ...call }));
            out += frame([choice({ tool_calls: calls })]);
          }
        } else {
          out += frame([choice({}, event.finishReason)]);
          if (options.includeUsage) out += frame([], { usage: usageBody(event.usage) });
          out += 'data: [DONE]\n\n';
          last = true;
        }
      } catch (error) {
        const failure = toProxyError(error);
        options.onError?.(failure);
        yield `${out}data: ${JSON.stringify(failure.toBody())}\n\n`;
        return;
      }
      if (out) yield out;
      if (last) return;
    }
  } finally {
    // After the last event this lets the pipeline finish its bookkeeping (the audit snapshot)
    // now; after an early stop it ends the upstream call.
    await iterator.return?.();
  }
}

/** The SSE chunks as a web stream, for hosts that are not Node's HTTP server. */
export function sseStream(chunks: AsyncGenerator<string, void, undefined>): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await chunks.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    async cancel() {
      await chunks.return(undefined);
    },
  });
}
