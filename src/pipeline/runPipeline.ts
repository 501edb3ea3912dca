// The pipeline written out in one place:
// select mode → collect → redact → budget → assemble → forward → audit.
// Every I/O comes in through `deps`; the HTTP server and the CLI are two front
// doors to the same function.

import { nextCalibration } from '../budget/index.ts';
import { type ProxyError, toProxyError } from '../shared/errors.ts';
import type { UpstreamRequest } from '../shared/ports.ts';
import type { Snapshot, UpstreamEvent } from '../shared/types.ts';
import { closeSnapshot, recordInFlight, refuseIfAuditDown } from './auditTrail.ts';
import { cleanRequest, fieldWarnings, upstreamParams } from './cleanRequest.ts';
import { storedMessages } from './images.ts';
import { type PreparedContext, prepareContext } from './prepareContext.ts';
import { storedHeaders, storedText } from './storedText.ts';
import type { PipelineDeps, PipelineInput, PipelineResult } from './types.ts';

export type { PipelineDeps, PipelineHeaders, PipelineInput, PipelineResult, PipelineSettings } from './types.ts';

export async function runPipeline(input: PipelineInput, deps: PipelineDeps): Promise<PipelineResult> {
  const started = deps.now();
  // Nothing the client chose is kept before it went through the field table and the redactor.
  const snapshot = emptySnapshot({ requestId: '', model: '', stream: input.request.stream === true }, deps, started);
  const upstreamAbort = new AbortController();
  const onClientGone = () => upstreamAbort.abort(input.signal.reason);
  input.signal.addEventListener('abort', onClientGone, { once: true });
  // Findings outside the messages and the context (headers, tool schemas …); prepareContext adds its own.
  const counts = snapshot.redactions;
  try {
    refuseIfAuditDown(deps);
    Object.assign(
      snapshot,
      await storedHeaders({ ...input.headers, requestId: input.requestId }, deps.redactor, counts),
    );
    const cleaned = await cleanRequest(input.request, { kind: deps.upstream.kind, redactor: deps.redactor });
    addCounts(counts, cleaned.counts);
    snapshot.model = cleaned.request.model;
    const prepared = await prepareContext({ ...input, request: cleaned.request }, deps, snapshot.id);
    Object.assign(snapshot, prepared.snapshotFields);
    snapshot.forwarded = storedMessages(snapshot.forwarded);
    snapshot.redactions = addCounts({ ...snapshot.redactions }, counts);
    snapshot.warnings.push(...fieldWarnings(cleaned));
    const request: UpstreamRequest = {
      model: prepared.model,
      messages: prepared.messages,
      tools: cleaned.request.tools,
      params: upstreamParams(cleaned.request, deps.upstream.kind),
      numCtx: prepared.numCtx,
      think: prepared.modeUsed === 'quick' ? false : undefined,
    };
    await recordInFlight(snapshot, deps, started);
    const upstreamStarted = deps.now();
    const events = await deps.upstream.chat(request, upstreamAbort.signal);
    return {
      snapshotId: snapshot.id,
      modeUsed: prepared.modeUsed,
      warnings: snapshot.warnings,
      events: trackAnswer(events, {
        snapshot,
        prepared,
        deps,
        started,
        upstreamStarted,
        upstreamAbort,
        onClientGone,
        input,
      }),
    };
  } catch (error) {
    input.signal.removeEventListener('abort', onClientGone);
    const failure = toProxyError(error);
    if (snapshot.model === '')
      snapshot.model = (await storedText(input.request.model, 200, deps.redactor, counts)) ?? '';
    await closeSnapshot(snapshot, deps, started, input.signal.aborted ? 'aborted' : 'error', failure);
    throw failure;
  }
}

function addCounts(into: Record<string, number>, more: Record<string, number>): Record<string, number> {
  for (const [rule, n] of Object.entries(more)) into[rule] = (into[rule] ?? 0) + n;
  return into;
}

interface Tracking {
  snapshot: Snapshot;
  prepared: PreparedContext;
  deps: PipelineDeps;
  started: number;
  upstreamStarted: number;
  upstreamAbort: AbortController;
  onClientGone: () => void;
  input: PipelineInput;
}

async function* trackAnswer(events: AsyncIterable<UpstreamEvent>, t: Tracking): AsyncGenerator<UpstreamEvent> {
  const { snapshot, deps } = t;
  const reply = snapshot.reply;
  let outcome: Snapshot['outcome'] = 'aborted';
  let failure: ProxyError | undefined;
  try {
    for await (const event of events) {
      if (event.type === 'delta') {
        snapshot.timings.firstTokenMs ??= deps.now() - t.upstreamStarted;
        if (event.content) reply.content += event.content;
        if (event.reasoning) reply.reasoning = (reply.reasoning ?? '') + event.reasoning;
        if (event.toolCalls?.length) reply.toolCalls = [...(reply.toolCalls ?? []), ...event.toolCalls];
      } else {
        reply.finishReason = event.finishReason;
        snapshot.usage = event.usage;
        outcome = 'ok';
      }
      yield event;
    }
  } catch (error) {
    failure = toProxyError(error);
    outcome = t.input.signal.aborted ? 'aborted' : 'error';
    throw failure;
  } finally {
    // Stopping early (the client left, or the consumer gave up) must stop the model too.
    if (outcome !== 'ok') t.upstreamAbort.abort(new Error('client went away'));
    t.input.signal.removeEventListener('abort', t.onClientGone);
    snapshot.timings.upstreamMs = deps.now() - t.upstreamStarted;
    try {
      afterAnswer(t);
    } catch (error) {
      // Calibration is a refinement: it must never cost the request its snapshot.
      deps.logger.error('pipeline.after_answer_failed', { id: snapshot.id, error: (error as Error)?.name });
    }
    if (outcome === 'ok') t.prepared.remember?.(reply);
    await closeSnapshot(snapshot, deps, t.started, outcome, failure);
  }
}

/** Compares the model's own prompt count with our estimate: calibration and truncation check. */
function afterAnswer(t: Tracking): void {
  const actual = t.snapshot.usage?.promptTokens;
  const estimated = t.prepared.estimatedPromptTokens;
  if (!actual || !estimated) return;
  const calibration = t.deps.calibration;
  if (calibration) {
    const previous = calibration.get(t.prepared.model);
    const next = nextCalibration(previous, t.prepared.rawPromptTokens ?? estimated, actual);
    if (next !== previous) calibration.set(t.prepared.model, next);
  }
  if (t.prepared.suspectTruncation(estimated, actual)) {
    const warning = `the model counted ${actual} prompt tokens where ~${estimated} were sent: it may have cut the prompt`;
    t.snapshot.warnings.push(warning);
    t.deps.logger.warn('upstream.suspected_truncation', { model: t.prepared.model, estimated, actual });
  }
}

type AuditDeps = Pick<PipelineDeps, 'store' | 'logger' | 'now' | 'newId' | 'settings' | 'redactor'>;

interface RequestFacts {
  requestId: string;
  model: string;
  stream: boolean;
  userAgent?: string | undefined;
}

function emptySnapshot(facts: RequestFacts, deps: AuditDeps, started: number): Snapshot {
  return {
    id: deps.newId(),
    requestId: facts.requestId,
    createdAt: started,
    model: facts.model,
    modeAsked: deps.settings.mode,
    modeUsed: 'off',
    workspace: deps.settings.workspace,
    userAgent: facts.userAgent,
    stream: facts.stream,
    forwarded: [],
    sources: [],
    redactions: {},
    reply: { content: '' },
    timings: { totalMs: 0 },
    outcome: 'error',
    warnings: [],
  };
}

/** Writes the snapshot of a request rejected before the pipeline could start (bad JSON, too large, …). */
export async function recordRejectedRequest(
  deps: AuditDeps,
  details: { requestId: string; userAgent?: string | undefined; error: ProxyError },
): Promise<void> {
  const started = deps.now();
  const snapshot = emptySnapshot({ requestId: '', model: '', stream: false }, deps, started);
  Object.assign(snapshot, await storedHeaders(details, deps.redactor, snapshot.redactions));
  await closeSnapshot(snapshot, deps, started, 'error', details.error);
}
