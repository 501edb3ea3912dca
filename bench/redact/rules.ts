// What each of our rules costs on the repository mix: its regex and its
// validators, run alone after one shared keyword pass, as the scanner runs it.
// Says which rules are worth a cheaper pattern (a literal start matchStarts can
// read, a cheap look-ahead before a look-behind) and which search whole texts.
// Run: node --import tsx bench/redact/rules.ts [--rounds 9] [--top 30]

import { parseArgs } from 'node:util';
import { DEFAULT_RULES_DIR } from '../../src/redact/createRedactor.ts';
import { GATE_ANCHORS } from '../../src/redact/gateAnchors.ts';
import { KeywordIndex, type KeywordScan } from '../../src/redact/keywordIndex.ts';
import { loadRedactionRules } from '../../src/redact/loadRules.ts';
import { scanRules } from '../../src/redact/scanRules.ts';
import { repositoryMix } from './inputs.ts';

const { values: flags } = parseArgs({
  options: { rounds: { type: 'string', default: '9' }, top: { type: 'string', default: '30' } },
});
const ROUNDS = Number(flags.rounds);

const mix = repositoryMix();
const rules = loadRedactionRules(DEFAULT_RULES_DIR);
// The scanner's keyword pass (scanner.ts createScanner): keywords, gate anchors and start literals, one hit list per rule.
const index = new KeywordIndex([
  ...rules.flatMap((r) => r.keywords),
  ...GATE_ANCHORS,
  ...rules.flatMap((r) => r.starts ?? []),
]);
const keywordIds = rules.map((rule) => rule.keywords.map((k) => index.idOf(k)));
const lists: number[][] = Array.from({ length: index.size }, () => []);
rules.forEach((rule, r) => {
  for (const literal of new Set(rule.starts)) lists[index.idOf(literal)]!.push(r);
});
const plan = { starts: lists.map((l) => (l.length > 0 ? l : undefined)), listCount: rules.length };
// The pass's result is reused per call: keep a copy per item.
const scans: KeywordScan[] = mix.items.map((item) => {
  const scan = index.scan(item.text, plan);
  return { found: scan.found.slice(), starts: scan.starts.map((list) => list && [...list]) };
});
const noDeadline = { check() {} };

function cpuMs(run: () => void): number {
  const started = process.cpuUsage();
  run();
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1000;
}

/** One pass of rule r (or of no rule: the per-item cost every rule's figure holds) over the mix. */
function pass(r: number | undefined): number {
  let findings = 0;
  mix.items.forEach((item, i) => {
    const scan = scans[i]!;
    const one = r === undefined ? [] : [rules[r]!];
    const view = { found: scan.found, starts: r === undefined ? [] : [scan.starts[r]] };
    const ids = r === undefined ? [] : [keywordIds[r]!];
    const withStarts = Uint8Array.of(r !== undefined && rules[r]!.starts ? 1 : 0);
    findings += scanRules(item.text, view, item.path, one, ids, withStarts, noDeadline).length;
  });
  return findings;
}

const median = (samples: number[]) => [...samples].sort((a, b) => a - b)[samples.length >> 1]!;
for (let r = 0; r < rules.length; r++) pass(r); // compile every regex once
const floor: number[] = [];
const times: number[][] = rules.map(() => []);
const findings: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  floor.push(cpuMs(() => pass(undefined)));
  for (let r = 0; r < rules.length; r++) times[r]!.push(cpuMs(() => (findings[r] = pass(r))));
}

const base = median(floor);
const rows = rules.map((rule, r) => {
  const runs = scans.filter((scan) => keywordIds[r]!.some((id) => scan.found[id] === 1)).length;
  const starts = rule.starts ? scans.reduce((sum, scan) => sum + (scan.starts[r]?.length ?? 0), 0) : undefined;
  return { id: rule.id, ms: Math.max(0, median(times[r]!) - base), runs, starts, findings: findings[r]! };
});
rows.sort((a, b) => b.ms - a.ms);
const total = rows.reduce((sum, row) => sum + row.ms, 0);
console.log(
  `repository mix: ${mix.items.length} items, ${(mix.bytes / 1024).toFixed(0)} KiB; ${rules.length} rules, ${ROUNDS} rounds; ` +
    `CPU median per pass over the per-item cost (${base.toFixed(2)} ms); all rules ${total.toFixed(1)} ms`,
);
console.log(
  '    ms  rule                                 items  starts  findings   (items: where its keywords occur; starts: — = it searches whole texts)',
);
for (const row of rows.slice(0, Number(flags.top))) {
  console.log(
    `${row.ms.toFixed(2).padStart(6)}  ${row.id.padEnd(36)} ${String(row.runs).padStart(5)}  ${(row.starts === undefined ? '—' : String(row.starts)).padStart(7)}  ${String(row.findings).padStart(8)}`,
  );
}
const whole = rows.filter((row) => row.starts === undefined);
console.log(
  `\nrules searching whole texts (no start matchStarts can read): ${whole.length}, ${whole
    .reduce((sum, row) => sum + row.ms, 0)
    .toFixed(1)} ms: ${whole.map((row) => `${row.id} ${row.ms.toFixed(2)}`).join(', ')}`,
);
