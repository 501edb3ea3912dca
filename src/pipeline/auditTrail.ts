// The audit side of a request that goes to the model: its record is written
// (outcome `in_flight`) before the upstream sees the prompt, so a crash or a
// SIGKILL mid-answer still leaves it in the log (marked `interrupted` at the
// next start). When the store cannot write, the answer still goes out with a
// warning, or, under --require-audit, the request is refused before anything
// is sent.

import { AuditUnavailableError } from '../shared/errors.ts';
import type { AuditStore, AuditWrite, Logger } from '../shared/ports.ts';
import type { Snapshot } from '../shared/types.ts';

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
