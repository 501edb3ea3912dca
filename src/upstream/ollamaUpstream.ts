// The Ollama adapter: native /api/chat through the `ollama` client, always
// streaming (the client cannot abort a non-streaming call; aggregating is the
// caller's job). Each call gets its own client whose fetch carries that call's
// signals, so aborting one request closes only its socket — never
// `ollama.abort()`, which would end every stream in flight.

import { type AbortableAsyncIterator, type ChatResponse, Ollama } from 'ollama';
import type { Upstream, UpstreamRequest } from '../shared/ports.ts';
import type { UpstreamEvent, UpstreamModel } from '../shared/types.ts';
import { type StreamTimers, startStreamTimers } from './callTimers.ts';
import { nodeHttpFetch } from './nodeHttpFetch.ts';
import { createOllamaEventMapper, newToolCallId } from './ollamaEvents.ts';
import { ollamaExtras } from './ollamaGenerate.ts';
import { type OllamaChatBody, toOllamaChatRequest } from './ollamaMapping.ts';
import { classifyUpstreamFailure, missingDoneError } from './upstreamErrors.ts';

export interface OllamaUpstreamOptions {
  baseUrl: string;
  fetch?: typeof fetch;
  /** How long to wait for the first line of an answer (model loading included). */
  firstByteTimeoutMs?: number;
  /** Once the first line arrived, how long the stream may stay silent between lines. */
  idleTimeoutMs?: number;
}

export function createOllamaUpstream(options: OllamaUpstreamOptions): Upstream {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const baseFetch = options.fetch ?? nodeHttpFetch;
  const firstByteTimeoutMs = options.firstByteTimeoutMs ?? 300_000;
  const idleTimeoutMs = options.idleTimeoutMs ?? 120_000;
  /** Limit for the small metadata calls (/api/tags, /api/show). */
  const metadataTimeoutMs = 10_000;
  const windows = new Map<string, Promise<number | undefined>>();

  /** A client whose every fetch is also aborted by `signals`. */
  const clientWith = (signals: AbortSignal[]): Ollama => {
    const fetchWithSignals: typeof fetch = (input, init) => {
      const all = init?.signal ? [init.signal, ...signals] : signals;
      return baseFetch(input, { ...init, signal: AbortSignal.any(all) });
    };
    return new Ollama({ host: baseUrl, fetch: fetchWithSignals });
  };

  /** Runs a metadata call under its own timeout, classifying any failure. */
  const metadata = async <T>(call: (client: Ollama) => Promise<T>, model?: string, signal?: AbortSignal) => {
    const timeout = AbortSignal.timeout(metadataTimeoutMs);
    try {
      return await call(clientWith(signal ? [signal, timeout] : [timeout]));
    } catch (error) {
      throw classifyUpstreamFailure(error, {
        kind: 'ollama',
        baseUrl,
        model,
        signal,
        timedOutAfterMs: timeout.aborted ? metadataTimeoutMs : undefined,
      });
    }
  };

  return {
    kind: 'ollama',
    baseUrl,
    // /api/embed and /api/generate (for /v1/embeddings and /v1/completions).
    ...ollamaExtras({ baseUrl, clientWith, firstByteTimeoutMs }),

    async chat(request: UpstreamRequest, signal: AbortSignal): Promise<AsyncIterable<UpstreamEvent>> {
      const body = withBinaryImages(toOllamaChatRequest(request));
      // Ours to abort: the first-byte timer and, once lines flow, the idle timer.
      const timer = startStreamTimers({
        kind: 'ollama',
        baseUrl,
        model: request.model,
        signal,
        timeoutMs: firstByteTimeoutMs,
        idleTimeoutMs,
      });
      const { context } = timer;
      // One signal carries the whole call: the timer's, which the caller's aborts too. The client's
      // own (stream.abort()) is left out of the fetch: streamEvents ends the call through the timer.
      const unfollow = timer.follow();
      const client = new Ollama({
        host: baseUrl,
        fetch: (input, init) => baseFetch(input, { ...init, signal: timer.signal }),
      });

      let stream: AbortableAsyncIterator<ChatResponse>;
      try {
        stream = await client.chat(body);
      } catch (error) {
        timer.stop();
        unfollow();
        throw classifyUpstreamFailure(error, { ...context(), phase: 'request' });
      }
      return streamEvents(stream, timer, newToolCallId, unfollow);
    },

    async listModels(signal?: AbortSignal): Promise<UpstreamModel[]> {
      const list = await metadata((client) => client.list(), undefined, signal);
      return list.models.map((model) => ({
        id: model.name,
        created: unixSeconds(model.modified_at),
        ownedBy: 'ollama',
      }));
    },

    contextWindow(model: string): Promise<number | undefined> {
      const cached = windows.get(model);
      if (cached) return cached;
      const lookup = metadata((client) => client.show({ model }), model).then(
        (info) => contextLengthOf(info.model_info as unknown),
        (error: unknown) => {
          // Not cached: Ollama may be starting, or the model about to be pulled. Rejected, not undefined,
          // so the caller can tell a failed lookup (and log why) from a model that reports no window.
          windows.delete(model);
          throw error;
        },
      );
      windows.set(model, lookup);
      return lookup;
    },
  };
}

async function* streamEvents(
  stream: AbortableAsyncIterator<ChatResponse>,
  timers: StreamTimers,
  makeId: () => string,
  unfollow: () => void,
): AsyncGenerator<UpstreamEvent> {
  const mapper = createOllamaEventMapper(makeId);
  const lines = stream[Symbol.asyncIterator]();
  const { context } = timers;
  let finished = false;
  try {
    // timedItems' loop, written out: one async generator less between the upstream's lines and the client.
    let answered = false;
    for (;;) {
      if (answered) timers.watch.waiting();
      const next = await lines.next();
      timers.watch.received();
      if (next.done) break;
      if (!answered) {
        answered = true;
        timers.stop();
      }
      const line = next.value;
      // Set before the last events go out: a consumer may stop right after them, and the answer is complete.
      if (line.done) finished = true;
      yield* mapper.map(line);
      if (finished) return;
    }
    throw missingDoneError(context());
  } catch (error) {
    throw classifyUpstreamFailure(error, { ...context(), phase: 'stream' });
  } finally {
    timers.stop();
    timers.watch.stop();
    // The consumer stopped early (client left, or an error): close this socket only. The fetch
    // carries the timer's signal, not the client's (see chat), so the timer's abort is what closes it.
    if (!finished) timers.abort();
    unfollow();
    await lines.return?.();
  }
}

/**
 * The `ollama` client (Node build) treats a string image as a file path when such a
 * file exists, and would send that file's bytes. Handing it bytes instead makes it
 * only re-encode them, so a crafted "base64" like `///etc/hosts` reads nothing.
 */
function withBinaryImages(body: OllamaChatBody): OllamaChatBody {
  return {
    ...body,
    messages: body.messages.map((message) =>
      message.images && message.images.length > 0
        ? {
            ...message,
            images: message.images.map((image) =>
              typeof image === 'string' ? new Uint8Array(Buffer.from(image, 'base64')) : image,
            ),
          }
        : message,
    ),
  };
}

function contextLengthOf(modelInfo: unknown): number | undefined {
  if (modelInfo === null || typeof modelInfo !== 'object') return undefined;
  const info = modelInfo as Record<string, unknown>;
  const architecture = info['general.architecture'];
  if (typeof architecture !== 'string') return undefined;
  const length = info[`${architecture}.context_length`];
  return typeof length === 'number' && Number.isInteger(length) && length > 0 ? length : undefined;
}

function unixSeconds(date: unknown): number {
  const ms = Date.parse(String(date));
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : 0;
}
