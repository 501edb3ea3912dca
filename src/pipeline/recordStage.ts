// Stage 7, record: follows the answer as the client reads it, into the
// snapshot (reply, usage, time to first token), then writes the snapshot
// whatever the outcome. An answer that ends well also keeps this turn's
// conversation state for the next and refines the model's calibration.

import { setImmediate } from 'node:timers/promises';
import { nextCalibration, suspectTruncation } from '../budget/index.ts';
import { type ProxyError, toProxyError } from '../shared/errors.ts';
import type { Snapshot, UpstreamEvent } from '../shared/types.ts';
import { closeSnapshot } from './auditTrail.ts';
import { rememberTurn } from './conversationPrefix.ts';
import type { Forwarded, PipelineDeps, Prepared, Run } from './types.ts';

export async function* record(
  { run, prepared, forwarded }: { run: Run; prepared: Prepared; forwarded: Forwarded },
  deps: PipelineDeps,
): AsyncGenerator<UpstreamEvent> {
  const { snapshot } = run;
  const reply = snapshot.reply;
  let outcome: Snapshot['outcome'] = 'aborted';
  let failure: ProxyError | undefined;
  try {
    for await (const event of forwarded.events) {
      if (event.type === 'delta') {
        snapshot.timings.firstTokenMs ??= deps.now() - forwarded.startedAt;
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
    outcome = run.input.signal.aborted ? 'aborted' : 'error';
    throw failure;
  } finally {
    // Stopping early (the client left, or the consumer gave up) must stop the model too.
    if (outcome !== 'ok') run.upstreamAbort.abort(new Error('client went away'));
    run.input.signal.removeEventListener('abort', run.onClientGone);
    snapshot.timings.upstreamMs = deps.now() - forwarded.startedAt;
    // Before the last frames leave: the client may send its next turn as soon as it reads them.
    const { next } = prepared.budgeted.turn;
    if (outcome === 'ok') rememberTurn(deps.conversations, prepared.budgeted.keys, reply, next);
    // A stream's frames of this turn leave at its end (http/nodeSse.ts), the last ones too: what
    // follows only completes the audit (calibration, the final save, the log line), so it waits for
    // them instead of holding the answer's bytes back. The in-flight record went to disk before the
    // prompt went upstream, unless the audit could not write and was not required (the request then
    // carries a warning, and this final save is queued like any other).
    if (snapshot.stream) await setImmediate();
    try {
      checkPromptCount(snapshot, prepared, deps);
    } catch (error) {
      // Calibration is a refinement: it must never cost the request its snapshot.
      deps.logger.error('pipeline.after_answer_failed', { id: snapshot.id, error: (error as Error)?.name });
    }
    await closeSnapshot(snapshot, deps, run.started, outcome, failure);
  }
}

/** Compares the model's own prompt count with our estimate: calibration and truncation check. */
function checkPromptCount(snapshot: Snapshot, prepared: Prepared, deps: PipelineDeps): void {
  const actual = snapshot.usage?.promptTokens;
  const { estimatedPromptTokens: estimated, rawEstimatedPromptTokens: raw } = prepared.budgeted.turn.budget;
  if (!actual || !estimated) return;
  const model = prepared.selected.model;
  const calibration = deps.calibration;
  if (calibration) {
    const previous = calibration.get(model);
    const next = nextCalibration(previous, raw ?? estimated, actual);
    if (next !== previous) calibration.set(model, next);
  }
  if (suspectTruncation(estimated, actual)) {
    const warning = `the model counted ${actual} prompt tokens where ~${estimated} were sent: it may have cut the prompt`;
    snapshot.warnings.push(warning);
    deps.logger.warn('upstream.suspected_truncation', { model, estimated, actual });
  }
}
