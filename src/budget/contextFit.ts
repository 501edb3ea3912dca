// Fitting the collected items into the tokens the conversation left. Each plan
// entry gets a share of `available` by weight, capped by its `cap`; what an
// entry does not use flows to the next entries in plan order, and whatever is
// still unused at the end is offered once more, in plan order, to the entries
// that had to cut something. Inside an entry the budget is shared max-min fair
// (small items whole, the large ones trimmed to equal shares), and when the
// shares get too thin the lowest-priority item is dropped first.
//
// Relevance to the question comes before that (relevance.ts): inside an entry,
// the items that mention the question's identifiers or paths are served first,
// then changed code, then the rest, each tier max-min fair in what the tiers
// before it left; a relevant item is trimmed around its mentions; and the
// unused budget goes first to the entries that had to cut a relevant item.
// Without terms, every entry holds one tier and nothing changes.

import type { BudgetReport, ContextItem, Plan, PlanEntry } from '../shared/types.ts';
import { NO_TERMS, type QuestionTerms, termMatcher } from './questionTerms.ts';
import { itemTier, type Matcher, NAMED_TIER } from './relevance.ts';
import type { TokenCounter } from './tokenCounter.ts';
import { trimItem } from './trim.ts';

/** Below this, a trimmed item says too little to be worth its fence. */
export const MIN_USEFUL_ITEM_TOKENS = 32;

export interface FitContextInput {
  plan: Plan;
  items: ContextItem[];
  available: number;
  counter: TokenCounter;
  /** Tokens the assembler adds around one item; defaults to `fenceTokens`. */
  itemOverhead?: ((item: ContextItem) => number) | undefined;
  /** What the latest question names (questionTerms.ts); ranks and trims by relevance. */
  terms?: QuestionTerms | undefined;
}

export interface FitContextResult {
  /** Kept items, in plan order (by entry, then priority). */
  items: ContextItem[];
  report: BudgetReport['perEntry'];
  /** Tokens of the kept items, fences included. */
  contextTokens: number;
  /** Keys no entry of the plan asked for (left out). */
  unmatched: string[];
}

/** The `<context source="…" title="…">` fence the assembler wraps around each item. */
export function fenceTokens(item: ContextItem, counter: TokenCounter): number {
  return counter.count(`<context source="${item.key}" title="${item.title}">\n\n</context>\n`);
}

export function entryMatches(entry: PlanEntry, key: string): boolean {
  if (entry.items.endsWith('.')) return key.startsWith(entry.items);
  return key === entry.items || key.startsWith(`${entry.items}.`);
}

interface Candidate {
  item: ContextItem;
  cost: number;
  overhead: number;
  /** NAMED_TIER, CHANGED_TIER or OTHER_TIER (relevance.ts). */
  tier: number;
}

interface EntryFit {
  budget: number;
  used: number;
  demand: number;
  kept: { item: ContextItem; tokens: number }[];
  trimmed: string[];
  /** True when an item that mentions the question's terms was trimmed or dropped. */
  cutRelevant: boolean;
}

function waterFill(costs: number[], budget: number): number[] {
  const order = costs.map((_, i) => i).sort((a, b) => (costs[a] ?? 0) - (costs[b] ?? 0));
  const allocs = new Array<number>(costs.length).fill(0);
  let remaining = budget;
  order.forEach((index, rank) => {
    const share = Math.floor(remaining / (order.length - rank));
    const alloc = Math.min(costs[index] ?? 0, share);
    allocs[index] = alloc;
    remaining -= alloc;
  });
  return allocs;
}

/** Allocations for candidates sorted by priority (highest first); 0 means dropped. */
function allocate(candidates: Candidate[], budget: number): number[] {
  const active = candidates.map(() => true);
  for (;;) {
    const indexes = candidates.flatMap((_, i) => (active[i] ? [i] : []));
    const fill = waterFill(
      indexes.map((i) => candidates[i]?.cost ?? 0),
      budget,
    );
    const allocs = new Array<number>(candidates.length).fill(0);
    indexes.forEach((candidateIndex, k) => {
      allocs[candidateIndex] = fill[k] ?? 0;
    });
    const starved = indexes.filter((i) => {
      const c = candidates[i] as Candidate;
      return (allocs[i] ?? 0) < Math.min(c.cost, c.overhead + MIN_USEFUL_ITEM_TOKENS);
    });
    const lowest = starved.at(-1);
    if (lowest === undefined || indexes.length <= 1) return allocs;
    active[lowest] = false;
  }
}

/**
 * Allocations for candidates sorted by priority: the most relevant tier first,
 * each tier from what the tiers above left. The order of the items (their
 * place in the block) stays by priority, so ranking changes what fits, not
 * where it goes.
 */
function allocateByTier(candidates: Candidate[], budget: number): number[] {
  const tiers = [...new Set(candidates.map((c) => c.tier))].sort((a, b) => b - a);
  if (tiers.length <= 1) return allocate(candidates, budget);
  const allocs = new Array<number>(candidates.length).fill(0);
  let remaining = budget;
  for (const tier of tiers) {
    const indexes = candidates.flatMap((c, i) => (c.tier === tier ? [i] : []));
    const tierAllocs = allocate(
      indexes.map((i) => candidates[i] as Candidate),
      remaining,
    );
    indexes.forEach((candidateIndex, k) => {
      const alloc = Math.min(tierAllocs[k] ?? 0, candidates[candidateIndex]?.cost ?? 0);
      allocs[candidateIndex] = alloc;
      remaining -= alloc;
    });
  }
  return allocs;
}

function fillEntry(candidates: Candidate[], budget: number, counter: TokenCounter, matches: Matcher): EntryFit {
  const allocs = allocateByTier(candidates, budget);
  const fit: EntryFit = { budget, used: 0, demand: 0, kept: [], trimmed: [], cutRelevant: false };
  candidates.forEach((candidate, i) => {
    fit.demand += candidate.cost;
    const alloc = allocs[i] ?? 0;
    if (alloc >= candidate.cost) {
      fit.kept.push({ item: candidate.item, tokens: candidate.cost });
      fit.used += candidate.cost;
      return;
    }
    if (candidate.tier === NAMED_TIER) fit.cutRelevant = true;
    const result = trimItem(
      candidate.item,
      alloc - candidate.overhead,
      counter,
      candidate.tier === NAMED_TIER ? matches : undefined,
    );
    if (result.item === null) {
      fit.trimmed.push(`${candidate.item.key} (dropped: needs ~${candidate.cost} tokens)`);
      return;
    }
    const tokens = result.tokens + candidate.overhead;
    fit.kept.push({ item: result.item, tokens });
    fit.used += tokens;
    fit.trimmed.push(`${candidate.item.key} (${result.trimmedLines} lines trimmed)`);
  });
  return fit;
}

/** One item per key: the highest priority wins. */
function dedupe(items: ContextItem[]): ContextItem[] {
  const byKey = new Map<string, ContextItem>();
  for (const item of items) {
    const seen = byKey.get(item.key);
    if (seen === undefined || item.priority > seen.priority) byKey.set(item.key, item);
  }
  return [...byKey.values()];
}

export function fitContext(input: FitContextInput): FitContextResult {
  const { plan, counter } = input;
  const matches = termMatcher(input.terms ?? NO_TERMS);
  const overheadOf = input.itemOverhead ?? ((item: ContextItem) => fenceTokens(item, counter));
  const available = Math.max(0, Math.floor(input.available));
  const groups: Candidate[][] = plan.entries.map(() => []);
  const unmatched: string[] = [];
  for (const item of dedupe(input.items)) {
    const entryIndex = plan.entries.findIndex((entry) => entryMatches(entry, item.key));
    if (entryIndex < 0) {
      unmatched.push(item.key);
      continue;
    }
    const overhead = overheadOf(item);
    const tier = itemTier(item, matches);
    groups[entryIndex]?.push({ item, overhead, cost: counter.count(item.text) + overhead, tier });
  }
  for (const group of groups) group.sort((a, b) => b.item.priority - a.item.priority);

  const totalWeight = plan.entries.reduce((sum, entry) => sum + Math.max(0, entry.weight), 0);
  const fits: EntryFit[] = [];
  let carry = 0;
  plan.entries.forEach((entry, i) => {
    const share = totalWeight > 0 ? Math.floor((available * Math.max(0, entry.weight)) / totalWeight) : 0;
    const offered = share + carry;
    const fit = fillEntry(groups[i] ?? [], Math.min(entry.cap, offered), counter, matches);
    fits.push(fit);
    carry = offered - fit.used;
  });
  // Second chance for entries that had to cut something: those that cut an item the question
  // names first, then in plan order.
  const secondChance = plan.entries.map((_, i) => i);
  secondChance.sort((a, b) => Number(fits[b]?.cutRelevant) - Number(fits[a]?.cutRelevant) || a - b);
  for (const i of secondChance) {
    const entry = plan.entries[i] as PlanEntry;
    const fit = fits[i] as EntryFit;
    if (carry <= 0 || fit.demand <= fit.used) continue;
    // The carry already holds what this entry left of its own budget.
    const budget = Math.min(entry.cap, fit.used + carry);
    if (budget <= fit.budget) continue;
    const refit = fillEntry(groups[i] ?? [], budget, counter, matches);
    carry -= refit.used - fit.used;
    fits[i] = refit;
  }

  return {
    items: fits.flatMap((fit) => fit.kept.map((kept) => kept.item)),
    report: fits.map((fit, i) => ({
      items: plan.entries[i]?.items ?? '',
      budget: fit.budget,
      used: fit.used,
      trimmed: fit.trimmed,
    })),
    contextTokens: fits.reduce((sum, fit) => sum + fit.used, 0),
    unmatched,
  };
}
