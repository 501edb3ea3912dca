// Small statistics for benchmark reports.

export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  const high = Math.ceil(at);
  return (sorted[low] as number) + ((sorted[high] as number) - (sorted[low] as number)) * (at - low);
}

export interface Summary {
  median: number;
  q1: number;
  q3: number;
  iqr: number;
  p99: number;
  n: number;
}

export function summarize(values: readonly number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  const q1 = quantile(sorted, 0.25);
  const q3 = quantile(sorted, 0.75);
  return { median: quantile(sorted, 0.5), q1, q3, iqr: q3 - q1, p99: quantile(sorted, 0.99), n: sorted.length };
}

export const ms = (value: number, digits = 3) => `${value.toFixed(digits)} ms`;
