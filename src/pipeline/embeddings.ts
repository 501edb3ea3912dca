// /v1/embeddings: the inputs are redacted (as chat messages are) and sent to
// the upstream's embed API with no context added. The audit keeps sizes and
// hashes of what was sent, never the vectors, and not the text: an index run
// over a whole repository would otherwise copy it into the log.

import { contentHash } from '../shared/contentHash.ts';
import { BadRequestError, ProxyError } from '../shared/errors.ts';
import type { ChatMessage } from '../shared/types.ts';
import { redactedValue } from './cleanRequest.ts';
import { redactMessages } from './redactStage.ts';
import { RequestRecord } from './requestRecord.ts';
import { splitModelSuffix } from './selectMode.ts';
import { storedText } from './storedText.ts';
import type { PipelineDeps } from './types.ts';

export interface EmbeddingsInput {
  model: string;
  input: string[];
  dimensions?: number | undefined;
  requestId: string;
  requestIdMinted?: boolean | undefined;
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
  const record = RequestRecord.open({ ...input, model, stream: false, modeAsked: 'off' }, deps);
  try {
    record.refuseIfAuditDown();
    // The model as the client chose it, stored redacted; no context is ever added here.
    await record.admit({ model: await storedModel(model, deps, record.counts) });
    const embed = deps.upstream.embed;
    if (!embed) throw notSupported('/v1/embeddings', deps.upstream.kind);
    const counts = record.counts;
    const upstreamModel = await cleanedModel(model, deps, counts);
    const texts = deps.settings.redactMessages
      ? (await redactMessages(input.input.map(asMessage), deps.redactor, counts)).map((m) => m.content as string)
      : input.input;
    record.describe({ forwarded: [{ role: 'user', content: describeInputs(texts) }] });
    await record.inFlight();
    const startedAt = deps.now();
    const result = await embed.call(
      deps.upstream,
      { model: upstreamModel, input: texts, dimensions: input.dimensions },
      record.upstreamSignal,
    );
    const dimensions = result.embeddings[0]?.length ?? 0;
    const promptTokens = result.promptTokens ?? 0;
    record.describe({
      reply: {
        content: `${result.embeddings.length} embedding(s) of ${dimensions} dimensions (vectors not kept)`,
        finishReason: 'stop',
      },
      usage: { promptTokens, completionTokens: 0 },
      timings: { totalMs: 0, upstreamMs: deps.now() - startedAt },
    });
    await record.close('ok');
    return { snapshotId: record.id, model, embeddings: result.embeddings, promptTokens, warnings: record.warnings };
  } catch (error) {
    throw await record.fail(error);
  }
}

/** The model name as the audit keeps it: capped and redacted, as every header is. */
export async function storedModel(
  model: string,
  deps: Pick<PipelineDeps, 'redactor'>,
  counts: Record<string, number>,
): Promise<string> {
  return (await storedText(model, 200, deps.redactor, counts)) ?? '';
}

/** A short content hash for the audit: enough to match two requests, never the text. */
export function shortHash(text: string): string {
  return contentHash(text).slice(0, 16);
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
