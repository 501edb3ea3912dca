// The corpus figures: recall of planted secrets, preservation of the text
// around them, clean files changed. Several seeds, so values differ per run.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRedactor } from '../../src/redact/createRedactor.ts';
import { scoreCorpus } from './corpus.ts';
import { seededRng } from './secretGen.ts';

test('corpus: recall >= 0.99, preservation >= 0.99, no clean file changed', async (t) => {
  const redactor = await createRedactor();
  const totals = { secrets: 0, removed: 0, around: 0, kept: 0, clean: 0, changed: 0, kinds: 0 };
  const missed: string[] = [];
  for (const seed of [1, 2, 3, 4, 5]) {
    const score = await scoreCorpus(redactor, seededRng(seed));
    totals.secrets += score.secrets;
    totals.removed += score.removed;
    totals.around += score.aroundChars;
    totals.kept += score.aroundKept;
    totals.clean += score.cleanFiles;
    totals.changed += score.cleanChanged;
    totals.kinds = score.kinds;
    missed.push(...score.missed.map((m) => `seed ${seed}: ${m.kind} in ${m.file}`), ...score.changedClean);
  }
  const recall = totals.removed / totals.secrets;
  const preservation = totals.kept / totals.around;
  const cleanChanged = totals.changed / totals.clean;
  t.diagnostic(
    `secrets ${totals.secrets} (${totals.kinds} kinds), recall ${recall.toFixed(4)}, ` +
      `preservation ${preservation.toFixed(4)}, clean changed ${totals.changed}/${totals.clean}`,
  );
  assert.ok(recall >= 0.99, `recall ${recall}; missed: ${missed.join('; ')}`);
  assert.ok(preservation >= 0.99, `preservation ${preservation}`);
  assert.ok(cleanChanged <= 0.01, `clean files changed: ${missed.join('; ')}`);
});

test('corpus: secretlint preset alone scores far lower (the gaps our rules close)', async (t) => {
  const ours = await scoreCorpus(await createRedactor(), seededRng(7));
  // secretlint alone: the guard module on its own, masked the same way.
  const { secretlintFindings } = await import('../../src/redact/secretlintGuard.ts');
  const { applyMasks, mergeFindings } = await import('../../src/redact/applyMasks.ts');
  const secretlintOnly = {
    async redact(text: string, options?: { path?: string | undefined }) {
      const findings = mergeFindings(await secretlintFindings(text, options?.path));
      return { text: applyMasks(text, findings, (id) => `[REDACTED:${id}]`), findings };
    },
    isNeverRead: () => false,
  };
  const baseline = await scoreCorpus(secretlintOnly, seededRng(7));
  t.diagnostic(`recall: ours ${ours.recall.toFixed(3)}, secretlint preset alone ${baseline.recall.toFixed(3)}`);
  assert.ok(ours.recall > baseline.recall);
  assert.ok(baseline.recall < 0.8);
});
