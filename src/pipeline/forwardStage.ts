// Stage 6, forward: the request's record goes to the audit log first (outcome
// `in_flight`, see requestRecord.ts), then the prompt to the upstream. Errors
// the upstream answers at once (unknown model, unreachable) are thrown here.

import type { Forwarded, PipelineDeps, Prepared, Run } from './types.ts';

export async function forward(
  { run, prepared }: { run: Run; prepared: Prepared },
  deps: PipelineDeps,
): Promise<Forwarded> {
  await run.record.inFlight();
  const startedAt = deps.now();
  const events = await deps.upstream.chat(prepared.assembled.request, run.record.upstreamSignal);
  return { events, startedAt };
}
