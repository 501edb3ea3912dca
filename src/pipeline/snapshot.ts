// The audit snapshot's fields, built in one place: the empty record a request
// opens with (so a request that fails early is still recorded), and what the
// stages found, described once they have run. The answer's fields (reply,
// usage, timings, outcome) are added as it streams (recordStage.ts).

import type { BudgetReport, ContextPart, ModeRequest, Snapshot, SourceReport } from '../shared/types.ts';
import { contextReport } from './contextReport.ts';
import { storedMessages } from './images.ts';
import { addCounts } from './redactStage.ts';
import type { Admitted, PipelineDeps, Prepared } from './types.ts';

export interface RequestFacts {
  requestId: string;
  model: string;
  stream: boolean;
  userAgent?: string | undefined;
}

/** Nothing the client chose is in it yet: that is kept only once the field table and the redactor passed it. */
export function emptySnapshot(
  facts: RequestFacts,
  deps: Pick<PipelineDeps, 'newId' | 'settings'>,
  started: number,
  modeAsked: ModeRequest = deps.settings.mode,
): Snapshot {
  return {
    id: deps.newId(),
    requestId: facts.requestId,
    createdAt: started,
    model: facts.model,
    modeAsked,
    modeUsed: 'off',
    workspace: deps.settings.workspace,
    userAgent: facts.userAgent,
    stream: facts.stream,
    forwarded: [],
    sources: [],
    redactions: {},
    reply: { content: '' },
    timings: { totalMs: 0 },
    outcome: 'error',
    warnings: [],
  };
}

const NOTHING_ADMITTED: Pick<Admitted, 'counts' | 'warnings'> = { counts: {}, warnings: [] };

/** What the model is about to see and why: every field the stages decide. */
export function snapshotFields(
  prepared: Prepared,
  admitted: Pick<Admitted, 'counts' | 'warnings'> = NOTHING_ADMITTED,
): Partial<Snapshot> {
  const { selected, collected, redacted, budgeted, assembled } = prepared;
  const { budget, conversationId } = budgeted.turn;
  const { messages, numCtx } = assembled.request;
  const block = assembled.parts.find((part) => part.kind === 'block');
  return {
    // The model that ran: a `+mode` suffix is the mode's business, not the model's.
    model: selected.model,
    modeAsked: selected.modeAsked,
    modeUsed: budget.modeUsed,
    downgradeReason: budget.downgrade?.reason,
    workspace: selected.workspace,
    conversationId,
    forwarded: storedMessages(messages),
    contextBlock: block ? (messages[block.message]?.content as string) : undefined,
    sources: annotateReports(collected.reports, assembled.parts, budget.report.perEntry),
    redactions: addCounts({ ...redacted.counts }, admitted.counts),
    budget: { ...accountedBudget(budget.report, assembled.parts, numCtx), ...contextReport(prepared) },
    warnings: [...stageWarnings(prepared), ...admitted.warnings],
    timings: { totalMs: 0, collectMs: collected.ms },
  };
}

/** Short sentences for the snapshot and `X-Ctx-Warning`: whatever was downgraded, trimmed, dropped or assumed. */
function stageWarnings({ selected, collected, redacted, budgeted }: Prepared): string[] {
  const warnings = [...(collected.warnings ?? []), ...budgeted.turn.budget.warnings, ...budgeted.turn.warnings];
  if (collected.window.assumed) {
    warnings.push(`context window of ${selected.model} unknown; assumed ${collected.window.tokens} tokens`);
  }
  if (redacted.dropped.length > 0) {
    warnings.push(`dropped ${redacted.dropped.length} context item(s) that could not be scanned for secrets`);
  }
  const failed = collected.reports.filter((r) => r.status !== 'ok').map((r) => `${r.source} ${r.status}`);
  if (failed.length > 0) warnings.push(`context source(s) skipped: ${failed.join(', ')}`);
  return warnings;
}

/** The budget's report with the context counted as sent: carried parts included, parts by part. */
function accountedBudget(report: BudgetReport, parts: ContextPart[], numCtx: number | undefined): BudgetReport {
  const contextTokens = parts.reduce((sum, part) => sum + part.tokens, 0);
  // The budget counted carried parts as conversation (they were in the messages it fitted).
  const carried = parts.filter((part) => part.carried).reduce((sum, part) => sum + part.tokens, 0);
  return {
    ...report,
    conversationTokens: Math.max(0, report.conversationTokens - carried),
    contextTokens,
    numCtx,
    parts,
  };
}

/** Adds the tokens each source sent new in this request, and what was trimmed, to its report. */
function annotateReports(
  reports: SourceReport[],
  parts: ContextPart[],
  perEntry: BudgetReport['perEntry'],
): SourceReport[] {
  const trimmed = perEntry.flatMap((entry) => entry.trimmed);
  const fresh = parts.filter((part) => !part.carried).flatMap((part) => part.sources);
  return reports.map((report) => {
    const tokens = fresh.filter((s) => s.source === report.source).reduce((sum, s) => sum + s.tokens, 0);
    const cut = trimmed.filter((line) => line.startsWith(`${report.source}.`));
    return { ...report, tokens, ...(cut.length > 0 ? { trimmed: cut } : {}) };
  });
}
