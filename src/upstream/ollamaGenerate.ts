// Ollama's /api/embed and /api/generate, for /v1/embeddings and /v1/completions.
// Same rules as the chat adapter: each call gets its own client whose fetch
// carries that call's signals, a first-byte timer (the model may be loading),
// and every failure is classified once by classifyUpstreamFailure.

import type {
  AbortableAsyncIterator,
  GenerateResponse,
  Ollama,
  GenerateRequest as OllamaGenerateRequest,
} from 'ollama';
import type { EmbedRequest, EmbedResult, GenerateRequest, Upstream } from '../shared/ports.ts';
import type { UpstreamEvent } from '../shared/types.ts';
import { startFirstByteTimer } from './callTimers.ts';
import { toOllamaOptions } from './ollamaMapping.ts';
import { classifyUpstreamFailure, missingDoneError, type UpstreamFailureContext } from './upstreamErrors.ts';

export interface OllamaExtrasDeps {
  baseUrl: string;
  /** A client whose every fetch is also aborted by `signals`. */
  clientWith: (signals: AbortSignal[]) => Ollama;
  firstByteTimeoutMs: number;
}

export function ollamaExtras(deps: OllamaExtrasDeps): Required<Pick<Upstream, 'embed' | 'generate'>> {
  const { baseUrl, clientWith, firstByteTimeoutMs } = deps;

  /** A timer that aborts the call when the upstream stays silent too long. */
  const firstByteTimer = (model: string, signal: AbortSignal) =>
    startFirstByteTimer({ kind: 'ollama', baseUrl, model, signal, timeoutMs: firstByteTimeoutMs });

  return {
    async embed(request: EmbedRequest, signal: AbortSignal): Promise<EmbedResult> {
      const timer = firstByteTimer(request.model, signal);
      try {
        const answer = await clientWith([signal, timer.signal]).embed({
          model: request.model,
          input: request.input,
          ...(request.dimensions !== undefined ? { dimensions: request.dimensions } : {}),
        });
        return { embeddings: answer.embeddings, promptTokens: countOf(answer.prompt_eval_count) };
      } catch (error) {
        throw classifyUpstreamFailure(error, { ...timer.context(), phase: 'request' });
      } finally {
        timer.stop();
      }
    },

    async generate(request: GenerateRequest, signal: AbortSignal): Promise<AsyncIterable<UpstreamEvent>> {
      const timer = firstByteTimer(request.model, signal);
      // Not `raw`: Ollama's own /v1/completions does not set it either, and a suffix needs the
      // model's fill-in-the-middle template, which raw mode would skip.
      const body: OllamaGenerateRequest & { stream: true } = {
        model: request.model,
        prompt: request.prompt,
        stream: true,
      };
      if (request.suffix !== undefined && request.suffix !== '') body.suffix = request.suffix;
      const options = toOllamaOptions(request.params, request.numCtx);
      if (Object.keys(options).length > 0) body.options = options;
      let stream: AbortableAsyncIterator<GenerateResponse>;
      try {
        stream = await clientWith([signal, timer.signal]).generate(body);
      } catch (error) {
        timer.stop();
        throw classifyUpstreamFailure(error, { ...timer.context(), phase: 'request' });
      }
      return generateEvents(stream, timer.stop, timer.context);
    },
  };
}

async function* generateEvents(
  stream: AbortableAsyncIterator<GenerateResponse>,
  onFirstLine: () => void,
  context: () => UpstreamFailureContext,
): AsyncGenerator<UpstreamEvent> {
  let finished = false;
  try {
    for await (const line of stream) {
      onFirstLine();
      if (line.done) finished = true;
      if (line.response || line.thinking) {
        yield {
          type: 'delta',
          ...(line.response ? { content: line.response } : {}),
          ...(line.thinking ? { reasoning: line.thinking } : {}),
        };
      }
      if (finished) {
        const promptTokens = countOf(line.prompt_eval_count);
        const completionTokens = countOf(line.eval_count);
        yield {
          type: 'done',
          finishReason: line.done_reason === 'length' ? 'length' : 'stop',
          ...(promptTokens !== undefined || completionTokens !== undefined
            ? { usage: { promptTokens: promptTokens ?? 0, completionTokens: completionTokens ?? 0 } }
            : {}),
        };
        return;
      }
    }
    throw missingDoneError(context());
  } catch (error) {
    throw classifyUpstreamFailure(error, { ...context(), phase: 'stream' });
  } finally {
    onFirstLine();
    if (!finished) stream.abort();
  }
}

function countOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}
