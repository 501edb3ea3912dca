// What the in-flight record costs: sequential requests saving only their final
// snapshot (batched, as before) against the in-flight record written at once
// plus the final snapshot. Two rounds of each, alternated.
//
//   node --import tsx bench/audit/inFlightCost.ts

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openAuditStore } from '../../src/audit/store.ts';
import { makeSnapshot } from '../../test/audit/fixtures.ts';

const N = 2000;
for (const mode of ['final only (batched)', 'in-flight + final', 'final only (batched)', 'in-flight + final']) {
  const dir = mkdtempSync(path.join(tmpdir(), 'ctxproxy-inflight-'));
  const store = openAuditStore({ path: path.join(dir, 'audit.db') });
  const snapshots = Array.from({ length: N }, (_, i) =>
    makeSnapshot({ id: `s${i}`, forwarded: [{ role: 'user', content: `question ${i} ${'w '.repeat(200)}` }] }),
  );
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (const snapshot of snapshots) {
    if (mode.startsWith('in-flight')) await store.saveInFlight({ ...snapshot, outcome: 'in_flight' });
    store.save(snapshot);
    await new Promise((resolve) => setImmediate(resolve));
  }
  await store.flush();
  const cpu = process.cpuUsage(cpu0);
  const wall = (performance.now() - t0) / N;
  console.log(`${mode}: ${wall.toFixed(3)} ms/request wall, ${((cpu.user + cpu.system) / 1000 / N).toFixed(3)} ms CPU`);
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
