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
  try {
    return readRegularFile(file, options.maxBytes ?? MAX_READ_BYTES, options.skipLarger)?.buffer?.toString('utf8');
  } catch {
    return undefined;
  }
}

/** Reading never waits for a writer: a FIFO put in a checked file's place cannot stall the event loop. */
const OPEN_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0);

/**
 * A regular file's size, mtime and its first `maxBytes` bytes (none when it is larger
 * and `skipLarger` is set); undefined when it is not a regular file. The file
 * is opened first and judged on the open descriptor, so what is read is what
 * was judged. Throws what the file system throws (missing, no access).
 */
export function readRegularFile(
  file: string,
  maxBytes: number,
  skipLarger = false,
): { size: number; mtimeMs: number; buffer?: Buffer } | undefined {
  const fd = fs.openSync(file, OPEN_FLAGS);
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) return undefined;
    if (skipLarger && stat.size > maxBytes) return { size: stat.size, mtimeMs: stat.mtimeMs };
    const size = Math.min(stat.size, maxBytes);
    const buffer = Buffer.allocUnsafe(size);
    const read = size === 0 ? 0 : fs.readSync(fd, buffer, 0, size, 0);
    return { size: stat.size, mtimeMs: stat.mtimeMs, buffer: buffer.subarray(0, read) };
  } finally {
    fs.closeSync(fd);
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
