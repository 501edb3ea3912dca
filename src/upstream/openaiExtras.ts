// /v1/embeddings and /v1/completions passed to an OpenAI-compatible upstream's
// own endpoints of the same name (llama.cpp server, LM Studio and vLLM have
// both), with the same hygiene as chat: only our fields and the configured key.

import type { EmbedRequest, EmbedResult, GenerateRequest, Upstream } from '../shared/ports.ts';
import type { UpstreamEvent } from '../shared/types.ts';
import { startFirstByteTimer } from './callTimers.ts';
import { newToolCallId } from './ollamaEvents.ts';
import { openAIEvents, sseData } from './openaiStream.ts';
import { classifyUpstreamFailure, UpstreamHttpError } from './upstreamErrors.ts';

export interface OpenAIExtrasDeps {
  baseUrl: string;
  apiBase: string;
  fetch: typeof fetch;
  headers: (accept: string) => Record<string, string>;
  firstByteTimeoutMs: number;
  errorMessageOf: (response: Response) => Promise<string>;
}

const SAMPLING = ['max_tokens', 'temperature', 'top_p', 'stop', 'seed', 'presence_penalty', 'frequency_penalty'];

export function openaiExtras(deps: OpenAIExtrasDeps): Required<Pick<Upstream, 'embed' | 'generate'>> {
  /** POSTs `body`, with a first-byte timer; returns the response once it is a 2xx with a body. */
  const post = async (path: string, model: string, body: unknown, accept: string, signal: AbortSignal) => {
    const timer = startFirstByteTimer({
      kind: 'openai',
      baseUrl: deps.baseUrl,
      model,
      signal,
      timeoutMs: deps.firstByteTimeoutMs,
    });
    try {
      const response = await deps.fetch(`${deps.apiBase}${path}`, {
        method: 'POST',
        headers: deps.headers(accept),
        body: JSON.stringify(body),
        signal: AbortSignal.any([signal, timer.signal]),
      });
      if (!response.ok) throw new UpstreamHttpError(await deps.errorMessageOf(response), response.status);
      if (!response.body) throw new Error('the upstream answered without a body');
      return { response, context: timer.context, stop: timer.stop, abort: timer.abort };
    } catch (error) {
      timer.stop();
      throw classifyUpstreamFailure(error, { ...timer.context(), phase: 'request' });
    }
  };

  return {
    async embed(request: EmbedRequest, signal: AbortSignal): Promise<EmbedResult> {
      const body: Record<string, unknown> = { model: request.model, input: request.input, encoding_format: 'float' };
      if (request.dimensions !== undefined) body.dimensions = request.dimensions;
      const call = await post('/embeddings', request.model, body, 'application/json', signal);
      try {
        const answer = (await call.response.json()) as {
          data?: { index?: number; embedding?: number[] }[];
          usage?: { prompt_tokens?: number };
        };
        const data = [...(answer.data ?? [])].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
        return { embeddings: data.map((d) => d.embedding ?? []), promptTokens: answer.usage?.prompt_tokens };
      } catch (error) {
        throw classifyUpstreamFailure(error, { ...call.context(), phase: 'stream' });
      } finally {
        call.stop();
      }
    },

    async generate(request: GenerateRequest, signal: AbortSignal): Promise<AsyncIterable<UpstreamEvent>> {
      const body: Record<string, unknown> = { model: request.model, prompt: request.prompt };
      if (request.suffix) body.suffix = request.suffix;
      for (const key of SAMPLING) if (request.params[key] !== undefined) body[key] = request.params[key];
      body.stream = true;
      body.stream_options = { include_usage: true };
      const call = await post('/completions', request.model, body, 'text/event-stream', signal);
      const stream = call.response.body as ReadableStream<Uint8Array>;
      return (async function* () {
        let finished = false;
        try {
          // Text-completion chunks carry `text` where chat chunks carry `delta.content`: reuse the chat parser.
          const payloads = (async function* () {
            for await (const payload of sseData(stream)) {
              call.stop();
              yield asChatChunk(payload);
            }
          })();
          for await (const event of openAIEvents(payloads, newToolCallId)) {
            if (event.type === 'done') finished = true;
            yield event;
          }
        } catch (error) {
          throw classifyUpstreamFailure(error, { ...call.context(), phase: 'stream' });
        } finally {
          call.stop();
          if (!finished) call.abort();
        }
      })();
    },
  };
}

function asChatChunk(payload: string): string {
  if (payload.trim() === '[DONE]') return payload;
  const chunk = JSON.parse(payload) as { choices?: { text?: string; finish_reason?: string | null }[] };
  if (!Array.isArray(chunk.choices)) return payload;
  return JSON.stringify({
    ...chunk,
    choices: chunk.choices.map((choice) => ({
      delta: { content: choice.text ?? '' },
      finish_reason: choice.finish_reason ?? null,
    })),
  });
}
