// The product in one screen: a chat request goes
//   select → collect → redact → budget → assemble → forward → record
// through `deps.stages` (defaultDeps.ts sets the real ones; a caller may replace
// any). Every I/O comes in through `deps`; the HTTP server and the CLI are two
// front doors to the same stages, and the request's record (requestRecord.ts)
// is written whatever fails; the stages return fields, they never touch it.

import { admit, failRun, openRun } from './run.ts';
import { snapshotFields } from './snapshot.ts';
import type { PipelineDeps, PipelineInput, PipelineResult, Prepared } from './types.ts';

export { recordRejectedRequest } from './run.ts';
export type { PipelineDeps, PipelineHeaders, PipelineInput, PipelineResult, PipelineSettings } from './types.ts';

/** The stages before the forward: the exact messages the model would see. `ctxproxy preview` stops here. */
export async function prepare(input: PipelineInput, deps: PipelineDeps, snapshotId?: string): Promise<Prepared> {
  const { stages } = deps;
  const selected = await stages.select({ input }, deps);
  // Not awaited here: redact scans the client's messages while the sources run, then their items.
  const collecting = stages.collect({ input, selected }, deps);
  const redacted = await stages.redact({ input, selected, collected: collecting }, deps);
  // The later stages get the collection without its items, which only redacted reach them.
  const { items: _unredacted, ...collected } = await collecting;
  const budgeted = await stages.budget({ input, snapshotId, selected, collected, redacted }, deps);
  const assembled = await stages.assemble({ input, snapshotId, selected, collected, redacted, budgeted }, deps);
  return { input, snapshotId, selected, collected, redacted, budgeted, assembled };
}

export async function runPipeline(input: PipelineInput, deps: PipelineDeps): Promise<PipelineResult> {
  const run = openRun(input, deps);
  try {
    const admitted = await admit(run, deps);
    const prepared = await prepare({ ...input, request: admitted.request }, deps, run.record.id);
    // The door's warnings are in the record already (admit).
    run.record.describe(snapshotFields(prepared, { counts: admitted.counts, warnings: [] }));
    const forwarded = await deps.stages.forward({ run, prepared }, deps);
    const events = deps.stages.record({ run, prepared, forwarded }, deps);
    return {
      snapshotId: run.record.id,
      modeUsed: prepared.assembled.modeUsed,
      warnings: run.record.warnings,
      events,
      estimatedPromptTokens: prepared.budgeted.turn.budget.estimatedPromptTokens,
    };
  } catch (error) {
    throw await failRun(run, error);
  }
}
