// Another process holding the audit database's write lock, the way a
// `ctxproxy audit prune` or a `sqlite3` shell in a transaction does: a child
// `node` that opens the file with better-sqlite3 and runs BEGIN IMMEDIATE, then
// commits when told to.

import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const SCRIPT = `
const Database = require('better-sqlite3');
const db = new Database(process.env.LOCK_DB, { timeout: 5000 });
db.exec('BEGIN IMMEDIATE');
process.stdout.write('locked\\n');
process.stdin.once('data', () => { db.exec('COMMIT'); db.close(); process.exit(0); });
`;

export interface LockHolder {
  /** Commits and waits for the process to end. */
  release(): Promise<void>;
}

export async function holdWriteLock(dbPath: string): Promise<LockHolder> {
  const child: ChildProcess = spawn(process.execPath, ['-e', SCRIPT], {
    cwd: ROOT,
    env: { ...process.env, LOCK_DB: dbPath },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const [chunk] = (await once(child.stdout ?? child, 'data')) as [Buffer];
  if (String(chunk).trim() !== 'locked') throw new Error(`lock holder said ${String(chunk)}`);
  return {
    async release() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.stdin?.end('go\n');
      await exited;
    },
  };
}
