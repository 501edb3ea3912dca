// Scoring: for each (question, mode) the needed facts found verbatim in the
// forwarded request, the forbidden strings that leaked, and the tokens added
// over the same question sent with `off`; then the tables by mode and kind.

import type { Kind, MinMode } from './scenario.ts';

export const MODES = ['auto', 'quick', 'git-aware', 'deep'] as const;
export type BenchMode = (typeof MODES)[number];

/** Which questions a mode is meant to answer: `auto` picks `debug` for a pasted trace, `git-aware` otherwise. */
const COVERS: Record<BenchMode, readonly MinMode[]> = {
  auto: ['quick', 'git-aware', 'debug'],
  quick: ['quick'],
  'git-aware': ['quick', 'git-aware'],
  deep: ['quick', 'git-aware', 'deep'],
};
export const inScope = (mode: BenchMode, minMode: MinMode) => COVERS[mode].includes(minMode);

export interface Outcome {
  id: string;
  kind: Kind;
  mode: string;
  inScope: boolean;
  modeUsed: string;
  needed: number;
  missed: string[];
  violations: string[];
  addedTokens: number;
}

export const TARGETS = { recall: 0.95, violations: 0, medianTokens: 2700 };

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export interface Totals {
  found: number;
  needed: number;
  recall: number;
  violations: number;
  medianTokens: number;
  n: number;
}

export function totals(outcomes: readonly Outcome[]): Totals {
  const needed = outcomes.reduce((n, o) => n + o.needed, 0);
  const found = outcomes.reduce((n, o) => n + o.needed - o.missed.length, 0);
  return {
    found,
    needed,
    recall: needed === 0 ? Number.NaN : found / needed,
    violations: outcomes.reduce((n, o) => n + o.violations.length, 0),
    medianTokens: median(outcomes.map((o) => o.addedTokens)),
    n: outcomes.length,
  };
}

const fmtRecall = (t: Totals) => (t.needed === 0 ? '   -   ' : `${t.recall.toFixed(2)} (${t.found}/${t.needed})`);
const fmtTokens = (x: number) => (Number.isNaN(x) ? '-' : Math.round(x).toLocaleString('en-US'));

export function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length))) ?? [];
  return rows
    .map((r) =>
      r
        .map((cell, c) => cell.padEnd(widths[c] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

export function modeRows(outcomes: readonly Outcome[]): string[][] {
  const rows = [['mode', 'recall (in scope)', 'recall (all)', 'violations', 'median added tokens', 'questions']];
  for (const mode of MODES) {
    const mine = outcomes.filter((o) => o.mode === mode);
    const scoped = totals(mine.filter((o) => o.inScope));
    const all = totals(mine);
    rows.push([
      mode,
      fmtRecall(scoped),
      fmtRecall(all),
      String(all.violations),
      fmtTokens(all.medianTokens),
      String(all.n),
    ]);
  }
  return rows;
}

export function kindRows(outcomes: readonly Outcome[], kinds: readonly Kind[]): string[][] {
  const rows = [['kind', ...MODES.map((m) => `${m} recall / tokens`)]];
  for (const kind of kinds) {
    const row: string[] = [kind];
    for (const mode of MODES) {
      const mine = outcomes.filter((o) => o.kind === kind && o.mode === mode);
      const t = totals(mine);
      const scope = mine.some((o) => o.inScope) ? '' : '*';
      row.push(`${t.needed === 0 ? '-' : t.recall.toFixed(2)}${scope} / ${fmtTokens(t.medianTokens)}`);
    }
    rows.push(row);
  }
  return rows;
}

export function verdict(t: Totals): string {
  const mark = (ok: boolean) => (ok ? 'met' : 'MISSED');
  return [
    `recall ${t.recall.toFixed(3)} (target >= ${TARGETS.recall}: ${mark(t.recall >= TARGETS.recall)})`,
    `violations ${t.violations} (target ${TARGETS.violations}: ${mark(t.violations === 0)})`,
    `median added tokens ${fmtTokens(t.medianTokens)} (target <= ${TARGETS.medianTokens.toLocaleString('en-US')}: ${mark(t.medianTokens <= TARGETS.medianTokens)})`,
  ].join('; ');
}
