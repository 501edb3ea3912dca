// The OpenAI-compatible adapter (llama.cpp server, LM Studio, vLLM): plain fetch
// to /v1/chat/completions, always streaming with usage. The client's own fields
// pass through; its headers never do (hono's proxy helper rule: no client
// Authorization upstream). Only a configured API key is sent.

import { BadRequestError } from '../shared/errors.ts';
import type { Upstream, UpstreamRequest } from '../shared/ports.ts';
import type { ChatMessage, UpstreamEvent, UpstreamModel } from '../shared/types.ts';
import { startStreamTimers, timedItems } from './callTimers.ts';
import { nodeHttpFetch } from './nodeHttpFetch.ts';
import { newToolCallId } from './ollamaEvents.ts';
import { openaiExtras } from './openaiExtras.ts';
import { openAIEvents, sseData } from './openaiStream.ts';
import { classifyUpstreamFailure, UpstreamHttpError } from './upstreamErrors.ts';

export interface OpenAIUpstreamOptions {
  /** With or without the trailing `/v1`. */
  baseUrl: string;
  apiKey?: string | undefined;
  fetch?: typeof fetch;
  firstByteTimeoutMs?: number;
  /** Once the first event arrived, how long the stream may stay silent between events. */
  idleTimeoutMs?: number;
}

/** Fields we set ourselves; the client's values for them are not forwarded. */
const OWN_FIELDS = ['model', 'messages', 'tools', 'stream', 'stream_options'];

export function createOpenAIUpstream(options: OpenAIUpstreamOptions): Upstream {
  const baseUrl = options.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
  const apiBase = `${baseUrl}/v1`;
  const baseFetch = options.fetch ?? nodeHttpFetch;
  const firstByteTimeoutMs = options.firstByteTimeoutMs ?? 300_000;
  const idleTimeoutMs = options.idleTimeoutMs ?? 120_000;
  /** Limit for the small metadata calls (/v1/models). */
  const metadataTimeoutMs = 10_000;
  const headers = (accept: string): Record<string, string> => ({
    'Content-Type': 'application/json',
    Accept: accept,
    ...(options.apiKey ? { Authorization: `Bearer ${options.apiKey}` } : {}),
  });

  return {
    kind: 'openai',
    baseUrl,
    // /v1/embeddings and /v1/completions go to the upstream's own endpoints.
    ...openaiExtras({ baseUrl, apiBase, fetch: baseFetch, headers, firstByteTimeoutMs, errorMessageOf }),

    async chat(request: UpstreamRequest, signal: AbortSignal): Promise<AsyncIterable<UpstreamEvent>> {
      const body = toOpenAIBody(request);
      const timer = startStreamTimers({
        kind: 'openai',
        baseUrl,
        model: request.model,
        signal,
        timeoutMs: firstByteTimeoutMs,
        idleTimeoutMs,
      });
      const { watch, context } = timer;
      // One signal carries the call: the timer's, which the caller's aborts too (no AbortSignal.any per call).
      const unfollow = timer.follow();

      let response: Response;
      try {
        response = await baseFetch(`${apiBase}/chat/completions`, {
          method: 'POST',
          headers: headers('text/event-stream'),
          body: JSON.stringify(body),
          signal: timer.signal,
        });
        if (!response.ok) throw new UpstreamHttpError(await errorMessageOf(response), response.status);
        if (!response.body) throw new Error('the upstream answered without a body');
      } catch (error) {
        timer.stop();
        unfollow();
        throw classifyUpstreamFailure(error, { ...context(), phase: 'request' });
      }
      const responseBody = response.body;

      return (async function* () {
        let finished = false;
        try {
          const payloads = (async function* () {
            const data = sseData(responseBody);
            try {
              yield* timedItems(data, timer);
            } finally {
              await data.return(undefined);
            }
          })();
          for await (const event of openAIEvents(payloads, newToolCallId)) {
            if (event.type === 'done') finished = true;
            yield event;
          }
        } catch (error) {
          throw classifyUpstreamFailure(error, { ...context(), phase: 'stream' });
        } finally {
          timer.stop();
          watch.stop();
          // The consumer stopped early (client left, or an error): close this request only.
          if (!finished) timer.abort();
          unfollow();
        }
      })();
    },

    async listModels(signal?: AbortSignal): Promise<UpstreamModel[]> {
      const timeout = AbortSignal.timeout(metadataTimeoutMs);
      try {
        const response = await baseFetch(`${apiBase}/models`, {
          headers: headers('application/json'),
          signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        });
        if (!response.ok) throw new UpstreamHttpError(await errorMessageOf(response), response.status);
        const list = (await response.json()) as { data?: { id?: unknown; created?: unknown; owned_by?: unknown }[] };
        return (list.data ?? [])
          .filter((model) => typeof model.id === 'string')
          .map((model) => ({
            id: model.id as string,
            created: typeof model.created === 'number' ? model.created : 0,
            ownedBy: typeof model.owned_by === 'string' ? model.owned_by : 'upstream',
          }));
      } catch (error) {
        throw classifyUpstreamFailure(error, {
          kind: 'openai',
          baseUrl,
          signal,
          timedOutAfterMs: timeout.aborted ? metadataTimeoutMs : undefined,
        });
      }
    },

    async contextWindow(): Promise<number | undefined> {
      // The OpenAI API has no portable way to ask; config sets the window for these upstreams.
      return undefined;
    },
  };
}

export function toOpenAIBody(request: UpstreamRequest): Record<string, unknown> {
  if (typeof request.params.n === 'number' && request.params.n > 1) {
    throw new BadRequestError('Only n = 1 is supported by ctxproxy.', 'unsupported_parameter', 'n');
  }
  const body: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(request.params)) {
    if (!OWN_FIELDS.includes(key) && value !== undefined) body[key] = value;
  }
  // llama.cpp server and older LM Studio read only max_tokens; vLLM prefers max_completion_tokens when both are set.
  if (typeof body.max_completion_tokens === 'number' && body.max_tokens === undefined) {
    body.max_tokens = body.max_completion_tokens;
  }
  body.model = request.model;
  body.messages = request.messages.map(cleanMessage);
  if (request.tools && request.tools.length > 0) body.tools = request.tools;
  body.stream = true;
  body.stream_options = { include_usage: true };
  return body;
}

/** Drops undefined fields; `developer` becomes `system`, which local chat templates know. */
function cleanMessage(message: ChatMessage): Record<string, unknown> {
  const clean = Object.fromEntries(Object.entries(message).filter(([, value]) => value !== undefined));
  if (message.role === 'developer') clean.role = 'system';
  return clean;
}

async function errorMessageOf(response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  try {
    const parsed = JSON.parse(text) as { error?: unknown; message?: unknown };
    const error = parsed.error;
    if (typeof error === 'string') return error;
    if (error && typeof error === 'object' && typeof (error as { message?: unknown }).message === 'string') {
      return (error as { message: string }).message;
    }
    if (typeof parsed.message === 'string') return parsed.message;
  } catch {
    // not JSON: use the text itself
  }
  return text.slice(0, 500) || `${response.status} ${response.statusText}`;
}
