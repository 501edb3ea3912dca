// Precision on real files: how many clean files (configuration, tests and
// fixtures, docs from pinned open-source packages, and the committed traps)
// the redactor changes, per kind, beside secretlint's recommended preset in
// the same run; then the planted corpus's recall and the hand-written
// samples' leaks, so that precision is never bought with recall.
//
//   node --import tsx bench/precision/run.ts [--verbose] [--kind NAME] [--cache DIR]

import { lintSource } from '@secretlint/core';
import { creator as recommendedPreset } from '@secretlint/secretlint-rule-preset-recommend';
import type { SecretLintCoreConfig } from '@secretlint/types';
import { createRedactor } from '../../src/redact/createRedactor.ts';
import { scoreCorpus } from '../../test/redact/corpus.ts';
import { bodyLine, samples } from '../../test/redact/handWrittenSamples.ts';
import { seededRng } from '../../test/redact/secretGen.ts';
import { type CleanFile, loadCleanSet, SET_KINDS } from './cleanSet.ts';
import { cacheDir, fetchAll } from './fetch.ts';

const argv = process.argv.slice(2);
const verbose = argv.includes('--verbose');
const onlyKind = argv.includes('--kind') ? argv[argv.indexOf('--kind') + 1] : undefined;
const cache = cacheDir(argv);

fetchAll(cache);
const { files: all, missing } = loadCleanSet(cache);
if (missing.length > 0) throw new Error(`packages missing from ${cache}: ${missing.join(', ')}`);
const files = onlyKind ? all.filter((f) => f.kind === onlyKind) : all;

const secretlintConfig: SecretLintCoreConfig = {
  rules: [{ id: '@secretlint/secretlint-rule-preset-recommend', rule: recommendedPreset }],
};

interface Tally {
  files: number;
  ours: number;
  theirs: number;
}

const redactor = await createRedactor({ timeoutMs: 60_000 });
const tallies = new Map<string, Tally>();
const byRule = new Map<string, number>();
const tally = (kind: string) => {
  const t = tallies.get(kind) ?? { files: 0, ours: 0, theirs: 0 };
  tallies.set(kind, t);
  return t;
};

function lineAround(text: string, start: number, end: number): string {
  const from = text.lastIndexOf('\n', start - 1) + 1;
  const to = text.indexOf('\n', end);
  return text
    .slice(from, to === -1 ? undefined : to)
    .trim()
    .slice(0, 160);
}

async function judge(file: CleanFile): Promise<void> {
  const result = await redactor.redact(file.text, { path: file.path });
  const lint = await lintSource({
    source: { content: file.text, filePath: file.path, contentType: 'text' },
    options: { config: secretlintConfig, maskSecrets: true },
  });
  const kinds = [file.kind, file.kind.startsWith('trap') ? 'all traps' : 'all packages', 'overall'];
  const changed = result.text !== file.text;
  for (const kind of kinds) {
    const t = tally(kind);
    t.files++;
    if (changed) t.ours++;
    if (lint.messages.length > 0) t.theirs++;
  }
  if (!changed) return;
  for (const rule of new Set(result.findings.map((f) => f.ruleId))) byRule.set(rule, (byRule.get(rule) ?? 0) + 1);
  if (verbose) {
    for (const finding of result.findings) {
      const where = `${file.origin} ${file.path}`;
      console.log(`  [${file.kind}] ${where}  ${finding.ruleId}  ${lineAround(file.text, finding.start, finding.end)}`);
    }
  }
}

const started = performance.now();
for (const file of files) await judge(file);
const seconds = (performance.now() - started) / 1000;

const pct = (n: number, of: number) => `${((100 * n) / Math.max(of, 1)).toFixed(2)} %`;
const order = [
  ...SET_KINDS,
  'all packages',
  ...[...tallies.keys()].filter((k) => k.startsWith('trap: ')).sort(),
  'all traps',
  'overall',
];
console.log(`clean set: ${files.length} files (${cache}), ${seconds.toFixed(1)} s for both scanners`);
console.log(`${'kind'.padEnd(26)} ${'files'.padStart(6)}   ${'ctxproxy changed'.padEnd(20)} secretlint preset flagged`);
for (const kind of order) {
  const t = tallies.get(kind);
  if (!t) continue;
  console.log(
    `${kind.padEnd(26)} ${String(t.files).padStart(6)}   ${`${t.ours} (${pct(t.ours, t.files)})`.padEnd(20)} ${t.theirs} (${pct(t.theirs, t.files)})`,
  );
}
console.log(
  `changed files by rule: ${
    [...byRule]
      .sort((a, b) => b[1] - a[1])
      .map(([rule, n]) => `${rule} ${n}`)
      .join(', ') || 'none'
  }`,
);

// Recall on the planted corpus, five seeds, as test/redact/corpus.test.ts counts it.
let secrets = 0;
let removed = 0;
for (const seed of [1, 2, 3, 4, 5]) {
  const score = await scoreCorpus(redactor, seededRng(seed));
  secrets += score.secrets;
  removed += score.removed;
}
console.log(`planted corpus recall: ${(removed / secrets).toFixed(4)} (${removed}/${secrets}, seeds 1-5)`);

// Hand-written samples, three seeds, as test/redact/handWritten.test.ts counts a leak.
function leftOver(output: string, secret: string): boolean {
  const pieces = secret.includes('-----BEGIN')
    ? [bodyLine(secret)]
    : secret.length >= 16
      ? [secret.slice(0, 12), secret.slice(-12), secret.slice(secret.length / 2 - 6, secret.length / 2 + 6)]
      : [secret];
  return pieces.some((piece) => output.includes(piece) || output.includes(piece.replaceAll('/', '\\/')));
}
let sampleCount = 0;
let leaks = 0;
for (const seed of [1, 2, 3]) {
  for (const sample of samples(seededRng(seed))) {
    sampleCount++;
    if (leftOver((await redactor.redact(sample.text, { path: sample.path })).text, sample.secret)) leaks++;
  }
}
console.log(`hand-written samples: ${leaks} leaks of ${sampleCount} (seeds 1-3)`);
