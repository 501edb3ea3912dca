// The upstream folder's public surface. main.ts picks the adapter by kind;
// tests may build either adapter directly.

export { toOllamaChatRequest } from './ollamaMapping.ts';
export { createOllamaUpstream, type OllamaUpstreamOptions } from './ollamaUpstream.ts';
export { createOpenAIUpstream, type OpenAIUpstreamOptions } from './openaiUpstream.ts';
export { classifyUpstreamFailure, type UpstreamFailureContext } from './upstreamErrors.ts';
