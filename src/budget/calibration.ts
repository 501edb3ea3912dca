// Calibration: after each answer the upstream tells how many prompt tokens the
// model's own tokenizer saw (Ollama's prompt_eval_count). We keep a running
// ratio actual / estimate per model, so estimates converge to that tokenizer.

import type { Calibration } from '../shared/types.ts';

export const MIN_RATIO = 0.5;
export const MAX_RATIO = 2.5;
/** After this many samples the running mean becomes a moving average that keeps adapting. */
const WINDOW_SAMPLES = 20;
/** Estimates this small are dominated by template overhead: not worth learning from. */
const MIN_ESTIMATE = 64;
/** A single sample outside this range is a bug or a truncation, not a tokenizer difference. */
const MIN_SAMPLE = 0.3;
const MAX_SAMPLE = 3.5;

function clamp(value: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, value));
}

/**
 * The next running ratio. `estimated` is the estimator's *raw* count (ratio 1;
 * `BudgetResult.rawEstimatedPromptTokens`), `actual` the upstream's prompt
 * token count. Absurd samples (missing/zero counts, tiny prompts, ratios outside
 * 0.3–3.5, suspected truncation) leave the calibration unchanged.
 */
export function nextCalibration(previous: Calibration | undefined, estimated: number, actual: number): Calibration {
  const base: Calibration = previous ?? { ratio: 1, samples: 0 };
  if (!Number.isFinite(estimated) || !Number.isFinite(actual) || estimated < MIN_ESTIMATE || actual <= 0) return base;
  const sample = actual / estimated;
  if (sample < MIN_SAMPLE || sample > MAX_SAMPLE) return base;
  if (suspectTruncation(estimated * base.ratio, actual)) return base;
  const samples = base.samples + 1;
  const weight = 1 / Math.min(samples, WINDOW_SAMPLES);
  const ratio = clamp(base.ratio + (sample - base.ratio) * weight, MIN_RATIO, MAX_RATIO);
  return { ratio, samples };
}

/** Share of the estimate below which a reported prompt looks cut. */
export const TRUNCATION_SHARE = 0.6;
/** Below this estimate, template differences alone can explain a large gap. */
export const TRUNCATION_MIN_ESTIMATE = 1000;

/**
 * True when the upstream evaluated far fewer prompt tokens than we estimated
 * (calibrated): the prompt was probably cut. A zero/missing count (old Ollama
 * versions omit it when the prompt was cached) is not evidence either way.
 */
export function suspectTruncation(estimated: number, actual: number): boolean {
  if (!(actual > 0) || estimated <= TRUNCATION_MIN_ESTIMATE) return false;
  return actual < estimated * TRUNCATION_SHARE;
}
