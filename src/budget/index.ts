// The budget stage's public surface.

export { EXACT_MAX_CHARS, isEstimatedCount } from './boundedCount.ts';
export { type BudgetResult, budgetRequest } from './budgetRequest.ts';
export { nextCalibration, suspectTruncation } from './calibration.ts';
export { entryMatches } from './contextFit.ts';
export {
  chooseNumCtx,
  computeBudget,
  droppedMessagesMarker,
  fitContext,
  fitConversation,
  outputLimit,
  planWithDowngrade,
  smallestUsefulContext,
} from './fit.ts';
export { fitPrompt } from './promptFit.ts';
export { questionTerms, termsOf } from './questionTerms.ts';
export { countedTexts, createTokenCounter, estimateCl100k, type TokenCounter, warmTokenizer } from './tokenCounter.ts';
export { trimItem } from './trim.ts';
