// A filesystem that fills up and frees again, for the audit log's disk-full
// tests. As root, a real one: a small tmpfs mounted in a temp folder, filled
// with a file until the kernel says ENOSPC. Where mount is not allowed, the
// database file cannot grow instead: SQLite's max_page_count is set to the
// pages it has (SQLite then answers SQLITE_FULL, the code a full disk gives).
// `kind` says which one ran.

import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chooseSqlDriver } from '../../src/audit/defaultDriver.ts';
import type { SqlDriver, SqlDriverFactory } from '../../src/audit/driver.ts';

export interface FullDisk {
  kind: 'tmpfs' | 'max_page_count';
  dir: string;
  /** Pass to openAuditStore (startProxy's auditOptions): set only for max_page_count. */
  driver?: SqlDriverFactory | undefined;
  fill(): void;
  free(): void;
  cleanup(): void;
}

/** Mounts a tmpfs of `bytes` at `dir`; false when this process may not mount. */
export function mountTmpfs(dir: string, bytes: number, readOnly = false): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes}${readOnly ? ',ro' : ''}`, 'tmpfs', dir], {
      stdio: 'ignore',
    });
    return true;
  } catch {
    return false;
  }
}

export function unmount(dir: string): void {
  execFileSync('umount', [dir], { stdio: 'ignore' });
}

/** Writes until the filesystem refuses: large blocks first, then small ones for the last pages. */
function fillUp(file: string): void {
  const fd = openSync(file, 'w');
  try {
    for (const size of [1024 * 1024, 64 * 1024, 4096, 512]) {
      const block = Buffer.alloc(size, 1);
      try {
        for (;;) writeSync(fd, block);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      }
    }
  } finally {
    closeSync(fd);
  }
}

export function makeFullDisk(bytes = 8 * 1024 * 1024): FullDisk {
  const dir = mkdtempSync(path.join(tmpdir(), 'ctxproxy-disk-'));
  if (mountTmpfs(dir, bytes)) {
    const filler = path.join(dir, 'filler');
    return {
      kind: 'tmpfs',
      dir,
      fill: () => fillUp(filler),
      free: () => rmSync(filler, { force: true }),
      cleanup() {
        unmount(dir);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const base = chooseSqlDriver();
  let first: SqlDriver | undefined;
  const driver: SqlDriverFactory = {
    name: base.name,
    errorKind: base.errorKind,
    open(file, options) {
      const db = base.open(file, options);
      first ??= db;
      return db;
    },
  };
  return {
    kind: 'max_page_count',
    dir,
    driver,
    fill: () => first?.pragma('max_page_count', Number(first.pragma('page_count'))),
    free: () => first?.pragma('max_page_count', 1_073_741_823),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
