// The audit side of a request that goes to the model: its record is written
// (outcome `in_flight`) before the upstream sees the prompt, so a crash or a
// SIGKILL mid-answer still leaves it in the log (marked `interrupted` at the
// next start). When the store cannot write, the answer still goes out with a
// warning, or, under --require-audit, the request is refused before anything
// is sent.

import { AuditUnavailableError, type ProxyError } from '../shared/errors.ts';
import type { AuditStore, AuditWrite, Logger } from '../shared/ports.ts';
import type { Redactor, Snapshot } from '../shared/types.ts';
import { storedErrorMessage, storedReply } from './storedText.ts';

interface AuditTrailDeps {
  store: AuditStore;
  logger: Logger;
  now: () => number;
  settings: { requireAudit?: boolean | undefined };
}

/** Under --require-audit a store already known not to write refuses the request before any work. */
export function refuseIfAuditDown(deps: AuditTrailDeps): void {
  if (!deps.settings.requireAudit) return;
  const health = deps.store.health();
  if (!health.writable) throw new AuditUnavailableError(health.reason ?? 'unknown reason');
}

/** Writes the request's in-flight record; a record not on disk becomes a warning, or a 503 under --require-audit. */
export async function recordInFlight(snapshot: Snapshot, deps: AuditTrailDeps, started: number): Promise<void> {
  // A copy: the request's own snapshot keeps changing while the answer streams.
  const record: Snapshot = {
    ...snapshot,
    outcome: 'in_flight',
    timings: { ...snapshot.timings, totalMs: deps.now() - started },
    warnings: [...snapshot.warnings],
    reply: { content: '' },
  };
  let result: AuditWrite;
  try {
    result = await deps.store.saveInFlight(record);
  } catch (error) {
    deps.logger.error('audit.save_failed', { id: snapshot.id, error: (error as Error)?.name });
    result = { written: false, reason: 'the audit store failed' };
  }
  if (result.written) return;
  if (deps.settings.requireAudit) throw new AuditUnavailableError(result.reason);
  snapshot.warnings.push(`audit log not written (${result.reason})`);
}

/**
 * Completes a request's snapshot (outcome, total time, the reply redacted, the error redacted and
 * capped: a message can quote the request) and hands it to the store, which never throws on the
 * request's path. The one place every route's snapshot passes before it is written.
 */
export async function closeSnapshot(
  snapshot: Snapshot,
  deps: AuditTrailDeps & { redactor: Redactor },
  started: number,
  outcome: Snapshot['outcome'],
  failure?: ProxyError,
): Promise<void> {
  snapshot.outcome = outcome;
  snapshot.timings.totalMs = deps.now() - started;
  // A new object: the conversation memory may hold the reply as the model sent it, for the next turn.
  snapshot.reply = await storedReply(snapshot.reply, deps.redactor, snapshot.redactions);
  if (failure) {
    const message = await storedErrorMessage(failure.message, deps.redactor, snapshot.redactions);
    snapshot.error = { status: failure.status, type: failure.type, code: failure.code, message };
    failure.snapshotId = snapshot.id;
  }
  try {
    deps.store.save(snapshot);
  } catch (error) {
    deps.logger.error('audit.save_failed', { id: snapshot.id, error: (error as Error)?.name });
  }
  deps.logger.info('request.done', {
    id: snapshot.id,
    requestId: snapshot.requestId,
    mode: snapshot.modeUsed,
    outcome,
    status: failure?.status,
    ms: snapshot.timings.totalMs,
    promptTokens: snapshot.usage?.promptTokens,
    completionTokens: snapshot.usage?.completionTokens,
  });
}
