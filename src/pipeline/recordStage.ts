// Stage 7, record: the request's record follows the answer as the client reads
// it and closes whatever the outcome (requestRecord.ts's tap). An answer that
// ends well is then handed to the owners of what follows it: the conversation
// keeps this turn's state for the next (before the last frames leave, since the
// client may send its next turn as soon as it reads them), and the model's
// calibration learns from its own prompt count (after them).

import { nextCalibration, suspectTruncation } from '../budget/index.ts';
import type { UpstreamEvent } from '../shared/types.ts';
import { rememberTurn } from './conversationPrefix.ts';
import type { Answered } from './requestRecord.ts';
import type { Forwarded, PipelineDeps, Prepared, Run } from './types.ts';

export function record(
  { run, prepared, forwarded }: { run: Run; prepared: Prepared; forwarded: Forwarded },
  deps: PipelineDeps,
): AsyncGenerator<UpstreamEvent> {
  return run.record.tap(forwarded.events, {
    startedAt: forwarded.startedAt,
    beforeLastFrames: ({ reply }) =>
      rememberTurn(deps.conversations, prepared.budgeted.keys, reply, prepared.budgeted.turn.next),
    afterAnswer: (answered) => checkPromptCount(answered, prepared, deps),
  });
}

/** Compares the model's own prompt count with our estimate: calibration and truncation check. */
function checkPromptCount({ usage, warn }: Answered, prepared: Prepared, deps: PipelineDeps): void {
  const actual = usage?.promptTokens;
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
    warn(`the model counted ${actual} prompt tokens where ~${estimated} were sent: it may have cut the prompt`);
    deps.logger.warn('upstream.suspected_truncation', { model, estimated, actual });
  }
}
