// The pipeline's parts built from the settings: the upstream adapter the settings name and the
// default stages. Shared by `serve` (through createServer) and `preview`.

import type { Settings } from '../config/options.ts';
import { type CalibratingStore, createPipelineDeps } from '../pipeline/defaultDeps.ts';
import type { PipelineDeps } from '../pipeline/types.ts';
import type { Logger, Upstream } from '../shared/ports.ts';
import { withModelSuggestions } from '../upstream/modelSuggestions.ts';
import { createOllamaUpstream } from '../upstream/ollamaUpstream.ts';
import { createOpenAIUpstream } from '../upstream/openaiUpstream.ts';

export function buildUpstream(settings: Settings): Upstream {
  const timeouts = { firstByteTimeoutMs: settings.upstreamTimeoutMs, idleTimeoutMs: settings.upstreamIdleTimeoutMs };
  return withModelSuggestions(
    settings.upstreamKind === 'ollama'
      ? createOllamaUpstream({ baseUrl: settings.upstream, ...timeouts })
      : createOpenAIUpstream({
          baseUrl: settings.upstream,
          ...timeouts,
          ...(settings.upstreamApiKey ? { apiKey: settings.upstreamApiKey } : {}),
        }),
  );
}

export interface BuildPipelineInput {
  settings: Settings;
  store: CalibratingStore;
  logger: Logger;
  /** Compile the redaction and tokenizer regexes in the background (a long-running server). */
  warm?: boolean | undefined;
  /** Replaces any default part (the upstream included). */
  overrides?: Partial<PipelineDeps> | undefined;
}

export async function buildPipelineDeps(input: BuildPipelineInput): Promise<PipelineDeps> {
  const { settings, overrides = {} } = input;
  return createPipelineDeps({
    settings,
    upstream: overrides.upstream ?? buildUpstream(settings),
    store: input.store,
    logger: input.logger,
    warm: input.warm,
    overrides,
  });
}
