// Upstream events → Anthropic Messages shapes: the `message` object for a
// non-streaming client, or the SSE event sequence for a streaming one
// (message_start, ping, content_block_start / _delta / _stop per block,
// message_delta with stop_reason and usage, message_stop). One builder makes
// both, so they agree; the blocks follow Ollama's own Anthropic layer:
// thinking, then text, then one tool_use block per call.

import { randomUUID } from 'node:crypto';
import { toProxyError } from '../shared/errors.ts';
import type { FinishReason, ToolCall, UpstreamEvent, Usage } from '../shared/types.ts';
import { anthropicErrorBody } from './anthropicErrors.ts';

export interface MessageShell {
  id: string;
  /** The model as the client named it (a `+mode` suffix included), as Anthropic echoes it. */
  model: string;
  /** The budget's estimate of the prompt, for message_start (the upstream's count comes at the end). */
  estimatedInputTokens: number;
}

export function newMessageShell(model: string, estimatedInputTokens: number): MessageShell {
  return { id: `msg_${randomUUID().replaceAll('-', '')}`, model, estimatedInputTokens };
}

type Block =
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

type Event = Record<string, unknown> & { type: string };

/** Builds the content blocks from upstream events, returning the stream events each step causes. */
class BlockBuilder {
  readonly blocks: Block[] = [];
  private open: 'thinking' | 'text' | undefined;

  thinking(delta: string): Event[] {
    const events = this.openBlock('thinking');
    (this.blocks.at(-1) as Extract<Block, { type: 'thinking' }>).thinking += delta;
    events.push(this.delta({ type: 'thinking_delta', thinking: delta }));
    return events;
  }

  text(delta: string): Event[] {
    const events = this.openBlock('text');
    (this.blocks.at(-1) as Extract<Block, { type: 'text' }>).text += delta;
    events.push(this.delta({ type: 'text_delta', text: delta }));
    return events;
  }

  toolCalls(calls: ToolCall[]): Event[] {
    const events = this.close();
    for (const call of calls) {
      const input = argumentsObject(call.function.arguments);
      const index = this.blocks.length;
      this.blocks.push({ type: 'tool_use', id: call.id, name: call.function.name, input });
      events.push(
        {
          type: 'content_block_start',
          index,
          content_block: { type: 'tool_use', id: call.id, name: call.function.name, input: {} },
        },
        {
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json: JSON.stringify(input) },
        },
        { type: 'content_block_stop', index },
      );
    }
    return events;
  }

  hasToolUse(): boolean {
    return this.blocks.some((block) => block.type === 'tool_use');
  }

  /** Ends the thinking or text block being written, if any. */
  close(): Event[] {
    if (!this.open) return [];
    this.open = undefined;
    return [{ type: 'content_block_stop', index: this.blocks.length - 1 }];
  }

  private openBlock(kind: 'thinking' | 'text'): Event[] {
    if (this.open === kind) return [];
    const events = this.close();
    // The SDK accumulates into the start block's own field, so it is present and empty.
    const block: Block =
      kind === 'thinking' ? { type: 'thinking', thinking: '', signature: '' } : { type: 'text', text: '' };
    this.blocks.push(block);
    this.open = kind;
    events.push({ type: 'content_block_start', index: this.blocks.length - 1, content_block: { ...block } });
    return events;
  }

  private delta(delta: Record<string, unknown>): Event {
    return { type: 'content_block_delta', index: this.blocks.length - 1, delta };
  }
}

/** A model's arguments that are not a JSON object become `{}`: the client must be able to parse `input`. */
function argumentsObject(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text === '' ? '{}' : text);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // fall through
  }
  return {};
}

function applyEvent(builder: BlockBuilder, event: UpstreamEvent): Event[] {
  if (event.type !== 'delta') return [];
  const events: Event[] = [];
  if (event.reasoning) events.push(...builder.thinking(event.reasoning));
  if (event.content) events.push(...builder.text(event.content));
  if (event.toolCalls?.length) events.push(...builder.toolCalls(event.toolCalls));
  return events;
}

/**
 * The upstream's finish → Anthropic's stop_reason. A stop sequence cannot be
 * told from a natural end (Ollama and OpenAI-compatible servers both say
 * "stop" and cut the sequence), so, as in Ollama's layer, both are end_turn.
 */
function stopReason(reason: FinishReason, toolUse: boolean): 'end_turn' | 'max_tokens' | 'tool_use' {
  if (toolUse || reason === 'tool_calls') return 'tool_use';
  return reason === 'length' ? 'max_tokens' : 'end_turn';
}

function usageBody(usage: Usage | undefined, shell: MessageShell) {
  return {
    input_tokens: usage?.promptTokens ?? shell.estimatedInputTokens,
    output_tokens: usage?.completionTokens ?? 0,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  };
}

/** Reads the whole answer and returns the `message` object. */
export async function aggregateMessage(
  events: AsyncIterable<UpstreamEvent>,
  shell: MessageShell,
): Promise<Record<string, unknown>> {
  const builder = new BlockBuilder();
  for await (const event of events) {
    applyEvent(builder, event);
    if (event.type === 'done') {
      return {
        id: shell.id,
        type: 'message',
        role: 'assistant',
        model: shell.model,
        content: builder.blocks,
        stop_reason: stopReason(event.finishReason, builder.hasToolUse()),
        stop_sequence: null,
        usage: usageBody(event.usage, shell),
      };
    }
  }
  throw new Error('the upstream stream ended without a final event');
}

/**
 * The SSE body: `event: TYPE` and `data: {...}` frames. An error after the
 * stream started is an `error` event in Anthropic's shape, which the SDKs throw.
 */
export async function* messageEventStream(
  events: AsyncIterable<UpstreamEvent>,
  shell: MessageShell,
): AsyncGenerator<string, void, undefined> {
  const frame = (event: Event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
  const builder = new BlockBuilder();
  const start = {
    id: shell.id,
    type: 'message',
    role: 'assistant',
    model: shell.model,
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { ...usageBody(undefined, shell), output_tokens: 0 },
  };
  yield frame({ type: 'message_start', message: start }) + frame({ type: 'ping' });
  try {
    for await (const event of events) {
      let out = applyEvent(builder, event).map(frame).join('');
      if (event.type === 'done') {
        out += builder.close().map(frame).join('');
        out += frame({
          type: 'message_delta',
          delta: { stop_reason: stopReason(event.finishReason, builder.hasToolUse()), stop_sequence: null },
          usage: usageBody(event.usage, shell),
        });
        yield out + frame({ type: 'message_stop' });
        return;
      }
      if (out) yield out;
    }
    throw new Error('the upstream stream ended without a final event');
  } catch (error) {
    yield frame(anthropicErrorBody(toProxyError(error)));
  }
}
