// Upstream events → the Responses API's shapes: the `response` object for a
// non-streaming client, or the SSE event sequence for a streaming one
// (response.created, response.in_progress, response.output_item.added,
// response.content_part.added, response.output_text.delta …,
// response.completed with usage). One builder makes both, so they agree.

import { randomUUID } from 'node:crypto';
import { toProxyError } from '../shared/errors.ts';
import type { ResponseItem, ResponsesRequest } from '../shared/responsesRequest.ts';
import type { FinishReason, ToolCall, UpstreamEvent, Usage } from '../shared/types.ts';

export interface ResponseShell {
  id: string;
  createdAt: number;
  body: ResponsesRequest;
}

export function newResponseShell(body: ResponsesRequest, nowMs: number): ResponseShell {
  return { id: `resp_${hex()}`, createdAt: Math.floor(nowMs / 1000), body };
}

function hex(): string {
  return randomUUID().replaceAll('-', '');
}

type Status = 'in_progress' | 'completed' | 'incomplete' | 'failed';

export function responseObject(
  shell: ResponseShell,
  status: Status,
  output: ResponseItem[],
  usage?: Usage,
  error?: { code: string; message: string },
): Record<string, unknown> {
  const { body } = shell;
  const input = usage?.promptTokens ?? 0;
  const outputTokens = usage?.completionTokens ?? 0;
  return {
    id: shell.id,
    object: 'response',
    created_at: shell.createdAt,
    status,
    background: false,
    error: error ?? null,
    incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model: body.model,
    output,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: body.previous_response_id ?? null,
    reasoning: { effort: body.reasoning?.effort ?? null, summary: null },
    store: body.store ?? true,
    temperature: body.temperature ?? null,
    text: { format: body.text?.format ?? { type: 'text' } },
    tool_choice: body.tool_choice ?? 'auto',
    tools: body.tools ?? [],
    top_p: body.top_p ?? null,
    truncation: 'disabled',
    usage:
      status === 'in_progress'
        ? null
        : {
            input_tokens: input,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens: outputTokens,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: input + outputTokens,
          },
    user: null,
    metadata: body.metadata ?? {},
  };
}

type Event = Record<string, unknown> & { type: string };

/** Builds the output items from upstream events, returning the stream events each step causes. */
class OutputBuilder {
  readonly items: ResponseItem[] = [];
  private open: { kind: 'reasoning' | 'message'; index: number; id: string; text: string } | undefined;

  reasoning(delta: string): Event[] {
    const events = this.openItem('reasoning');
    const open = this.open as NonNullable<typeof this.open>;
    open.text += delta;
    events.push({ type: 'response.reasoning_summary_text.delta', ...this.at(open), summary_index: 0, delta });
    return events;
  }

  text(delta: string): Event[] {
    const events = this.openItem('message');
    const open = this.open as NonNullable<typeof this.open>;
    open.text += delta;
    events.push({ type: 'response.output_text.delta', ...this.at(open), content_index: 0, delta, logprobs: [] });
    return events;
  }

  toolCalls(calls: ToolCall[]): Event[] {
    const events = this.close();
    for (const call of calls) {
      const id = `fc_${hex()}`;
      const index = this.items.length;
      const item = { id, type: 'function_call', status: 'in_progress', call_id: call.id, name: call.function.name };
      this.items.push({ ...item, arguments: call.function.arguments, status: 'completed' });
      const at = { item_id: id, output_index: index };
      events.push(
        { type: 'response.output_item.added', output_index: index, item: { ...item, arguments: '' } },
        { type: 'response.function_call_arguments.delta', ...at, delta: call.function.arguments },
        {
          type: 'response.function_call_arguments.done',
          ...at,
          name: call.function.name,
          arguments: call.function.arguments,
        },
        { type: 'response.output_item.done', output_index: index, item: this.items[index] },
      );
    }
    return events;
  }

  /** Ends the item being written, if any. */
  close(): Event[] {
    const open = this.open;
    if (!open) return [];
    this.open = undefined;
    const at = this.at(open);
    if (open.kind === 'reasoning') {
      const part = { type: 'summary_text', text: open.text };
      const item = { id: open.id, type: 'reasoning', summary: [part] };
      this.items[open.index] = item;
      return [
        { type: 'response.reasoning_summary_text.done', ...at, summary_index: 0, text: open.text },
        { type: 'response.reasoning_summary_part.done', ...at, summary_index: 0, part },
        { type: 'response.output_item.done', output_index: open.index, item },
      ];
    }
    const part = { type: 'output_text', text: open.text, annotations: [], logprobs: [] };
    const item = { id: open.id, type: 'message', status: 'completed', role: 'assistant', content: [part] };
    this.items[open.index] = item;
    return [
      { type: 'response.output_text.done', ...at, content_index: 0, text: open.text, logprobs: [] },
      { type: 'response.content_part.done', ...at, content_index: 0, part },
      { type: 'response.output_item.done', output_index: open.index, item },
    ];
  }

  private openItem(kind: 'reasoning' | 'message'): Event[] {
    if (this.open?.kind === kind) return [];
    const events = this.close();
    const id = `${kind === 'reasoning' ? 'rs' : 'msg'}_${hex()}`;
    const index = this.items.length;
    // The model's thinking goes out as the reasoning item's summary, as Ollama's
    // own /v1/responses sends it: the AI SDK and Codex read only the summary, so
    // as raw `reasoning_text` content they showed an empty reasoning.
    const item =
      kind === 'reasoning'
        ? { id, type: 'reasoning', summary: [] }
        : { id, type: 'message', status: 'in_progress', role: 'assistant', content: [] };
    this.items.push(item);
    this.open = { kind, index, id, text: '' };
    const added = { item_id: id, output_index: index };
    events.push(
      { type: 'response.output_item.added', output_index: index, item },
      kind === 'reasoning'
        ? {
            type: 'response.reasoning_summary_part.added',
            ...added,
            summary_index: 0,
            part: { type: 'summary_text', text: '' },
          }
        : {
            type: 'response.content_part.added',
            ...added,
            content_index: 0,
            part: { type: 'output_text', text: '', annotations: [], logprobs: [] },
          },
    );
    return events;
  }

  private at(open: { index: number; id: string }) {
    return { item_id: open.id, output_index: open.index };
  }
}

export interface ResponseDone {
  output: ResponseItem[];
  response: Record<string, unknown>;
}

function applyEvent(builder: OutputBuilder, event: UpstreamEvent): Event[] {
  if (event.type !== 'delta') return [];
  const events: Event[] = [];
  if (event.reasoning) events.push(...builder.reasoning(event.reasoning));
  if (event.content) events.push(...builder.text(event.content));
  if (event.toolCalls?.length) events.push(...builder.toolCalls(event.toolCalls));
  return events;
}

function finalStatus(reason: FinishReason): Status {
  return reason === 'length' ? 'incomplete' : 'completed';
}

/** Reads the whole answer and returns the `response` object. */
export async function aggregateResponse(
  events: AsyncIterable<UpstreamEvent>,
  shell: ResponseShell,
): Promise<ResponseDone> {
  const builder = new OutputBuilder();
  for await (const event of events) {
    applyEvent(builder, event);
    if (event.type === 'done') {
      builder.close();
      return {
        output: builder.items,
        response: responseObject(shell, finalStatus(event.finishReason), builder.items, event.usage),
      };
    }
  }
  throw new Error('the upstream stream ended without a final event');
}

/**
 * The SSE body: `event: TYPE` and `data: {...}` frames with increasing
 * sequence numbers, ending with response.completed (or response.incomplete).
 * An error after the stream started is an `error` event then response.failed.
 */
export async function* responseEventStream(
  events: AsyncIterable<UpstreamEvent>,
  shell: ResponseShell,
  onDone: (done: ResponseDone) => void,
): AsyncGenerator<string, void, undefined> {
  let sequence = 0;
  const frame = (event: Event) =>
    `event: ${event.type}\ndata: ${JSON.stringify({ ...event, sequence_number: sequence++ })}\n\n`;
  const builder = new OutputBuilder();
  yield frame({ type: 'response.created', response: responseObject(shell, 'in_progress', []) }) +
    frame({ type: 'response.in_progress', response: responseObject(shell, 'in_progress', []) });
  try {
    for await (const event of events) {
      let out = applyEvent(builder, event).map(frame).join('');
      if (event.type === 'done') {
        out += builder.close().map(frame).join('');
        const status = finalStatus(event.finishReason);
        const response = responseObject(shell, status, builder.items, event.usage);
        out += frame({ type: status === 'completed' ? 'response.completed' : 'response.incomplete', response });
        yield out;
        onDone({ output: builder.items, response });
        return;
      }
      if (out) yield out;
    }
    throw new Error('the upstream stream ended without a final event');
  } catch (error) {
    const failure = toProxyError(error);
    const code = failure.code ?? 'server_error';
    yield frame({ type: 'error', code, message: failure.message, param: failure.param }) +
      frame({
        type: 'response.failed',
        response: responseObject(shell, 'failed', builder.items, undefined, { code, message: failure.message }),
      });
  }
}
