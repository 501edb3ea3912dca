// The audit's answer to "why was this sent, and why was that not": every item
// the sources collected and this request did not forward, with the reason, and
// why the request ran in its mode. What was forwarded is accounted item by item
// in the context parts (assemble.ts accountItems); this is the rest. Pure: it
// reads what the stages returned and recorded.

import { entryMatches } from '../budget/index.ts';
import type { BudgetReport, ContextItem, LeftOutItem } from '../shared/types.ts';
import type { Prepared } from './types.ts';

/** The budget's line for an item it had no room for (contextFit.ts): `key (dropped: needs ~N tokens)`. */
const BUDGET_DROP = /^(.+) \(dropped: needs ~(\d+) tokens\)$/;
/** The budget stage's skip entry for an item another one already covers (repeats.ts). */
const REPEAT_PREFIX = 'left out: ';

export function contextReport(prepared: Prepared): Pick<BudgetReport, 'leftOut' | 'modeReason'> {
  return { leftOut: leftOutItems(prepared), modeReason: prepared.selected.reason };
}

function leftOutItems({ collected, redacted, budgeted, assembled }: Prepared): LeftOutItem[] {
  const sent = new Set(assembled.parts.flatMap((part) => part.sources.flatMap((source) => source.keys)));
  const unscanned = new Set(redacted.dropped.map((item) => item.key));
  const repeats = new Map<string, string>();
  for (const report of collected.reports) {
    for (const skip of report.skipped) {
      if (skip.reason.startsWith(REPEAT_PREFIX)) repeats.set(skip.path, skip.reason.slice(REPEAT_PREFIX.length));
    }
  }
  const overBudget = new Map<string, number>();
  for (const entry of budgeted.turn.budget.report.perEntry) {
    for (const line of entry.trimmed) {
      const match = BUDGET_DROP.exec(line);
      if (match) overBudget.set(match[1] as string, Number(match[2]));
    }
  }
  const { plan } = budgeted.turn.budget;
  const reasonFor = (item: Pick<ContextItem, 'key'>): string => {
    if (unscanned.has(item.key)) return 'could not be scanned for secrets, so it was not sent';
    const repeat = repeats.get(item.key);
    if (repeat !== undefined) return repeat;
    const needs = overBudget.get(item.key);
    if (needs !== undefined) return `over budget: needs ~${needs.toLocaleString('en-US')} tokens`;
    if (!plan.entries.some((entry) => entryMatches(entry, item.key))) return `not in the ${plan.mode} plan`;
    // The budget names every item it was offered and did not keep; this one it was not offered.
    return 'a follow-up without a new user message: nothing new is attached';
  };
  const seen = new Set<string>();
  const out: LeftOutItem[] = [];
  // Redacted items only (an unscanned one is named by its path, its title was not scanned).
  const candidates: Pick<ContextItem, 'key' | 'source' | 'title' | 'path' | 'why'>[] = [
    ...redacted.items,
    ...redacted.dropped.map((item) => ({ ...item, title: item.path ?? item.key })),
  ];
  for (const item of candidates) {
    if (sent.has(item.key) || seen.has(item.key)) continue;
    seen.add(item.key);
    out.push({
      key: item.key,
      source: item.source,
      title: item.title,
      ...(item.path !== undefined ? { path: item.path } : {}),
      ...(item.why !== undefined ? { why: item.why } : {}),
      reason: reasonFor(item),
    });
  }
  return out;
}
