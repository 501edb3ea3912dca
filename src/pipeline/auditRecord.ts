// The audit snapshot of a request that does not go through the chat pipeline
// (/v1/embeddings, /v1/completions): opened when the request starts, written
// once when it ends, answered, failed or aborted. Same shape as a chat's, so
// the audit list, the detail page and the CLI show them without changes.

import { createHash } from 'node:crypto';
import type { ProxyError } from '../shared/errors.ts';
import type { Snapshot } from '../shared/types.ts';
import { closeSnapshot } from './auditTrail.ts';
import { emptySnapshot } from './snapshot.ts';
import { storedHeaders, storedText } from './storedText.ts';
import type { PipelineDeps } from './types.ts';

type AuditDeps = Pick<PipelineDeps, 'store' | 'logger' | 'now' | 'newId' | 'settings' | 'redactor'>;

export interface DirectRequestFacts {
  requestId: string;
  model: string;
  stream: boolean;
  userAgent?: string | undefined;
}

/** Like the chat pipeline's: what the client chose (model, headers) is stored capped and redacted. */
export async function openDirectSnapshot(facts: DirectRequestFacts, deps: AuditDeps): Promise<Snapshot> {
  const createdAt = deps.now();
  const redactions: Record<string, number> = {};
  const [headers, model] = await Promise.all([
    storedHeaders({ userAgent: facts.userAgent, requestId: facts.requestId }, deps.redactor, redactions),
    storedText(facts.model, 200, deps.redactor, redactions),
  ]);
  const kept = { requestId: headers.requestId, model: model ?? '', stream: facts.stream, userAgent: headers.userAgent };
  // No context is ever added on these endpoints: the mode is off whatever was asked.
  return { ...emptySnapshot(kept, deps, createdAt, 'off'), redactions };
}

export async function closeDirectSnapshot(
  snapshot: Snapshot,
  deps: AuditDeps,
  outcome: Snapshot['outcome'],
  failure?: ProxyError,
): Promise<void> {
  await closeSnapshot(snapshot, deps, snapshot.createdAt, outcome, failure);
}

/** A short content hash for the audit: enough to match two requests, never the text. */
export function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}
