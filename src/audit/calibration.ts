// Per-model calibration of the local token estimate against the upstream's real
// prompt_tokens, for the budget stage: ratio = running mean of actual / estimated.

import type { SqlDriver, SqlRow } from './driver.ts';
import type { Calibration } from './types.ts';

/**
 * Past this many samples each new one keeps a fixed weight (1/MAX_WEIGHT), so
 * the ratio still follows a model whose tokenizer or template changed.
 */
const MAX_WEIGHT = 100;

function toCalibration(row: SqlRow): Calibration {
  return {
    model: String(row.model),
    ratio: Number(row.ratio),
    samples: Number(row.samples),
    updatedAt: Number(row.updated_at),
  };
}

export function readCalibration(db: SqlDriver, model: string): Calibration | undefined {
  const row = db.prepare('SELECT model, ratio, samples, updated_at FROM calibration WHERE model = ?').get(model);
  return row ? toCalibration(row) : undefined;
}

/** Ignores observations that cannot be a ratio (zero, negative, not finite) and returns the current value. */
export function recordCalibration(
  db: SqlDriver,
  model: string,
  estimated: number,
  actual: number,
  now: number,
): Calibration | undefined {
  const valid = Number.isFinite(estimated) && Number.isFinite(actual) && estimated > 0 && actual > 0;
  if (!valid) return readCalibration(db, model);
  const observed = actual / estimated;
  return db.transaction(() => {
    const current = readCalibration(db, model);
    const samples = (current?.samples ?? 0) + 1;
    const weight = Math.min(samples, MAX_WEIGHT);
    const ratio = current ? current.ratio + (observed - current.ratio) / weight : observed;
    db.prepare(
      `INSERT INTO calibration (model, ratio, samples, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (model) DO UPDATE SET ratio = excluded.ratio, samples = excluded.samples, updated_at = excluded.updated_at`,
    ).run(model, ratio, samples, now);
    return { model, ratio, samples, updatedAt: now };
  });
}
