// Synchronous reads for small, bounded sets of files (instruction files, their
// imports). On a busy machine each thread-pool round trip costs more than the
// read itself, and these run one after another, so sync is the fast path.

import fs from 'node:fs';

/** Reads stop here; the caller's character cap trims far earlier anyway. */
const MAX_READ_BYTES = 2 * 1024 * 1024;

/**
 * The file's text when it is a regular file, else undefined (missing, a folder,
 * unreadable). Past `maxBytes` it is cut there, or skipped with `skipLarger`.
 */
export function readTextIfFile(
  file: string,
  options: { maxBytes?: number; skipLarger?: boolean } = {},
): string | undefined {
  const maxBytes = options.maxBytes ?? MAX_READ_BYTES;
  let fd: number | undefined;
  try {
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    if (!stat?.isFile()) return undefined;
    if (options.skipLarger && stat.size > maxBytes) return undefined;
    fd = fs.openSync(file, 'r');
    const size = Math.min(stat.size, maxBytes);
    const buffer = Buffer.allocUnsafe(size);
    const read = fs.readSync(fd, buffer, 0, size, 0);
    return buffer.toString('utf8', 0, read);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

export function realPathOr(file: string): string {
  try {
    return fs.realpathSync.native(file);
  } catch {
    return file;
  }
}

/** Directory entries, sorted by name; empty when the folder is missing. */
export function listDir(dir: string): fs.Dirent[] {
  try {
    return fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
  } catch {
    return [];
  }
}
