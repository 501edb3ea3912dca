// The upstream folder's public surface. main.ts picks the adapter by kind;
// tests may build either adapter directly.

import type { Upstream } from '../shared/ports.ts';
import { createOllamaUpstream } from './ollamaUpstream.ts';
import { createOpenAIUpstream } from './openaiUpstream.ts';

export { toOllamaChatRequest } from './ollamaMapping.ts';
export { createOllamaUpstream, type OllamaUpstreamOptions } from './ollamaUpstream.ts';
export { createOpenAIUpstream, type OpenAIUpstreamOptions } from './openaiUpstream.ts';
export { classifyUpstreamFailure, type UpstreamFailureContext } from './upstreamErrors.ts';

export interface UpstreamOptions {
  kind: 'ollama' | 'openai';
  baseUrl: string;
  /** OpenAI-compatible upstreams only; never the client's own token. */
  apiKey?: string | undefined;
  fetch?: typeof fetch;
  firstByteTimeoutMs?: number | undefined;
}

export function createUpstream(options: UpstreamOptions): Upstream {
  const shared = {
    baseUrl: options.baseUrl,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.firstByteTimeoutMs !== undefined ? { firstByteTimeoutMs: options.firstByteTimeoutMs } : {}),
  };
  if (options.kind === 'openai') return createOpenAIUpstream({ ...shared, apiKey: options.apiKey });
  return createOllamaUpstream(shared);
}
