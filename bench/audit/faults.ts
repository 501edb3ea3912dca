// The reproductions, re-run: 20 chats while another process holds the
// audit database's write lock, 40 chats on a full filesystem (a tmpfs when this
// process may mount one, else a database that cannot grow), then the lock is
// released / space freed. Prints how many answered 200, how many carried the
// warning, and how many rows were written afterwards (with their question).
//
//   node --import tsx bench/audit/faults.ts

import path from 'node:path';
import { queryRaw } from '../../test/audit/rawDatabase.ts';
import { startFakeOllama } from '../../test/support/fakeOllama.ts';
import { makeFullDisk } from '../../test/support/fullDisk.ts';
import { holdWriteLock } from '../../test/support/lockHolder.ts';
import { type RunningProxy, startProxy } from '../../test/support/proxy.ts';

const MODEL = 'qwen2.5-coder:7b';

async function chats(proxy: RunningProxy, count: number, label: string) {
  const client = proxy.client();
  const results: { status: number; warned: boolean; id: string; question: string }[] = [];
  for (let i = 0; i < count; i++) {
    const question = `${label} question ${i}: ${'what does this do '.repeat(200)}`.trim();
    const { response } = await client.chat.completions
      .create({ model: MODEL, messages: [{ role: 'user', content: question }], stream: i % 2 === 0 })
      .withResponse();
    results.push({
      status: response.status,
      warned: /audit log not written/.test(response.headers.get('x-ctx-warning') ?? ''),
      id: response.headers.get('x-ctx-snapshot-id') ?? '',
      question,
    });
    // Streams must be read to the end for the request to finish.
    await response.text().catch(() => '');
  }
  return results;
}

async function drained(proxy: RunningProxy): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (proxy.store.health().queued > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}

function written(dbPath: string, results: { id: string; question: string }[]): number {
  return results.filter(
    (r) => queryRaw(dbPath, 'SELECT question FROM snapshots WHERE id = ?', r.id)[0]?.question === r.question,
  ).length;
}

const fake = await startFakeOllama();
try {
  const locked = await startProxy({ upstreamUrl: fake.url });
  const lock = await holdWriteLock(locked.dbPath);
  const underLock = await chats(locked, 20, 'locked');
  const healthLocked = locked.store.health();
  await lock.release();
  await drained(locked);
  console.log(
    `locked db:  ${underLock.filter((r) => r.status === 200).length}/20 answered 200, ` +
      `${underLock.filter((r) => r.warned).length}/20 warned, healthz while locked ${JSON.stringify(healthLocked)}, ` +
      `${written(locked.dbPath, underLock)}/20 rows written with their question after release`,
  );
  await locked.close();

  const disk = makeFullDisk();
  const dbPath = path.join(disk.dir, 'audit.db');
  const full = await startProxy({ upstreamUrl: fake.url, dbPath, auditOptions: { driver: disk.driver } });
  disk.fill();
  const onFull = await chats(full, 40, 'full');
  const healthFull = full.store.health();
  disk.free();
  await drained(full);
  console.log(
    `full disk (${disk.kind}): ${onFull.filter((r) => r.status === 200).length}/40 answered 200, ` +
      `${onFull.filter((r) => r.warned).length}/40 warned, healthz while full ${JSON.stringify(healthFull)}, ` +
      `${written(dbPath, onFull)}/40 rows written with their question after space returned`,
  );
  await full.close();
  disk.cleanup();
} finally {
  await fake.close();
}
