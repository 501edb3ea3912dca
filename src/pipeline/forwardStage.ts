// Stage 6, forward: the request's record goes to the audit log first (outcome
// `in_flight`, see auditTrail.ts), then the prompt to the upstream. Errors the
// upstream answers at once (unknown model, unreachable) are thrown here.

import { recordInFlight } from './auditTrail.ts';
import type { Forwarded, PipelineDeps, Prepared, Run } from './types.ts';

export async function forward(
  { run, prepared }: { run: Run; prepared: Prepared },
  deps: PipelineDeps,
): Promise<Forwarded> {
  await recordInFlight(run.snapshot, deps, run.started);
  const startedAt = deps.now();
  const events = await deps.upstream.chat(prepared.assembled.request, run.upstreamAbort.signal);
  return { events, startedAt };
}
