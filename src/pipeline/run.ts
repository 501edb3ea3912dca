// One request on its way through runPipeline: its record opened before any
// work (requestRecord.ts, so that whatever fails is still recorded), admitted
// past the field table, and failed with its error when a stage throws.

import type { ProxyError, RecordedFailure } from '../shared/errors.ts';
import { cleanRequest, fieldWarnings } from './cleanRequest.ts';
import { withoutHostedTools } from './hostedTools.ts';
import { type RecordDeps, RequestRecord } from './requestRecord.ts';
import { lastUserText } from './selectMode.ts';
import type { Admitted, PipelineDeps, PipelineInput, Run } from './types.ts';

export function openRun(input: PipelineInput, deps: PipelineDeps): Run {
  const record = RequestRecord.open(
    {
      requestId: input.requestId,
      requestIdMinted: input.requestIdMinted,
      userAgent: input.headers.userAgent,
      model: input.request.model,
      stream: input.request.stream === true,
      signal: input.signal,
      question: () => lastUserText(input.request.messages ?? []),
    },
    deps,
  );
  return { input, record };
}

/**
 * Before any stage: the audit log can write (under --require-audit), the headers are stored
 * redacted, hosted tools are left out (hostedTools.ts), and the request's fields are cleaned by the
 * field table (fieldPolicy.ts).
 */
export async function admit(run: Run, deps: PipelineDeps): Promise<Admitted> {
  run.record.refuseIfAuditDown();
  // Before the field table: a hosted tool's fields are not the table's to count as unknown.
  const runnable = await withoutHostedTools(run.input.request, deps.redactor);
  const cleaned = await cleanRequest(runnable.request, { kind: deps.upstream.kind, redactor: deps.redactor });
  const warnings = [
    ...(run.input.warnings ?? []),
    ...(runnable.warning ? [runnable.warning] : []),
    ...fieldWarnings(cleaned),
  ];
  await run.record.admit({ model: cleaned.request.model, counts: cleaned.counts, warnings });
  return { request: cleaned.request, counts: run.record.counts, warnings };
}

/** Closes the record of a request that failed before its answer began; returns the failure to throw. */
export function failRun(run: Run, error: unknown): Promise<RecordedFailure> {
  return run.record.fail(error);
}

/** Writes the record of a request rejected before the pipeline could start (bad JSON, too large, …); its id. */
export async function recordRejectedRequest(
  deps: RecordDeps,
  details: { requestId: string; userAgent?: string | undefined; error: ProxyError },
): Promise<string> {
  const never = new AbortController().signal;
  const record = RequestRecord.open({ ...details, model: '', stream: false, signal: never }, deps);
  return (await record.fail(details.error)).snapshotId;
}
