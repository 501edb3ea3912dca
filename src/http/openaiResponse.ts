// Upstream events → OpenAI's chat-completion shapes: one JSON object for a
// non-streaming client, or the exact SSE chunk sequence for a streaming one.

import { randomBytes } from 'node:crypto';
import { type ProxyError, toProxyError } from '../shared/errors.ts';
import type { FinishReason, ToolCall, UpstreamEvent, Usage } from '../shared/types.ts';

export interface ResponseIdentity {
  id: string;
  created: number;
  model: string;
}

export function newCompletionIdentity(model: string, nowMs: number): ResponseIdentity {
  return { id: `chatcmpl-${randomBytes(12).toString('base64url')}`, created: Math.floor(nowMs / 1000), model };
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
 * The SSE body: role on the first chunk only, the finish reason on its own
 * chunk with an empty delta, a usage chunk with `choices: []` only when asked,
 * then `[DONE]`. An error after the stream started is sent as an `error` frame
 * and the stream ends without `[DONE]`.
 */
export function sseStream(
  events: AsyncIterable<UpstreamEvent>,
  identity: ResponseIdentity,
  options: { includeUsage: boolean; onError?: (error: ProxyError) => void },
): ReadableStream<Uint8Array> {
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

  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(frame([choice({ role: 'assistant', content: '' })])));
    },
    async pull(controller) {
      // One write per upstream event: the frames of an event leave together.
      let out = '';
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
          if (out) controller.enqueue(encoder.encode(out));
          return;
        }
        out += frame([choice({}, event.finishReason)]);
        if (options.includeUsage) out += frame([], { usage: usageBody(event.usage) });
        controller.enqueue(encoder.encode(`${out}data: [DONE]\n\n`));
        controller.close();
        // Let the pipeline finish its bookkeeping (the audit snapshot) now that the answer is complete.
        await iterator.return?.();
      } catch (error) {
        const failure = toProxyError(error);
        options.onError?.(failure);
        try {
          controller.enqueue(encoder.encode(`${out}data: ${JSON.stringify(failure.toBody())}\n\n`));
          controller.close();
        } catch {
          // The client is already gone; nothing left to tell it.
        }
      }
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}
