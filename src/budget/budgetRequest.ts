// The budget stage in one call, in the order that matters: the budget, then
// the mode and the conversation together (the downgrade ladder: a lighter mode
// before any dropped turn, dropped turns before no context at all), then the
// context in what remains, then num_ctx for the whole estimated prompt, and the
// reply's limit in what num_ctx leaves (the client's max tokens is a ceiling).

import type { BudgetReport, ChatMessage, ContextItem, ModeName, Plan, ToolDefinition } from '../shared/types.ts';
import { fitContext } from './contextFit.ts';
import type { HistoryOverflow } from './conversation.ts';
import { planWithDowngrade } from './downgrade.ts';
import { chooseNumCtx, computeBudget, outputLimit } from './fit.ts';
import { latestUserText, type QuestionTerms, questionTerms } from './questionTerms.ts';
import type { TokenCounter } from './tokenCounter.ts';

/**
 * Default room for the assembler's framing of the context block: one extra
 * system message (4) and a preamble sentence (~50 tokens with cl100k), rounded
 * up. The pipeline can pass the exact figure as `blockOverhead`.
 */
export const CONTEXT_BLOCK_OVERHEAD = 80;

export interface BudgetRequestInput {
  /** The client's messages after redaction, before the context is assembled into them. */
  messages: ChatMessage[];
  tools?: ToolDefinition[] | undefined;
  /** Collected and redacted items. */
  items: ContextItem[];
  /** The plan of the mode selected for this request. */
  requested: Plan;
  plans: Record<ModeName, Plan>;
  /** The model's window (discovered, or the config override). */
  window: number;
  maxTokens?: number | null | undefined;
  safetyRatio?: number | undefined;
  historyOverflow?: HistoryOverflow | undefined;
  /** A counter carrying the model's calibration ratio (`base.withRatio(ratio)`); a ratio below 1 is fitted as 1. */
  counter: TokenCounter;
  /** Tokens the assembler adds once around the whole context block; default CONTEXT_BLOCK_OVERHEAD. */
  blockOverhead?: number | undefined;
  /** Tokens the assembler adds around each item; default `fenceTokens`. */
  itemOverhead?: ((item: ContextItem) => number) | undefined;
  /**
   * What the question names, for ranking and trimming by relevance; by default
   * read from the latest user message in `messages`.
   */
  terms?: QuestionTerms | undefined;
}

export interface BudgetDowngrade {
  from: ModeName;
  to: ModeName;
  reason: string;
}

export interface BudgetResult {
  /** The conversation to forward, possibly with its oldest turns replaced by one marker message. */
  messages: ChatMessage[];
  /** Items to assemble, in plan order, trimmed to their budgets. */
  items: ContextItem[];
  plan: Plan;
  modeUsed: ModeName;
  downgrade?: BudgetDowngrade | undefined;
  droppedMessages: number;
  /** Short ASCII sentences for `X-Ctx-Warning` and the snapshot. */
  warnings: string[];
  report: BudgetReport;
  /** For `options.num_ctx` (with `truncate: false`). */
  numCtx: number;
  /** The reply's limit to forward (num_predict / max_tokens), when the client set one; at most what it asked. */
  outputLimit?: number | undefined;
  /** Calibrated estimate of the forwarded prompt (conversation + context block). */
  estimatedPromptTokens: number;
  /** The same at ratio 1: what `nextCalibration` compares with `prompt_eval_count`. */
  rawEstimatedPromptTokens: number;
}

/** Throws ContextLengthError when the conversation cannot fit (see fitConversation). */
export function budgetRequest(input: BudgetRequestInput): BudgetResult {
  // Fit with a ratio of at least 1: a model said to count fewer tokens than our estimator (a prompt_eval_count
  // that leaves out cached tokens, a rough tokenizer) would let the prompt outgrow the window it must fit.
  const counter = input.counter.ratio < 1 ? input.counter.withRatio(1) : input.counter;
  const { window } = input;
  const budget = computeBudget({ window, safetyRatio: input.safetyRatio, maxTokens: input.maxTokens });
  const warnings: string[] = [];

  const blockOverhead = input.blockOverhead ?? CONTEXT_BLOCK_OVERHEAD;
  const choice = planWithDowngrade({
    messages: input.messages,
    tools: input.tools,
    requested: input.requested,
    plans: input.plans,
    items: input.items,
    window,
    usable: budget.usable,
    counter,
    overflow: input.historyOverflow,
    blockOverhead,
  });
  const { conversation } = choice;
  if (conversation.droppedMessages > 0) {
    const kept = choice.droppedForContext;
    warnings.push(
      kept
        ? `${plural(conversation.droppedMessages, 'oldest message')} dropped to keep quick mode's context (~${kept.quickTokens} tokens) within the ${kept.limit}-token limit of the ${window}-token window`
        : `${plural(conversation.droppedMessages, 'oldest message')} dropped to fit the ${window}-token window (budget ${budget.usable} tokens)`,
    );
  }
  const downgrade =
    choice.downgradedFrom !== undefined && choice.reason !== undefined
      ? { from: choice.downgradedFrom, to: choice.modeUsed, reason: choice.reason }
      : undefined;
  if (downgrade) warnings.push(`mode ${downgrade.from} -> ${downgrade.to}: ${downgrade.reason}`);

  const available = Math.max(0, budget.usable - conversation.tokens - blockOverhead);
  const context = fitContext({
    plan: choice.plan,
    items: input.items,
    available,
    counter,
    itemOverhead: input.itemOverhead,
    // Terms only rank items: with none to fit (mode off, a turn with nothing new) the question is not parsed.
    terms: input.terms ?? (input.items.length > 0 ? questionTerms(latestUserText(input.messages)) : undefined),
  });
  const trimmedCount = context.report.reduce((sum, entry) => sum + entry.trimmed.length, 0);
  if (trimmedCount > 0) warnings.push(`${plural(trimmedCount, 'context item')} trimmed or dropped to fit the budget`);

  const contextTokens = context.items.length > 0 ? context.contextTokens + blockOverhead : 0;
  const estimatedPromptTokens = conversation.tokens + contextTokens;
  const rawEstimatedPromptTokens = Math.round(estimatedPromptTokens / counter.ratio);
  // A ratio learned on one kind of text can undercount another; num_ctx errs on the large side,
  // since a window too small makes Ollama refuse (or, without truncate:false, cut) the prompt.
  const promptTokens = Math.max(estimatedPromptTokens, rawEstimatedPromptTokens);
  // Room for the whole reply the client asked for when the model has it; what is left otherwise.
  const numCtx = chooseNumCtx({
    promptTokens,
    reserve: budget.asked ?? budget.reserve,
    modelMax: window,
  });
  const limit = outputLimit({ asked: budget.asked, promptTokens, numCtx });
  if (limit !== undefined && budget.asked !== undefined && limit < budget.asked) {
    warnings.push(
      `max_tokens ${budget.asked} lowered to ${limit}: what the ${numCtx}-token context leaves after the ~${estimatedPromptTokens}-token prompt`,
    );
  }

  const estimated = counter.usedEstimate();
  if (estimated) warnings.push('token counts are estimates: some text was too long or unbroken to count exactly');

  return {
    messages: conversation.messages,
    items: context.items,
    plan: choice.plan,
    modeUsed: choice.modeUsed,
    downgrade,
    droppedMessages: conversation.droppedMessages,
    warnings: warnings.map(toAscii),
    report: {
      window,
      usable: budget.usable,
      reserve: budget.reserve,
      conversationTokens: conversation.tokens,
      contextTokens,
      numCtx,
      ...(limit !== undefined ? { outputLimit: limit } : {}),
      perEntry: context.report,
      ...(estimated ? { estimated: true } : {}),
    },
    numCtx,
    outputLimit: limit,
    estimatedPromptTokens,
    rawEstimatedPromptTokens,
  };
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** Header values must be Latin-1; keep warnings to printable ASCII. */
function toAscii(text: string): string {
  return text.replace(/…/g, '...').replace(/[^\x20-\x7e]/g, '?');
}
