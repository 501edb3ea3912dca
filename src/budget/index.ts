// The budget stage's public surface.

export { type BudgetDowngrade, type BudgetRequestInput, type BudgetResult, budgetRequest } from './budgetRequest.ts';
export { type Calibration, nextCalibration, suspectTruncation } from './calibration.ts';
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
  type PlanChoice,
  type PlanWithDowngradeInput,
  planWithDowngrade,
  smallestUsefulContext,
} from './fit.ts';
export { trimMarker } from './lineSelection.ts';
export { createTokenCounter, type TokenCounter, type TokenCounterOptions } from './tokenCounter.ts';
export { type TrimResult, trimItem } from './trim.ts';
