// "Why this context": one row per item the request forwarded (new, trimmed, or
// carried from an earlier turn) and per item it left out, each with the phrase
// its source gave for choosing it, its own tokens, and what became of it.

import type { BudgetReport, ContextPart, ContextPartItem, LeftOutItem } from '../shared/types.ts';
import { formatCount } from './format.ts';

interface SentRow {
  item: ContextPartItem;
  source: string;
  part: ContextPart;
  /** A snapshot written before items were recorded one by one: only the key is known. */
  keyOnly?: boolean;
}

/** What became of a forwarded item, in words. */
export function sentState(item: ContextPartItem, part: ContextPart): string {
  const trimmed = item.trimmed ? ', trimmed' : '';
  if (part.carried) return `carried from turn ${part.fromTurn}${trimmed}`;
  return `${part.kind === 'update' ? 'sent new, as an update' : 'sent new'}${trimmed}`;
}

/** An item whose source gave no reason (an older snapshot, a source that does not say) is not left blank. */
export function whyText(why: string | undefined): string {
  return why ?? '(its source gave no reason)';
}

function sentRows(parts: readonly ContextPart[]): SentRow[] {
  return parts.flatMap((part) =>
    part.sources.flatMap((share) =>
      share.items
        ? share.items.map((item) => ({ item, source: share.source, part }))
        : share.keys.map((key) => ({
            item: { key, title: key, chars: 0, tokens: 0 },
            source: share.source,
            part,
            keyOnly: true,
          })),
    ),
  );
}

function ItemName({ title, itemKey }: { title: string; itemKey: string }) {
  return (
    <>
      {title}
      <div class="mono small muted">{itemKey}</div>
    </>
  );
}

export function ContextWhy({ budget }: { budget: BudgetReport | undefined }) {
  const rows = sentRows(budget?.parts ?? []);
  const leftOut: LeftOutItem[] = budget?.leftOut ?? [];
  if (rows.length === 0 && leftOut.length === 0) {
    return <p class="muted">No context items: nothing was collected for this request.</p>;
  }
  return (
    <div class="scroll">
      <table class="list why">
        <thead>
          <tr>
            <th>Item</th>
            <th>Source</th>
            <th>Why it was chosen</th>
            <th class="num">Tokens</th>
            <th>Sent?</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(({ item, source, part, keyOnly }) => (
            <tr data-item={item.key} data-state={part.carried ? 'carried' : item.trimmed ? 'trimmed' : 'sent'}>
              <td class="item" data-label="Item">
                <ItemName title={item.title} itemKey={item.key} />
              </td>
              <td class="mono" data-label="Source">
                {source}
              </td>
              <td class="why-text" data-label="Why">
                {keyOnly ? '(not recorded: this snapshot is older than the why column)' : whyText(item.why)}
              </td>
              <td class="num" data-label="Tokens">
                {keyOnly ? '–' : formatCount(item.tokens)}
              </td>
              <td data-label="Sent?">{sentState(item, part)}</td>
            </tr>
          ))}
          {leftOut.map((item) => (
            <tr data-item={item.key} data-state="left-out" class="left-out">
              <td class="item" data-label="Item">
                <ItemName title={item.title} itemKey={item.key} />
              </td>
              <td class="mono" data-label="Source">
                {item.source}
              </td>
              <td class="why-text" data-label="Why">
                {whyText(item.why)}
              </td>
              <td class="num" data-label="Tokens">
                –
              </td>
              <td data-label="Sent?">left out: {item.reason}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
