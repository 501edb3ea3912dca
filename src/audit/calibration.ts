// Per-model calibration of the local token estimate against the upstream's real
// prompt_tokens. The budget stage computes the ratio; this file only keeps it.

import type { Calibration } from '../shared/types.ts';
import type { SqlDriver, SqlRow } from './driver.ts';

/** A calibration as its row keeps it: whose, and when it was last saved. */
export interface CalibrationRecord extends Calibration {
  model: string;
  updatedAt: number;
}

function toCalibration(row: SqlRow): CalibrationRecord {
  return {
    model: String(row.model),
    ratio: Number(row.ratio),
    samples: Number(row.samples),
    updatedAt: Number(row.updated_at),
  };
}

export function readCalibration(db: SqlDriver, model: string): CalibrationRecord | undefined {
  const row = db.prepare('SELECT model, ratio, samples, updated_at FROM calibration WHERE model = ?').get(model);
  return row ? toCalibration(row) : undefined;
}

/** Stores the model's ratio as the budget stage computed it; the policy lives there, not here. */
export function saveCalibration(db: SqlDriver, model: string, value: Calibration, now: number): CalibrationRecord {
  db.prepare(
    `INSERT INTO calibration (model, ratio, samples, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (model) DO UPDATE SET ratio = excluded.ratio, samples = excluded.samples, updated_at = excluded.updated_at`,
  ).run(model, value.ratio, value.samples, now);
  return { model, ratio: value.ratio, samples: value.samples, updatedAt: now };
}
