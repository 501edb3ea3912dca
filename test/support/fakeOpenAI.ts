// A small OpenAI-compatible server (what llama.cpp server, LM Studio and vLLM
// speak) on 127.0.0.1: /v1/chat/completions streamed as SSE chunks, tool calls
// split into argument fragments, a usage chunk when asked, then [DONE] (one
// `chat.completion` object when the request does not ask for a stream);
// /v1/completions streamed the same way; /v1/embeddings; and /v1/models.
// Scriptable per model to fail.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeOpenAIReply {
  content?: string;
  /** Sent as `reasoning_content` deltas (llama.cpp, vLLM). */
  reasoning?: string;
  /** `arguments` is the JSON text, streamed in two fragments. */
  toolCalls?: { name: string; arguments: string; id?: string }[];
  finishReason?: 'stop' | 'length' | 'tool_calls';
  /** Send an `{"error":{…}}` event after the content, then end. */
  errorMidStream?: boolean;
  /** Keep the stream open after the content, sending nothing more (a stalled model). */
  hangAfterContent?: boolean;
  /** End the stream after the content: no finish reason, no [DONE]. */
  endEarly?: boolean;
  status?: number;
  errorBody?: string;
}

export interface ReceivedRequest {
  method: string;
  path: string;
  body: Record<string, unknown> | undefined;
  headers: Record<string, string>;
}

export interface FakeOpenAI {
  /** `http://127.0.0.1:PORT` (no `/v1`). */
  url: string;
  requests: ReceivedRequest[];
  reply(model: string, reply: FakeOpenAIReply): void;
  close(): Promise<void>;
}

export async function startFakeOpenAI(options: { models?: string[] } = {}): Promise<FakeOpenAI> {
  const models = options.models ?? ['local-model'];
  const scripts = new Map<string, FakeOpenAIReply>();
  const requests: ReceivedRequest[] = [];

  const server = createServer(async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    const text = await readText(req);
    let body: Record<string, unknown> | undefined;
    try {
      body = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
    } catch {
      return sendJson(res, 400, { error: { message: 'invalid JSON body', type: 'invalid_request_error' } });
    }
    requests.push({ method: req.method ?? '', path, body, headers: flatten(req) });

    if (req.method === 'GET' && path === '/v1/models') {
      return sendJson(res, 200, {
        object: 'list',
        data: models.map((id) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'llamacpp' })),
      });
    }
    if (req.method === 'POST' && body && (path === '/v1/embeddings' || path === '/v1/completions')) {
      if (!models.includes(String(body.model))) {
        return sendJson(res, 404, {
          error: {
            message: `The model \`${String(body.model)}\` does not exist.`,
            type: 'invalid_request_error',
            code: 'model_not_found',
          },
        });
      }
      return path === '/v1/embeddings' ? embeddingsReply(res, body) : completionReply(res, body);
    }
    if (req.method !== 'POST' || path !== '/v1/chat/completions' || !body) {
      return sendJson(res, 404, { error: { message: 'File Not Found', type: 'not_found_error' } });
    }
    const model = String(body.model);
    if (!models.includes(model)) {
      return sendJson(res, 404, {
        error: {
          message: `The model \`${model}\` does not exist.`,
          type: 'invalid_request_error',
          code: 'model_not_found',
        },
      });
    }
    const script = scripts.get(model) ?? { content: 'Hello from the fake OpenAI server.' };
    if (script.status !== undefined) {
      return sendJson(res, script.status, {
        error: { message: script.errorBody ?? 'fake error', type: 'server_error' },
      });
    }
    if (body.stream !== true) return jsonReply(res, model, script);
    streamReply(res, model, body, script);
  });

  // Idle keep-alive connections stay open, as the real server's do (Go's net/http has no idle timeout by
  // default). With Node's 5 s, a request that reused a connection just as the fake closed it came back
  // ECONNRESET (a 502 from ctxproxy) whenever two requests were more than 5 s apart on a loaded machine.
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    reply(model, reply) {
      scripts.set(model, reply);
    },
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

function streamReply(res: ServerResponse, model: string, body: Record<string, unknown>, script: FakeOpenAIReply) {
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
  const base = { id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 1_700_000_000, model };
  const send = (value: unknown) => res.write(`data: ${JSON.stringify(value)}\n\n`);
  const delta = (d: Record<string, unknown>, finish: string | null = null) =>
    send({ ...base, choices: [{ index: 0, delta: d, finish_reason: finish }] });

  delta({ role: 'assistant', content: '' });
  for (const piece of halves(script.reasoning ?? '')) delta({ reasoning_content: piece });
  for (const piece of halves(script.content ?? '')) delta({ content: piece });
  if (script.errorMidStream) {
    send({ error: { message: 'the slot crashed while decoding', type: 'server_error' } });
    return res.end();
  }
  if (script.endEarly) return res.end();
  if (script.hangAfterContent) return;
  (script.toolCalls ?? []).forEach((call, index) => {
    const [head, tail] = halves(call.arguments);
    delta({
      tool_calls: [
        {
          index,
          id: call.id ?? `call_fake_${index}`,
          type: 'function',
          function: { name: call.name, arguments: head ?? '' },
        },
      ],
    });
    if (tail !== undefined) delta({ tool_calls: [{ index, function: { arguments: tail } }] });
  });
  const finish = script.finishReason ?? (script.toolCalls?.length ? 'tool_calls' : 'stop');
  delta({}, finish);
  const options = body.stream_options as { include_usage?: boolean } | undefined;
  if (options?.include_usage)
    send({ ...base, choices: [], usage: { prompt_tokens: 42, completion_tokens: 7, total_tokens: 49 } });
  res.write('data: [DONE]\n\n');
  res.end();
}

/** `stream` not true: the whole answer as one `chat.completion` object, as OpenAI-compatible servers answer. */
function jsonReply(res: ServerResponse, model: string, script: FakeOpenAIReply) {
  const toolCalls = (script.toolCalls ?? []).map((call, index) => ({
    id: call.id ?? `call_fake_${index}`,
    type: 'function',
    function: { name: call.name, arguments: call.arguments },
  }));
  sendJson(res, 200, {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: 1_700_000_000,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: script.content ?? '',
          ...(script.reasoning ? { reasoning_content: script.reasoning } : {}),
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        finish_reason: script.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
      },
    ],
    usage: { prompt_tokens: 42, completion_tokens: 7, total_tokens: 49 },
  });
}

/** `/v1/embeddings`: one small vector per input, `[length, index]`, so tests can tell them apart. */
function embeddingsReply(res: ServerResponse, body: Record<string, unknown>): void {
  const inputs = Array.isArray(body.input) ? body.input : [body.input];
  sendJson(res, 200, {
    object: 'list',
    data: inputs.map((input, index) => ({ object: 'embedding', index, embedding: [String(input).length, index] })),
    model: body.model,
    usage: { prompt_tokens: 5, total_tokens: 5 },
  });
}

/** `/v1/completions`, streamed: `text` chunks, a finish chunk, usage when asked, `[DONE]`. */
function completionReply(res: ServerResponse, body: Record<string, unknown>): void {
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
  const base = { id: 'cmpl-fake', object: 'text_completion', created: 1_700_000_000, model: body.model };
  const send = (value: unknown) => res.write(`data: ${JSON.stringify(value)}\n\n`);
  for (const piece of halves('return a + b;'))
    send({ ...base, choices: [{ index: 0, text: piece, finish_reason: null }] });
  send({ ...base, choices: [{ index: 0, text: '', finish_reason: 'stop' }] });
  const options = body.stream_options as { include_usage?: boolean } | undefined;
  if (options?.include_usage)
    send({ ...base, choices: [], usage: { prompt_tokens: 11, completion_tokens: 4, total_tokens: 15 } });
  res.write('data: [DONE]\n\n');
  res.end();
}

function halves(text: string): string[] {
  if (text === '') return [];
  const middle = Math.ceil(text.length / 2);
  return text.length > 1 ? [text.slice(0, middle), text.slice(middle)] : [text];
}

async function readText(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

function flatten(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}
