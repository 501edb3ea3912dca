// The budget stage's public surface.

export { EXACT_MAX_CHARS, isEstimatedCount, LONG_RUN } from './boundedCount.ts';
export {
  type BudgetDowngrade,
  type BudgetRequestInput,
  type BudgetResult,
  budgetRequest,
  CONTEXT_BLOCK_OVERHEAD,
} from './budgetRequest.ts';
export { MAX_RATIO, MIN_RATIO, nextCalibration, suspectTruncation } from './calibration.ts';
export { entryMatches, MIN_USEFUL_ITEM_TOKENS } from './contextFit.ts';
export { DOWNGRADE_WINDOW_SHARE, downgradeLimit, MIN_USEFUL_CAP_SHARE } from './downgrade.ts';
export {
  type Budget,
  type BudgetInput,
  chooseNumCtx,
  computeBudget,
  DEFAULT_REPLY_RESERVE,
  DEFAULT_SAFETY_RATIO,
  droppedMessagesMarker,
  type FitContextInput,
  type FitContextResult,
  type FitConversationInput,
  type FitConversationResult,
  fenceTokens,
  fitContext,
  fitConversation,
  type HistoryOverflow,
  NUM_CTX_STEPS,
  type NumCtxInput,
  type OutputLimitInput,
  outputLimit,
  type PlanChoice,
  type PlanWithDowngradeInput,
  planWithDowngrade,
  smallestUsefulContext,
} from './fit.ts';
export { trimMarker } from './lineSelection.ts';
export { fitPrompt, type PromptFitInput } from './promptFit.ts';
export { latestUserText, NO_TERMS, type QuestionTerms, questionTerms, termsOf } from './questionTerms.ts';
export {
  countedTexts,
  createTokenCounter,
  estimateCl100k,
  MESSAGE_OVERHEAD,
  type TokenCounter,
  type TokenCounterOptions,
  type TokenCounterStats,
  warmTokenizer,
} from './tokenCounter.ts';
export { isErrorLine, type TrimResult, trimItem } from './trim.ts';
