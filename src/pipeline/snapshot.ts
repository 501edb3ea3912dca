// The audit snapshot's fields, built in one place: the empty record a request
// opens with (so a request that fails early is still recorded), and what the
// stages found, described once they have run. The answer's fields (reply,
// usage, timings, outcome) are added as it streams (recordStage.ts).

import { entryMatches } from '../budget/index.ts';
import type { BudgetReport, ContextPart, ContextPartSource, Snapshot, SourceReport } from '../shared/types.ts';
import { contextReport } from './contextReport.ts';
import { storedMessages } from './images.ts';
import { addCounts } from './redactionCounts.ts';
import type { Admitted, Prepared } from './types.ts';

const NOTHING_ADMITTED: Pick<Admitted, 'counts' | 'warnings'> = { counts: {}, warnings: [] };

/** What the model is about to see and why: every field the stages decide. */
export function snapshotFields(
  prepared: Prepared,
  admitted: Pick<Admitted, 'counts' | 'warnings'> = NOTHING_ADMITTED,
): Partial<Snapshot> {
  const { selected, collected, redacted, budgeted, assembled } = prepared;
  const { budget, conversationId } = budgeted.turn;
  const { messages } = assembled.request;
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
    budget: { ...accountedBudget(budget.report, assembled), ...contextReport(prepared) },
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

/**
 * The budget's report with its figures counted on what was sent (sentFigures.ts): the raw figures,
 * the calibrated ones beside them, and each plan entry's tokens as forwarded, carried ones included.
 */
function accountedBudget(report: BudgetReport, assembled: Prepared['assembled']): BudgetReport {
  const { parts, figures } = assembled;
  const sent = parts.flatMap((part) => part.sources.flatMap(keyTokens));
  const entryOf = (key: string) =>
    report.perEntry.findIndex((entry) => entryMatches({ ...entry, weight: 0, cap: 0 }, key));
  const used = report.perEntry.map(() => 0);
  for (const [key, tokens] of sent) {
    const at = entryOf(key);
    if (at >= 0) used[at] = (used[at] ?? 0) + tokens;
  }
  return {
    ...report,
    promptTokens: figures.promptTokens,
    conversationTokens: figures.conversationTokens,
    contextTokens: figures.contextTokens,
    calibrated: figures.calibrated,
    numCtx: assembled.request.numCtx,
    perEntry: report.perEntry.map((entry, index) => ({ ...entry, used: used[index] ?? 0 })),
    parts,
  };
}

/** Each key of a part's source with its tokens (split evenly when an older record kept only the total). */
function keyTokens(source: ContextPartSource): [string, number][] {
  return source.keys.map((key, index) => [
    key,
    source.items?.[index]?.tokens ?? Math.round(source.tokens / Math.max(1, source.keys.length)),
  ]);
}

/** Adds the tokens each source had in the forwarded messages (carried ones included, and apart), and what was trimmed. */
function annotateReports(
  reports: SourceReport[],
  parts: ContextPart[],
  perEntry: BudgetReport['perEntry'],
): SourceReport[] {
  const trimmed = perEntry.flatMap((entry) => entry.trimmed);
  const shares = parts.flatMap((part) => part.sources.map((source) => ({ source, carried: part.carried })));
  return reports.map((report) => {
    const own = shares.filter((share) => share.source.source === report.source);
    const tokens = own.reduce((sum, share) => sum + share.source.tokens, 0);
    const carried = own.filter((share) => share.carried).reduce((sum, share) => sum + share.source.tokens, 0);
    const cut = trimmed.filter((line) => line.startsWith(`${report.source}.`));
    return {
      ...report,
      tokens,
      ...(carried > 0 ? { carriedTokens: carried } : {}),
      ...(cut.length > 0 ? { trimmed: cut } : {}),
    };
  });
}
