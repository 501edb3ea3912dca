import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nextCalibration, suspectTruncation } from '../../src/budget/index.ts';
import type { Calibration } from '../../src/shared/types.ts';

describe('nextCalibration', () => {
  it('starts from the first sample', () => {
    assert.deepEqual(nextCalibration(undefined, 1000, 1200), { ratio: 1.2, samples: 1 });
  });

  it('converges toward a fixed actual / estimate ratio', () => {
    let calibration: Calibration | undefined;
    // Noisy samples around 1.3 (±5%), estimates of varying size.
    for (let i = 0; i < 60; i++) {
      const estimated = 500 + ((i * 7919) % 6000);
      const noise = 1 + 0.05 * Math.sin(i * 1.7);
      calibration = nextCalibration(calibration, estimated, Math.round(estimated * 1.3 * noise));
    }
    assert.ok(calibration !== undefined);
    assert.ok(Math.abs(calibration.ratio - 1.3) < 0.03, `ratio ${calibration.ratio}`);
    assert.equal(calibration.samples, 60);
  });

  it('keeps adapting after many samples when the model changes', () => {
    let calibration: Calibration = { ratio: 0.9, samples: 500 };
    for (let i = 0; i < 60; i++) calibration = nextCalibration(calibration, 2000, 2400);
    assert.ok(Math.abs(calibration.ratio - 1.2) < 0.02, `ratio ${calibration.ratio}`);
  });

  it('ignores absurd samples and stays within 0.5–2.5', () => {
    const start = { ratio: 1.1, samples: 5 };
    assert.deepEqual(nextCalibration(start, 2000, 0), start, 'missing count');
    assert.deepEqual(nextCalibration(start, 10, 30), start, 'tiny estimate');
    assert.deepEqual(nextCalibration(start, 2000, 9000), start, 'ratio 4.5');
    assert.deepEqual(nextCalibration(start, 2000, Number.NaN), start, 'not a number');
    assert.deepEqual(nextCalibration(start, 4000, 1000), start, 'suspected truncation');
    let high: Calibration | undefined;
    for (let i = 0; i < 10; i++) high = nextCalibration(high, 1000, 3400);
    assert.equal(high?.ratio, 2.5);
  });
});

describe('suspectTruncation', () => {
  it('flags a prompt count far below a large estimate', () => {
    assert.equal(suspectTruncation(8000, 4000), true);
    assert.equal(suspectTruncation(8000, 4800), false);
    assert.equal(suspectTruncation(900, 100), false, 'small estimates are not evidence');
    assert.equal(suspectTruncation(8000, 0), false, 'a missing count is not evidence');
  });
});
