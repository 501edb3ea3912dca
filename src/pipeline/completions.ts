// /v1/completions (legacy text completions, the API of editor autocomplete):
// the prompt and the suffix are redacted and sent to the upstream's generate
// API as they are. No context is added: autocomplete needs speed and a prompt
// the editor built itself. Audited like a chat: the redacted prompt, the reply.

import { fitPrompt } from '../budget/index.ts';
import { BadRequestError } from '../shared/errors.ts';
import type { ChatMessage, UpstreamEvent } from '../shared/types.ts';
import { redactedValue } from './cleanRequest.ts';
import { discoverWindow } from './collect.ts';
import { cleanedModel, notSupported, storedModel } from './embeddings.ts';
import { redactMessages } from './redactStage.ts';
import { RequestRecord } from './requestRecord.ts';
import { splitModelSuffix } from './selectMode.ts';
import type { PipelineDeps } from './types.ts';

export interface CompletionsInput {
  model: string;
  prompt: string;
  suffix?: string | undefined;
  /** Sampling as the client set it (max_tokens, temperature, top_p, stop, seed, penalties). */
  params: Record<string, unknown>;
  stream: boolean;
  requestId: string;
  requestIdMinted?: boolean | undefined;
  userAgent?: string | undefined;
  signal: AbortSignal;
}

export interface CompletionsResult {
  snapshotId: string;
  model: string;
  /** Iterate to the end; stopping early aborts the upstream. */
  events: AsyncIterable<UpstreamEvent>;
  /** For X-Ctx-Warning (an audit log that could not be written, …). */
  warnings: string[];
}

export async function runCompletions(input: CompletionsInput, deps: PipelineDeps): Promise<CompletionsResult> {
  const { model } = splitModelSuffix(input.model);
  const record = RequestRecord.open({ ...input, model, modeAsked: 'off' }, deps);
  try {
    record.refuseIfAuditDown();
    // The model as the client chose it, stored redacted; no context is ever added here.
    await record.admit({ model: await storedModel(model, deps, record.counts) });
    const generate = deps.upstream.generate;
    if (!generate) throw notSupported('/v1/completions', deps.upstream.kind);
    if (typeof input.params.n === 'number' && input.params.n > 1) {
      throw new BadRequestError(
        'Only n = 1 is supported: the upstream returns one completion.',
        'unsupported_parameter',
        'n',
      );
    }
    const counts = record.counts;
    // The model name and the sampling options (`stop` is text) go upstream too: redacted like the prompt.
    const upstreamModel = await cleanedModel(model, deps, counts);
    const params = await redactedParams(input.params, deps, counts);
    const given: ChatMessage[] = [{ role: 'user', name: 'prompt', content: input.prompt }];
    if (input.suffix) given.unshift({ role: 'system', name: 'suffix', content: input.suffix });
    const forwarded = deps.settings.redactMessages ? await redactMessages(given, deps.redactor, counts) : given;
    record.describe({ forwarded });
    const prompt = forwarded.find((m) => m.name === 'prompt')?.content as string;
    const suffix = forwarded.find((m) => m.name === 'suffix')?.content as string | undefined;
    // The prompt is never cut: too long for the window, a 400 (budget/promptFit.ts); else num_ctx holds
    // it, the window the model is loaded with when that is enough (a new one makes Ollama reload it).
    // An OpenAI-compatible server sizes its own context and says when a prompt does not fit.
    const numCtx =
      deps.upstream.kind === 'ollama'
        ? fitPrompt({
            promptTokens: deps.tokenCounter.count(prompt) + (suffix ? deps.tokenCounter.count(suffix) : 0),
            promptChars: prompt.length + (suffix?.length ?? 0),
            window: (await discoverWindow(deps, upstreamModel)).tokens,
            maxTokens: typeof params.max_tokens === 'number' ? params.max_tokens : undefined,
            loaded: deps.loadedNumCtx?.get(upstreamModel),
          })
        : undefined;
    await record.inFlight();
    const startedAt = deps.now();
    const events = await generate.call(
      deps.upstream,
      { model: upstreamModel, prompt, suffix, params, numCtx },
      record.upstreamSignal,
    );
    return { snapshotId: record.id, model, warnings: record.warnings, events: record.tap(events, { startedAt }) };
  } catch (error) {
    throw await record.fail(error);
  }
}

/** Every string of the sampling options redacted; one that cannot be scanned refuses the request. */
async function redactedParams(
  params: Record<string, unknown>,
  deps: PipelineDeps,
  counts: Record<string, number>,
): Promise<Record<string, unknown>> {
  try {
    return await redactedValue(params, deps.redactor, counts);
  } catch {
    throw new BadRequestError(
      'The sampling options (stop …) could not be scanned for secrets, so the request was not forwarded.',
      'redaction_failed',
      'stop',
    );
  }
}
