// /v1/embeddings: the inputs are redacted (as chat messages are) and sent to
// the upstream's embed API with no context added. The audit keeps sizes and
// hashes of what was sent, never the vectors, and not the text: an index run
// over a whole repository would otherwise copy it into the log.

import { BadRequestError, ProxyError, toProxyError } from '../shared/errors.ts';
import type { ChatMessage } from '../shared/types.ts';
import { closeDirectSnapshot, openDirectSnapshot, shortHash } from './auditRecord.ts';
import { recordInFlight, refuseIfAuditDown } from './auditTrail.ts';
import { redactedValue } from './cleanRequest.ts';
import { redactMessages } from './redactStage.ts';
import { splitModelSuffix } from './selectMode.ts';
import type { PipelineDeps } from './types.ts';

export interface EmbeddingsInput {
  model: string;
  input: string[];
  dimensions?: number | undefined;
  requestId: string;
  userAgent?: string | undefined;
  signal: AbortSignal;
}

export interface EmbeddingsResult {
  snapshotId: string;
  /** The model that ran (any `+mode` suffix removed). */
  model: string;
  embeddings: number[][];
  promptTokens: number;
  /** For X-Ctx-Warning (an audit log that could not be written, …). */
  warnings: string[];
}

export async function runEmbeddings(input: EmbeddingsInput, deps: PipelineDeps): Promise<EmbeddingsResult> {
  const { model } = splitModelSuffix(input.model);
  const snapshot = await openDirectSnapshot(
    { requestId: input.requestId, model, stream: false, userAgent: input.userAgent },
    deps,
  );
  try {
    refuseIfAuditDown(deps);
    const embed = deps.upstream.embed;
    if (!embed) throw notSupported('/v1/embeddings', deps.upstream.kind);
    const counts = snapshot.redactions;
    const upstreamModel = await cleanedModel(model, deps, counts);
    const texts = deps.settings.redactMessages
      ? (await redactMessages(input.input.map(asMessage), deps.redactor, counts)).map((m) => m.content as string)
      : input.input;
    snapshot.forwarded = [{ role: 'user', content: describeInputs(texts) }];
    await recordInFlight(snapshot, deps, snapshot.createdAt);
    const started = deps.now();
    const result = await embed.call(
      deps.upstream,
      { model: upstreamModel, input: texts, dimensions: input.dimensions },
      input.signal,
    );
    snapshot.timings.upstreamMs = deps.now() - started;
    const dimensions = result.embeddings[0]?.length ?? 0;
    snapshot.reply = {
      content: `${result.embeddings.length} embedding(s) of ${dimensions} dimensions (vectors not kept)`,
      finishReason: 'stop',
    };
    const promptTokens = result.promptTokens ?? 0;
    snapshot.usage = { promptTokens, completionTokens: 0 };
    await closeDirectSnapshot(snapshot, deps, 'ok');
    return { snapshotId: snapshot.id, model, embeddings: result.embeddings, promptTokens, warnings: snapshot.warnings };
  } catch (error) {
    const failure = toProxyError(error);
    await closeDirectSnapshot(snapshot, deps, input.signal.aborted ? 'aborted' : 'error', failure);
    throw failure;
  }
}

function asMessage(text: string): ChatMessage {
  return { role: 'user', content: text };
}

/** One line per input: its size and a hash of the redacted text. */
function describeInputs(texts: string[]): string {
  const lines = texts.map((text, index) => `#${index} ${text.length} chars sha256:${shortHash(text)}`);
  return `embeddings request, ${texts.length} input(s), redacted; text not kept:\n${lines.join('\n')}`;
}

/**
 * The model name as it goes upstream: the client chose it, so it is scanned like the client's text
 * (a secret pasted into it reaches the upstream masked, which then does not know the model),
 * whatever redactMessages says, as the chat field table does.
 */
export async function cleanedModel(
  model: string,
  deps: Pick<PipelineDeps, 'redactor'>,
  counts: Record<string, number>,
): Promise<string> {
  try {
    return await redactedValue(model, deps.redactor, counts);
  } catch {
    throw new BadRequestError(
      'The model name could not be scanned for secrets, so the request was not forwarded.',
      'redaction_failed',
      'model',
    );
  }
}

export function notSupported(endpoint: string, kind: string): ProxyError {
  return new ProxyError(
    501,
    `${endpoint} is not supported with --upstream-kind ${kind}; use an Ollama upstream for it.`,
    'invalid_request_error',
    'not_implemented',
  );
}
