// /v1/completions (legacy text completions, the API of editor autocomplete):
// the prompt and the suffix are redacted and sent to the upstream's generate
// API as they are. No context is added: autocomplete needs speed and a prompt
// the editor built itself. Audited like a chat: the redacted prompt, the reply.

import { fitPrompt } from '../budget/index.ts';
import { BadRequestError, type ProxyError, toProxyError } from '../shared/errors.ts';
import type { ChatMessage, Snapshot, UpstreamEvent } from '../shared/types.ts';
import { closeDirectSnapshot, openDirectSnapshot } from './auditRecord.ts';
import { recordInFlight, refuseIfAuditDown } from './auditTrail.ts';
import { redactedValue } from './cleanRequest.ts';
import { discoverWindow } from './collect.ts';
import { cleanedModel, notSupported } from './embeddings.ts';
import { redactMessages } from './redactStage.ts';
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
  const snapshot = await openDirectSnapshot(
    { requestId: input.requestId, model, stream: input.stream, userAgent: input.userAgent },
    deps,
  );
  const abort = new AbortController();
  const onClientGone = () => abort.abort(input.signal.reason);
  input.signal.addEventListener('abort', onClientGone, { once: true });
  try {
    refuseIfAuditDown(deps);
    const generate = deps.upstream.generate;
    if (!generate) throw notSupported('/v1/completions', deps.upstream.kind);
    if (typeof input.params.n === 'number' && input.params.n > 1) {
      throw new BadRequestError(
        'Only n = 1 is supported: the upstream returns one completion.',
        'unsupported_parameter',
        'n',
      );
    }
    const counts = snapshot.redactions;
    // The model name and the sampling options (`stop` is text) go upstream too: redacted like the prompt.
    const upstreamModel = await cleanedModel(model, deps, counts);
    const params = await redactedParams(input.params, deps, counts);
    const given: ChatMessage[] = [{ role: 'user', name: 'prompt', content: input.prompt }];
    if (input.suffix) given.unshift({ role: 'system', name: 'suffix', content: input.suffix });
    const forwarded = deps.settings.redactMessages ? await redactMessages(given, deps.redactor, counts) : given;
    snapshot.forwarded = forwarded;
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
    await recordInFlight(snapshot, deps, snapshot.createdAt);
    const started = deps.now();
    const events = await generate.call(
      deps.upstream,
      { model: upstreamModel, prompt, suffix, params, numCtx },
      abort.signal,
    );
    return {
      snapshotId: snapshot.id,
      model,
      warnings: snapshot.warnings,
      events: track(events, snapshot, deps, started, abort, input.signal, () =>
        input.signal.removeEventListener('abort', onClientGone),
      ),
    };
  } catch (error) {
    input.signal.removeEventListener('abort', onClientGone);
    const failure = toProxyError(error);
    await closeDirectSnapshot(snapshot, deps, input.signal.aborted ? 'aborted' : 'error', failure);
    throw failure;
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

async function* track(
  events: AsyncIterable<UpstreamEvent>,
  snapshot: Snapshot,
  deps: PipelineDeps,
  started: number,
  abort: AbortController,
  clientSignal: AbortSignal,
  release: () => void,
): AsyncGenerator<UpstreamEvent> {
  let outcome: Snapshot['outcome'] = 'aborted';
  let failure: ProxyError | undefined;
  try {
    for await (const event of events) {
      if (event.type === 'delta') {
        snapshot.timings.firstTokenMs ??= deps.now() - started;
        if (event.content) snapshot.reply.content += event.content;
      } else {
        snapshot.reply.finishReason = event.finishReason;
        snapshot.usage = event.usage;
        outcome = 'ok';
      }
      yield event;
    }
  } catch (error) {
    failure = toProxyError(error);
    outcome = clientSignal.aborted ? 'aborted' : 'error';
    throw failure;
  } finally {
    if (outcome !== 'ok') abort.abort(new Error('client went away'));
    release();
    snapshot.timings.upstreamMs = deps.now() - started;
    await closeDirectSnapshot(snapshot, deps, outcome, failure);
  }
}
