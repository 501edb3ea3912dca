// A real HTTP server on 127.0.0.1 that answers like Ollama's documented API
// (docs/api.md and the ollama-js types): NDJSON streaming on /api/chat and
// /api/generate, /api/embed, /api/show with model_info, /api/tags, /api/version,
// "Ollama is running" on /. Every
// integration test talks to it over a real socket, so it follows the wire shapes
// exactly and can be scripted per model to misbehave (errors, hangs, cut streams).

import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface FakeModel {
  name: string;
  /** Reported as `<family>.context_length` in /api/show's model_info; omitted when undefined. */
  contextLength?: number;
  /** The architecture (`general.architecture`); defaults to `llama`. */
  family?: string;
  /** Defaults to ['completion', 'tools']; add 'thinking' for models that accept `think`. */
  capabilities?: string[];
}

export interface FakeToolCall {
  name: string;
  arguments: Record<string, unknown>;
  /** Recent Ollama versions send an id; older ones do not. */
  id?: string;
}

export interface FakeReply {
  /** Streamed in a few chunks (split after spaces). */
  content?: string;
  /** Streamed before the content, unless the request said `think: false`. */
  thinking?: string;
  toolCalls?: FakeToolCall[];
  doneReason?: 'stop' | 'length';
  chunkDelayMs?: number;
  /** Stream every word as its own chunk (a token stream) instead of up to four pieces. */
  wordPerChunk?: boolean;
  /** Stream the content in exactly these pieces (they are joined for `content`); /api/chat and /api/generate. */
  pieces?: string[];
  /** Send `{"error":"..."}` as a line after N chunks, then end the response (N = 0: an HTTP 500, as Ollama does). */
  errorAfterChunks?: number;
  /** End the stream after the chunks, with no `done` line. */
  endWithoutDone?: boolean;
  /** Accept the request and never answer (no headers): for timeout tests. */
  hangBeforeHeaders?: boolean;
  /** Keep the stream open forever after N chunks: for abort tests. */
  hangAfterChunks?: number;
  promptEvalCount?: number;
  /** Answer this HTTP status instead; the body is `{"error": errorBody}` (or errorBody itself when it is JSON). */
  status?: number;
  errorBody?: string;
  /** /api/embed: this text's vector instead of the hash-derived one (texts alike in meaning, for retrieval tests). */
  embedding?: (text: string) => number[] | undefined;
}

export interface ReceivedChat {
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

/** A request body exactly as it arrived, whatever the route and whether or not it parsed. */
export interface ReceivedBody {
  path: string;
  text: string;
}

export interface FakeOllama {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  url: string;
  /** Every request body of every route (/api/show included), as raw text, in arrival order. */
  received: ReceivedBody[];
  /** Every /api/chat request whose body parsed, in arrival order. */
  chats: ReceivedChat[];
  /** Every /api/embed request whose body parsed, in arrival order. */
  embeds: ReceivedChat[];
  /** Every /api/generate request whose body parsed, in arrival order. */
  generates: ReceivedChat[];
  /** Resolves when the socket that carried chat number `index` closes (for abort tests). */
  closed(index: number): Promise<void>;
  /**
   * Script the answers for one model (persists until replaced); other models get the default reply.
   * A function answers each chat from its body, as a model would (a tool call, then text once the
   * tool's result is in the messages).
   */
  reply(model: string, reply: FakeReply | ((body: Record<string, unknown>) => FakeReply)): void;
  close(): Promise<void>;
}

export const DEFAULT_FAKE_MODELS: FakeModel[] = [
  { name: 'qwen2.5-coder:7b', contextLength: 32768, family: 'qwen2' },
  { name: 'llama3.2:3b', contextLength: 8192, family: 'llama' },
];

/** What every unscripted model answers. */
export const DEFAULT_FAKE_CONTENT = 'Hello from the fake Ollama.';
export const FAKE_OLLAMA_VERSION = '0.12.6';
const MODEL_ERROR = 'an error was encountered while running the model: unexpected EOF';
const MODIFIED_AT = '2025-06-01T12:00:00.000000000Z';

/**
 * Default prompt_eval_count: ceil(characters of all message contents / 4), so budgets can be calibrated.
 * When a request sets options.num_ctx with truncate: false and this count exceeds it, the fake answers
 * Ollama's 400 "the input length exceeds the context length".
 */
export function fakePromptTokens(body: Record<string, unknown>): number {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  let chars = 0;
  for (const message of messages) {
    const content = (message as { content?: unknown }).content;
    if (typeof content === 'string') chars += content.length;
  }
  return Math.ceil(chars / 4);
}

export async function startFakeOllama(options: { models?: FakeModel[] } = {}): Promise<FakeOllama> {
  const models = new Map((options.models ?? DEFAULT_FAKE_MODELS).map((model) => [model.name, model]));
  const scripts = new Map<string, FakeReply | ((body: Record<string, unknown>) => FakeReply)>();
  const chats: ReceivedChat[] = [];
  const embeds: ReceivedChat[] = [];
  const generates: ReceivedChat[] = [];
  const received: ReceivedBody[] = [];
  const chatSockets: Promise<void>[] = [];
  const timers = new Set<NodeJS.Timeout>();

  const findModel = (name: unknown): FakeModel | undefined => {
    if (typeof name !== 'string' || name === '') return undefined;
    // Ollama resolves a name without a tag to `:latest`.
    return models.get(name) ?? (name.includes(':') ? undefined : models.get(`${name}:latest`));
  };
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: String(error) });
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    const route = `${req.method} ${path}`;
    if (route === 'GET /' || route === 'HEAD /') return sendText(res, 200, 'Ollama is running');
    if (route === 'GET /api/version') return sendJson(res, 200, { version: FAKE_OLLAMA_VERSION });
    if (route === 'GET /api/tags') return sendJson(res, 200, { models: [...models.values()].map(tagEntry) });
    if (route === 'POST /api/show') return show(req, res);
    if (route === 'POST /api/chat') return chat(req, res);
    if (route === 'POST /api/embed') return embed(req, res);
    if (route === 'POST /api/generate') return generate(req, res);
    if (['/', '/api/version', '/api/tags', '/api/show', '/api/chat', '/api/embed', '/api/generate'].includes(path)) {
      return sendText(res, 405, '405 method not allowed');
    }
    return sendText(res, 404, '404 page not found');
  }

  async function show(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readJson(req, res, received);
    if (!body) return;
    const name = body.model ?? body.name;
    const model = findModel(name);
    if (!model) return sendJson(res, 404, { error: `model '${String(name)}' not found` });
    sendJson(res, 200, showEntry(model));
  }

  async function chat(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readJson(req, res, received);
    if (!body) return;
    const index = chats.length;
    chats.push({ body, headers: flattenHeaders(req) });
    chatSockets[index] = socketClosed(req.socket);

    if (typeof body.model !== 'string' || body.model === '') {
      return sendJson(res, 400, { error: 'model is required' });
    }
    const model = findModel(body.model);
    if (!model) return sendJson(res, 404, { error: `model "${body.model}" not found, try pulling it first` });
    const capabilities = model.capabilities ?? ['completion', 'tools'];
    const think = body.think;
    if (think !== undefined && think !== false && !capabilities.includes('thinking')) {
      return sendJson(res, 400, { error: `"${body.model}" does not support thinking` });
    }
    if (Array.isArray(body.tools) && body.tools.length > 0 && !capabilities.includes('tools')) {
      return sendJson(res, 400, { error: `registry.ollama.ai/library/${body.model} does not support tools` });
    }

    const scripted = scripts.get(model.name) ?? {};
    const script = typeof scripted === 'function' ? scripted(body) : scripted;
    if (script.hangBeforeHeaders) return; // the socket stays open until the client gives up
    if (script.status !== undefined) {
      const text = script.errorBody ?? 'fake Ollama error';
      if (text.trimStart().startsWith('{')) return sendRaw(res, script.status, 'application/json; charset=utf-8', text);
      return sendJson(res, script.status, { error: text });
    }

    const numCtx = (body.options as { num_ctx?: unknown } | undefined)?.num_ctx;
    const promptTokens = script.promptEvalCount ?? fakePromptTokens(body);
    if (body.truncate === false && typeof numCtx === 'number' && promptTokens > numCtx) {
      return sendJson(res, 400, { error: 'the input length exceeds the context length' });
    }
    // Ollama reports an error that comes before any content as an HTTP status, not as a line.
    if (script.errorAfterChunks === 0) return sendJson(res, 500, { error: MODEL_ERROR });

    const reply = planReply(body, script);
    if (body.stream === false) {
      return sendJson(res, 200, {
        ...lineBase(body.model),
        message: { role: 'assistant', ...reply.message },
        ...reply.done,
      });
    }

    res.writeHead(200, { 'Content-Type': 'application/x-ndjson' });
    const chunks = reply.chunks;
    for (let i = 0; i < chunks.length; i++) {
      if (script.errorAfterChunks === i) return endWithError(res);
      if (script.hangAfterChunks === i) return; // keep the response open
      if (i > 0 && script.chunkDelayMs) await sleep(script.chunkDelayMs);
      if (res.destroyed) return;
      writeLine(res, { ...lineBase(body.model), message: { role: 'assistant', ...chunks[i] }, done: false });
    }
    if (script.errorAfterChunks !== undefined && script.errorAfterChunks >= chunks.length) return endWithError(res);
    if (script.hangAfterChunks !== undefined) return;
    if (script.endWithoutDone) return void res.end();
    if (script.chunkDelayMs) await sleep(script.chunkDelayMs);
    if (res.destroyed) return;
    writeLine(res, { ...lineBase(body.model), message: { role: 'assistant', content: '' }, ...reply.done });
    res.end();
  }

  /** `{model, embeddings, total_duration, load_duration, prompt_eval_count}`; vectors derived from the text. */
  async function embed(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readJson(req, res, received);
    if (!body) return;
    embeds.push({ body, headers: flattenHeaders(req) });
    const model = findModel(body.model);
    if (!model) return sendJson(res, 404, { error: `model "${String(body.model)}" not found, try pulling it first` });
    const scripted = scripts.get(model.name) ?? {};
    const script = typeof scripted === 'function' ? scripted(body) : scripted;
    if (script.status !== undefined) return sendJson(res, script.status, { error: script.errorBody ?? 'fake error' });
    const inputs = typeof body.input === 'string' ? [body.input] : Array.isArray(body.input) ? body.input : [];
    if (inputs.some((input) => typeof input !== 'string')) {
      return sendJson(res, 400, { error: 'invalid input type' });
    }
    const dimensions = typeof body.dimensions === 'number' ? body.dimensions : 8;
    sendJson(res, 200, {
      model: body.model,
      embeddings: (inputs as string[]).map((text) => script.embedding?.(text) ?? fakeEmbedding(text, dimensions)),
      total_duration: 14_143_917,
      load_duration: 1_019_500,
      prompt_eval_count: (inputs as string[]).reduce((sum, text) => sum + Math.ceil(text.length / 4), 0),
    });
  }

  /** /api/generate: the scripted reply as `response` pieces, NDJSON unless `stream: false`, then the done line. */
  async function generate(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readJson(req, res, received);
    if (!body) return;
    generates.push({ body, headers: flattenHeaders(req) });
    const model = findModel(body.model);
    if (!model) return sendJson(res, 404, { error: `model "${String(body.model)}" not found, try pulling it first` });
    const scripted = scripts.get(model.name) ?? {};
    const script = typeof scripted === 'function' ? scripted(body) : scripted;
    if (script.status !== undefined) return sendJson(res, script.status, { error: script.errorBody ?? 'fake error' });
    const content = script.pieces ? script.pieces.join('') : (script.content ?? DEFAULT_FAKE_CONTENT);
    const text = `${typeof body.prompt === 'string' ? body.prompt : ''}${typeof body.suffix === 'string' ? body.suffix : ''}`;
    const done = withoutZeros({
      done: true,
      done_reason: script.doneReason ?? 'stop',
      context: [1, 2, 3],
      total_duration: 123_456_789,
      load_duration: 1_234_567,
      prompt_eval_count: script.promptEvalCount ?? Math.ceil(text.length / 4),
      prompt_eval_duration: 23_456_789,
      eval_count: Math.max(1, Math.ceil(content.length / 4)),
      eval_duration: 98_765_432,
    });
    if (body.stream === false) return sendJson(res, 200, { ...lineBase(body.model), response: content, ...done });
    res.writeHead(200, { 'Content-Type': 'application/x-ndjson' });
    for (const piece of script.pieces ?? splitText(content)) {
      if (script.chunkDelayMs) await sleep(script.chunkDelayMs);
      if (res.destroyed) return;
      writeLine(res, { ...lineBase(body.model), response: piece, done: false });
    }
    writeLine(res, { ...lineBase(body.model), response: '', ...done });
    res.end();
  }

  // Idle keep-alive connections stay open, as the real server's do (Go's net/http has no idle timeout by
  // default). With Node's 5 s, a request that reused a connection just as the fake closed it came back
  // ECONNRESET (a 502 from ctxproxy) whenever two requests were more than 5 s apart on a loaded machine.
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    received,
    chats,
    embeds,
    generates,
    closed(index) {
      const closed = chatSockets[index];
      if (!closed) return Promise.reject(new Error(`fake Ollama received no chat number ${index}`));
      return closed;
    },
    reply(model, reply) {
      scripts.set(model, reply);
    },
    close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

interface PlannedReply {
  message: Record<string, unknown>;
  chunks: Record<string, unknown>[];
  done: Record<string, unknown>;
}

function planReply(body: Record<string, unknown>, script: FakeReply): PlannedReply {
  const hasScriptedOutput = script.content !== undefined || script.thinking !== undefined || script.toolCalls;
  const content = script.pieces
    ? script.pieces.join('')
    : hasScriptedOutput
      ? (script.content ?? '')
      : DEFAULT_FAKE_CONTENT;
  const thinking = body.think === false ? undefined : script.thinking;
  const toolCalls = (script.toolCalls ?? []).map((call, index) => ({
    ...(call.id !== undefined ? { id: call.id } : {}),
    function: { index, name: call.name, arguments: call.arguments },
  }));

  const chunks: Record<string, unknown>[] = [];
  for (const piece of splitText(thinking ?? '')) chunks.push({ content: '', thinking: piece });
  const contentPieces = script.pieces ?? (script.wordPerChunk ? content.split(/(?<= )/) : splitText(content));
  for (const piece of contentPieces) {
    if (piece !== '') chunks.push({ content: piece });
  }
  if (toolCalls.length > 0) chunks.push({ content: '', tool_calls: toolCalls });

  const evalCount = Math.max(1, Math.ceil(((thinking ?? '').length + content.length) / 4) + toolCalls.length * 8);
  const message: Record<string, unknown> = { content };
  if (thinking) message.thinking = thinking;
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return {
    message,
    chunks,
    done: withoutZeros({
      done: true,
      done_reason: script.doneReason ?? 'stop',
      total_duration: 123_456_789,
      load_duration: 1_234_567,
      prompt_eval_count: script.promptEvalCount ?? fakePromptTokens(body),
      prompt_eval_duration: 23_456_789,
      eval_count: evalCount,
      eval_duration: 98_765_432,
    }),
  };
}

/** A unit-length vector derived from the text's hash, so equal texts get equal vectors. */
export function fakeEmbedding(text: string, dimensions: number): number[] {
  const digest = createHash('sha256').update(text).digest();
  const raw = Array.from({ length: dimensions }, (_, i) => (digest[i % digest.length] as number) - 127.5);
  const norm = Math.hypot(...raw) || 1;
  return raw.map((value) => value / norm);
}

/** Ollama's metrics are Go `omitempty` ints: a zero count is left out of the line. */
function withoutZeros(line: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(line).filter(([, value]) => value !== 0));
}

/** Up to four pieces, split after spaces, that join back to the text exactly. */
function splitText(text: string): string[] {
  if (text === '') return [];
  const words = text.split(/(?<= )/);
  const size = Math.ceil(words.length / Math.min(4, words.length));
  const pieces: string[] = [];
  for (let i = 0; i < words.length; i += size) pieces.push(words.slice(i, i + size).join(''));
  return pieces;
}

function lineBase(model: unknown): Record<string, unknown> {
  return { model, created_at: new Date().toISOString() };
}

function tagEntry(model: FakeModel): Record<string, unknown> {
  return {
    name: model.name,
    model: model.name,
    modified_at: MODIFIED_AT,
    size: 4_683_087_332,
    digest: createHash('sha256').update(model.name).digest('hex'),
    details: details(model),
  };
}

function showEntry(model: FakeModel): Record<string, unknown> {
  const family = model.family ?? 'llama';
  const modelInfo: Record<string, unknown> = {
    'general.architecture': family,
    'general.file_type': 15,
    'general.parameter_count': 7_615_616_512,
    'general.quantization_version': 2,
    [`${family}.attention.head_count`]: 28,
    [`${family}.block_count`]: 28,
    [`${family}.embedding_length`]: 3584,
  };
  if (model.contextLength !== undefined) modelInfo[`${family}.context_length`] = model.contextLength;
  return {
    license: 'Fake license',
    modelfile: `# Modelfile generated by "ollama show"\nFROM ${model.name}\n`,
    parameters: 'stop                           "<|im_end|>"',
    template: '{{ .Prompt }}',
    details: details(model),
    model_info: modelInfo,
    capabilities: model.capabilities ?? ['completion', 'tools'],
    modified_at: MODIFIED_AT,
  };
}

function details(model: FakeModel): Record<string, unknown> {
  const family = model.family ?? 'llama';
  return {
    parent_model: '',
    format: 'gguf',
    family,
    families: [family],
    parameter_size: '7.6B',
    quantization_level: 'Q4_K_M',
  };
}

async function readJson(
  req: IncomingMessage,
  res: ServerResponse,
  received: ReceivedBody[],
): Promise<Record<string, unknown> | undefined> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  const text = Buffer.concat(parts).toString('utf8');
  received.push({ path: req.url ?? '', text });
  if (text.trim() === '') {
    sendJson(res, 400, { error: 'missing request body' });
    return undefined;
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
    sendJson(res, 400, { error: 'json: cannot unmarshal into Go value of type api.ChatRequest' });
  } catch (error) {
    sendJson(res, 400, { error: `invalid character in request body: ${(error as Error).message}` });
  }
  return undefined;
}

// One promise per socket: a kept-alive socket carries many chats, and a listener
// per chat would pile up on it.
const closedSockets = new WeakMap<Socket, Promise<void>>();

function socketClosed(socket: Socket): Promise<void> {
  if (socket.destroyed) return Promise.resolve();
  let closed = closedSockets.get(socket);
  if (!closed) {
    closed = new Promise((resolve) => socket.once('close', () => resolve()));
    closedSockets.set(socket, closed);
  }
  return closed;
}

function flattenHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function writeLine(res: ServerResponse, value: Record<string, unknown>): void {
  res.write(`${JSON.stringify(value)}\n`);
}

function endWithError(res: ServerResponse): void {
  writeLine(res, { error: MODEL_ERROR });
  res.end();
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  sendRaw(res, status, 'application/json; charset=utf-8', JSON.stringify(value));
}

function sendText(res: ServerResponse, status: number, text: string): void {
  sendRaw(res, status, 'text/plain; charset=utf-8', text);
}

function sendRaw(res: ServerResponse, status: number, contentType: string, text: string): void {
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}
