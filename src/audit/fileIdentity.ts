// Which file is under the database's path: its device and inode, read with one
// lstat. Deleting `audit.db` (or its `-wal`) while the server runs would send
// every later row to a file no name leads to; the store compares this before
// each write batch (one or two stats per batch, not per row) and opens the
// path anew when the file under it is no longer the one it opened.

import { lstatSync } from 'node:fs';

interface Identity {
  dev: number;
  ino: number;
}

function identityOf(path: string): Identity | undefined {
  try {
    const stats = lstatSync(path);
    return { dev: stats.dev, ino: stats.ino };
  } catch {
    return undefined;
  }
}

/** What happened to a file since it was opened, in words for the log and /healthz. */
export type FileChange = { file: 'database' | 'write-ahead log'; change: 'deleted' | 'replaced' };

export interface FileGuard {
  /** Undefined while the path still names the files that were opened. */
  check(): FileChange | undefined;
  /**
   * The side files (`-wal`, `-shm`) that are still the ones opened. SQLite leaves them behind when
   * the database under them was moved or deleted (it does not checkpoint into a file that has
   * moved); left there, they would be replayed into whatever database is opened at the path next.
   */
  leftovers(): string[];
}

/**
 * Remembers the database's identity, and its write-ahead log's when there is one now (SQLite keeps
 * the `-wal` file while a connection is open, and deletes it only when the last one closes).
 */
export function guardFiles(path: string): FileGuard {
  const opened = { database: identityOf(path), wal: identityOf(`${path}-wal`), shm: identityOf(`${path}-shm`) };
  const compare = (before: Identity | undefined, now: Identity | undefined): FileChange['change'] | undefined => {
    if (before === undefined) return undefined;
    if (now === undefined) return 'deleted';
    return now.dev === before.dev && now.ino === before.ino ? undefined : 'replaced';
  };
  return {
    check() {
      const database = compare(opened.database, identityOf(path));
      if (database) return { file: 'database', change: database };
      const wal = compare(opened.wal, identityOf(`${path}-wal`));
      return wal ? { file: 'write-ahead log', change: wal } : undefined;
    },
    leftovers() {
      const sides: [string, Identity | undefined][] = [
        [`${path}-wal`, opened.wal],
        [`${path}-shm`, opened.shm],
      ];
      return sides
        .filter(([side, before]) => before !== undefined && compare(before, identityOf(side)) === undefined)
        .map(([side]) => side);
    },
  };
}
