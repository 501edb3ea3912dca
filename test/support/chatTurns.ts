// Drives a multi-turn chat through the real server with the real `openai`
// client, the way a chat app does: each turn sends the whole history as the
// client keeps it (its own messages and the replies it got, never our context).

import type OpenAI from 'openai';
import type { ChatMessage, Snapshot } from '../../src/shared/types.ts';
import type { FakeOllama } from './fakeOllama.ts';
import type { RunningProxy } from './proxy.ts';

export type WireMessage = { role: string; content: string };

export interface TurnResult {
  reply: string;
  headers: Headers;
  /** What the fake upstream received for this request. */
  received: WireMessage[];
  snapshot: Snapshot;
}

export interface TurnOptions {
  model: string;
  /** X-Ctx-Mode */
  mode?: string | undefined;
  stream?: boolean | undefined;
}

export async function chatTurn(
  proxy: RunningProxy,
  client: OpenAI,
  fake: FakeOllama,
  history: ChatMessage[],
  options: TurnOptions,
): Promise<TurnResult> {
  const before = fake.chats.length;
  const requestOptions = options.mode ? { headers: { 'X-Ctx-Mode': options.mode } } : {};
  const messages = history as OpenAI.Chat.ChatCompletionMessageParam[];
  let reply = '';
  let headers: Headers;
  if (options.stream) {
    const { data, response } = await client.chat.completions
      .create({ model: options.model, messages, stream: true }, requestOptions)
      .withResponse();
    for await (const chunk of data) reply += chunk.choices[0]?.delta.content ?? '';
    headers = response.headers;
  } else {
    const { data, response } = await client.chat.completions
      .create({ model: options.model, messages }, requestOptions)
      .withResponse();
    reply = data.choices[0]?.message.content ?? '';
    headers = response.headers;
  }
  if (fake.chats.length !== before + 1)
    throw new Error(`expected one upstream request, got ${fake.chats.length - before}`);
  const received = fake.chats.at(-1)?.body.messages as WireMessage[];
  await proxy.store.flush();
  const snapshot = proxy.store.get(headers.get('x-ctx-snapshot-id') ?? '');
  if (!snapshot) throw new Error('no snapshot for the turn');
  return { reply, headers, received, snapshot };
}

/** The history the client keeps after a turn: its messages plus the reply it got. */
export function withReply(history: ChatMessage[], reply: string, next: string): ChatMessage[] {
  return [...history, { role: 'assistant', content: reply }, { role: 'user', content: next }];
}

/** Messages as a byte string, one JSON line each: turn N+1 should begin with turn N's. */
export function serialize(messages: readonly WireMessage[]): string {
  return messages.map((m) => `${JSON.stringify({ role: m.role, content: m.content })}\n`).join('');
}
