// What one turn carries, decided by its own mode. Three shapes:
//
// - off: the client's messages only, whatever earlier turns carried.
// - carry: the same conversation, a mode that collects at least what the
//   frozen block holds. The block and earlier attachments are repeated byte for
//   byte; what changed since goes as a `<context-update>` on the latest user
//   message. This is the common case, and the one the prompt cache rewards.
// - fresh: the first turn, or a mode lighter than what was carried (it must
//   not repeat what it would not collect): a new block, planned in this mode.

import { type BudgetResult, entryMatches } from '../budget/index.ts';
import type { ChatMessage, ContextItem, ModeName, Plan } from '../shared/types.ts';
import { accountItems, attachToMessage, buildAttachment, buildContextBlock, placeContext } from './assemble.ts';
import type { PendingPart } from './contextParts.ts';
import { type ConversationState, changedItems, itemHash } from './conversations.ts';
import { lastUserIndex } from './selectMode.ts';

export interface TurnInput {
  /** The client's messages, redacted, `/mode` lines stripped. */
  messages: ChatMessage[];
  /** Collected and redacted items. */
  items: ContextItem[];
  plan: Plan;
  plans: Readonly<Record<ModeName, Plan>>;
  /** The state stored for the longest prefix of this history, and that prefix's length. */
  found?: { state: ConversationState; length: number } | undefined;
  budget: (messages: ChatMessage[], items: ContextItem[]) => BudgetResult;
  count: (text: string) => number;
  snapshotId?: string | undefined;
  newConversationId: () => string;
}

export interface Turn {
  budget: BudgetResult;
  messages: ChatMessage[];
  parts: PendingPart[];
  /** What the next turn continues from; undefined when there is nothing to carry. */
  next?: ConversationState | undefined;
  conversationId?: string | undefined;
  warnings: string[];
}

export function planTurn(input: TurnInput): Turn {
  const { found, plan } = input;
  if (plan.mode === 'off') return offTurn(input);
  if (found && canCarry(found.state, plan)) {
    const carried = carryTurn(input, found);
    if (carried) return carried;
  }
  const turn = freshTurn(input);
  if (found?.state.contextBlock) {
    const { blockMode, blockOrigin } = found.state;
    turn.warnings.push(
      `context carried since turn ${blockOrigin.turn} (mode ${blockMode}) not sent in mode ${turn.budget.modeUsed}; context re-planned`,
    );
  }
  return turn;
}

/** A mode carries the block only if it would collect every item the block and the attachments hold. */
function canCarry(state: ConversationState, plan: Plan): boolean {
  if (plan.mode === 'off' || state.contextBlock === '') return false;
  return state.carriedKeys.every((key) => plan.entries.some((entry) => entryMatches(entry, key)));
}

function offTurn(input: TurnInput): Turn {
  const budget = input.budget(input.messages, []);
  const state = input.found?.state;
  // The next turn in another mode may carry again what the turns before this one carried.
  const next = state ? { ...state, turns: state.turns + 1 } : undefined;
  const warnings = state?.contextBlock
    ? [`mode off: the context carried since turn ${state.blockOrigin.turn} (mode ${state.blockMode}) not sent`]
    : [];
  return { budget, messages: budget.messages, parts: [], next, conversationId: state?.conversationId, warnings };
}

function carryTurn(input: TurnInput, found: { state: ConversationState; length: number }): Turn | undefined {
  const { state } = found;
  const latest = lastUserIndex(input.messages);
  const attachments = new Map(state.attachments.map((a) => [a.index, a.text]));
  const base = placeContext(input.messages, { contextBlock: state.contextBlock, attachments });
  // A follow-up without a new user message (tool results) adds nothing to a message already sent.
  const newUserTurn = latest >= found.length;
  const budget = input.budget(base, newUserTurn ? changedItems(state.known, input.items) : []);
  if (!canCarry(state, input.plans[budget.modeUsed])) return undefined;

  const turnNumber = state.turns + 1;
  const origin = { snapshotId: input.snapshotId, turn: turnNumber };
  const parts: PendingPart[] = [
    { kind: 'block', text: state.contextBlock, carried: true, origin: state.blockOrigin, sources: state.blockSources },
    ...state.attachments.map((a) => ({ kind: 'update' as const, ...a, carried: true })),
  ];
  const text = buildAttachment(budget.items);
  let messages = budget.messages;
  const nextAttachments = [...state.attachments];
  if (text && latest >= 0) {
    const at = lastUserIndex(messages);
    messages = [...messages];
    messages[at] = attachToMessage(messages[at] as ChatMessage, text);
    const sources = accountItems(budget.items, 'context-update', input.count);
    parts.push({ kind: 'update', text, carried: false, origin, sources });
    nextAttachments.push({ index: latest, text, sources, origin });
  }
  const known = new Map(state.known);
  for (const [key, hash] of seenHashes(input.items, budget.items)) known.set(key, hash);
  const carriedKeys = [...new Set([...state.carriedKeys, ...budget.items.map((item) => item.key)])];
  const next: ConversationState = { ...state, known, attachments: nextAttachments, carriedKeys, turns: turnNumber };
  return { budget, messages, parts, next, conversationId: state.conversationId, warnings: [] };
}

function freshTurn(input: TurnInput): Turn {
  const budget = input.budget(input.messages, input.items);
  const block = buildContextBlock(budget.items);
  const messages = placeContext(budget.messages, { contextBlock: block, attachments: new Map() });
  const previous = input.found?.state;
  const turn = (previous?.turns ?? 0) + 1;
  const origin = { snapshotId: input.snapshotId, turn };
  const sources = accountItems(budget.items, 'context', input.count);
  const conversationId = previous?.conversationId ?? input.newConversationId();
  const next: ConversationState = {
    conversationId,
    blockMode: budget.modeUsed,
    contextBlock: block,
    blockSources: sources,
    blockOrigin: origin,
    carriedKeys: budget.items.map((item) => item.key),
    known: new Map(seenHashes(input.items, budget.items)),
    attachments: [],
    turns: turn,
  };
  const parts: PendingPart[] = [{ kind: 'block', text: block, carried: false, origin, sources }];
  return { budget, messages, parts, next, conversationId, warnings: [] };
}

/**
 * What the model was shown, hashed as collected: an item the budget trimmed is
 * known by its full text, or it would count as changed at every later turn.
 */
function seenHashes(collected: readonly ContextItem[], sent: readonly ContextItem[]): [string, string][] {
  const full = new Map(collected.map((item) => [item.key, itemHash(item)]));
  return sent.map((item) => [item.key, full.get(item.key) ?? itemHash(item)]);
}
