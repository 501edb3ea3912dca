// One request on its way through runPipeline: opened with an empty snapshot (so
// that whatever fails is still recorded), admitted past the field table, and
// closed with its error when a stage throws.

import { type ProxyError, toProxyError } from '../shared/errors.ts';
import { closeSnapshot, refuseIfAuditDown } from './auditTrail.ts';
import { cleanRequest, fieldWarnings } from './cleanRequest.ts';
import { withoutHostedTools } from './hostedTools.ts';
import { addCounts } from './redactStage.ts';
import { lastUserText } from './selectMode.ts';
import { emptySnapshot } from './snapshot.ts';
import { storedHeaders, storedText } from './storedText.ts';
import type { Admitted, PipelineDeps, PipelineInput, Run } from './types.ts';

/** A refused request's question as stored: enough to recognise it in the list. */
const QUESTION_BYTES = 8_000;

type AuditDeps = Pick<PipelineDeps, 'store' | 'logger' | 'now' | 'newId' | 'settings' | 'redactor'>;

export function openRun(input: PipelineInput, deps: PipelineDeps): Run {
  const started = deps.now();
  const snapshot = emptySnapshot({ requestId: '', model: '', stream: input.request.stream === true }, deps, started);
  const upstreamAbort = new AbortController();
  const onClientGone = () => upstreamAbort.abort(input.signal.reason);
  input.signal.addEventListener('abort', onClientGone, { once: true });
  return { input, snapshot, started, upstreamAbort, onClientGone };
}

/**
 * Before any stage: the audit log can write (under --require-audit), the headers are stored
 * redacted, hosted tools are left out (hostedTools.ts), and the request's fields are cleaned by the
 * field table (fieldPolicy.ts).
 */
export async function admit(run: Run, deps: PipelineDeps): Promise<Admitted> {
  refuseIfAuditDown(deps);
  // Findings outside the messages and the context (headers, tool schemas …); the stages count their own.
  const counts = run.snapshot.redactions;
  // An id the server minted holds none of the client's text: stored as it is, with no scan (a unique
  // text each time, it would only crowd the redactor's result cache).
  const minted = run.input.requestIdMinted === true;
  const headers = { ...run.input.headers, requestId: minted ? '' : run.input.requestId };
  Object.assign(run.snapshot, await storedHeaders(headers, deps.redactor, counts));
  if (minted) run.snapshot.requestId = run.input.requestId;
  // Before the field table: a hosted tool's fields are not the table's to count as unknown.
  const runnable = await withoutHostedTools(run.input.request, deps.redactor);
  const cleaned = await cleanRequest(runnable.request, { kind: deps.upstream.kind, redactor: deps.redactor });
  addCounts(counts, cleaned.counts);
  run.snapshot.model = cleaned.request.model;
  const warnings = [
    ...(run.input.warnings ?? []),
    ...(runnable.warning ? [runnable.warning] : []),
    ...fieldWarnings(cleaned),
  ];
  return { request: cleaned.request, counts, warnings };
}

/** Writes the snapshot of a request that failed before its answer began; returns the error to throw. */
export async function failRun(run: Run, error: unknown, deps: PipelineDeps): Promise<ProxyError> {
  const { input, snapshot } = run;
  input.signal.removeEventListener('abort', run.onClientGone);
  const failure = toProxyError(error);
  if (snapshot.model === '')
    snapshot.model = (await storedText(input.request.model, 200, deps.redactor, snapshot.redactions)) ?? '';
  // Refused before anything was forwarded: the question is kept (redacted) so the list can show what was asked.
  if (snapshot.forwarded.length === 0) {
    const asked = lastUserText(input.request.messages ?? []);
    snapshot.question = await storedText(asked, QUESTION_BYTES, deps.redactor, snapshot.redactions);
  }
  await closeSnapshot(snapshot, deps, run.started, input.signal.aborted ? 'aborted' : 'error', failure);
  return failure;
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
