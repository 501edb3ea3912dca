// Watches the work tree's directories (inotify via fs.watch, one per directory,
// not recursive: Node 20's recursive mode polls files on Linux) so an in-place
// edit of a clean file invalidates git/tree/stats memos without running git.
// Until armed (or if arming fails) callers fall back to stats plus the TTL.

import fs from 'node:fs';
import path from 'node:path';

/** Above this many directories we do not watch (inotify limits); the TTL covers it. */
const MAX_WATCHED_DIRS = 4_000;

/**
 * Directories watched per turn of the event loop while arming. Each `fs.watch`
 * call blocks (an inotify syscall, ~20-50 µs); a whole work tree at once (up to
 * MAX_WATCHED_DIRS) would stall whatever else runs (a request's redaction, audit
 * write, upstream call), so arming yields between slices: bounded background work
 * (50 calls, a few ms at most), kept on the main thread because the watchers'
 * events must arrive there (a worker would need its own event loop and a message
 * per change). Not per-request work: it runs once per workspace, when idle.
 */
const ARM_SLICE_DIRS = 50;

export class WorkTreeWatcher {
  #generation = 0;
  #state: 'idle' | 'arming' | 'armed' | 'unavailable' = 'idle';
  #arming: Promise<void> | undefined;
  readonly #watchers = new Map<string, fs.FSWatcher>();
  /** Who wants to know which path changed, not only that something did (the persistent index). */
  readonly #listeners = new Set<(rel: string, isDir: boolean) => void>();

  constructor(private readonly root: string) {}

  /** Part of every work-tree fingerprint: changes on every event, and when arming completes. */
  stamp(): string {
    // Arming reads as idle: starting it must not look like a change (a needless re-walk).
    const state = this.#state === 'arming' ? 'idle' : this.#state;
    return `${state}:${this.#generation}`;
  }

  /** Calls `listener` with each changed path (not ignored) from now on; returns the way to stop. */
  listen(listener: (rel: string, isDir: boolean) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  get armed(): boolean {
    return this.#state === 'armed';
  }

  /** Watches `dirs` a slice per turn of the event loop; resolves once armed (or given up). */
  arm(dirs: readonly string[], isIgnored: (rel: string, isDir: boolean) => boolean): Promise<void> {
    // A second caller waits for the arming under way (the walk and armWatcherSoon both start one).
    if (this.#state === 'arming') return this.#arming ?? Promise.resolve();
    if (this.#state !== 'idle') return Promise.resolve();
    this.#arming = this.#armNow(dirs, isIgnored);
    return this.#arming;
  }

  async #armNow(dirs: readonly string[], isIgnored: (rel: string, isDir: boolean) => boolean): Promise<void> {
    if (dirs.length > MAX_WATCHED_DIRS) {
      this.#state = 'unavailable';
      return;
    }
    this.#state = 'arming';
    try {
      for (let i = 0; i < dirs.length; i += ARM_SLICE_DIRS) {
        if (i > 0) await new Promise((resolve) => setImmediate(resolve));
        // Closed meanwhile (close() gives up an arming in progress).
        if (this.#state !== 'arming') return;
        for (const dir of dirs.slice(i, i + ARM_SLICE_DIRS)) this.#watch(dir, isIgnored);
      }
      this.#state = 'armed';
    } catch {
      this.close();
      this.#state = 'unavailable';
    }
  }

  #watch(dirRel: string, isIgnored: (rel: string, isDir: boolean) => boolean): void {
    if (this.#watchers.has(dirRel)) return;
    const watcher = fs.watch(path.join(this.root, dirRel), { persistent: false }, (_event, name) => {
      const rel = name ? (dirRel === '' ? String(name) : `${dirRel}/${name}`) : dirRel;
      let isDir = false;
      try {
        isDir = fs.statSync(path.join(this.root, rel)).isDirectory();
      } catch {
        // Deleted: still a change.
      }
      if (name && isIgnored(rel, isDir)) return;
      this.#generation++;
      for (const listener of this.#listeners) listener(rel, isDir);
      if (isDir && this.#watchers.size < MAX_WATCHED_DIRS) {
        try {
          this.#watch(rel, isIgnored);
        } catch {
          // Best effort for new directories; the TTL remains the backstop.
        }
      }
    });
    // Deno ignores `persistent: false`; unref keeps a watcher from holding the process open there too.
    watcher.unref();
    watcher.on('error', () => {
      this.#generation++;
      // A folder no longer watched: listeners hear of it as a folder change (they look again).
      for (const listener of this.#listeners) listener(dirRel, true);
      watcher.close();
      this.#watchers.delete(dirRel);
    });
    this.#watchers.set(dirRel, watcher);
  }

  close(): void {
    if (this.#state === 'arming') this.#state = 'unavailable';
    for (const watcher of this.#watchers.values()) watcher.close();
    this.#watchers.clear();
  }
}
