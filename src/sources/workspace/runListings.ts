// Folder listings and the `.gitignore` checker shared by the sources of one
// request: the instructions and manifests sources both look at the folders in
// play once the shared status arrives, in the same synchronous run, and would
// otherwise list and stamp the same folders and compile the same `.gitignore`
// files twice. Kept until no source is collecting for the workspace, or the
// next turn of the event loop at the latest, so no later request sees a stale listing.

import type fs from 'node:fs';
import { statStamp } from './fingerprint.ts';
import { ignoreChecker } from './gitignored.ts';
import { listDir } from './syncRead.ts';

export interface Listing {
  /** The folder's stamp, taken before it was listed (what a tracker records for it). */
  stamp: string;
  entries: fs.Dirent[];
}

/** What a source records a path with: a stamp taken now, or one taken earlier in this run. */
export interface Stamper {
  track(file: string): void;
  adopt(file: string, stamp: string): void;
}

export class RunListings {
  #listings = new Map<string, Listing>();
  #ignored: ((rel: string) => boolean) | undefined;
  #clearing = false;

  constructor(private readonly root: string) {}

  /** The folder's entries (sorted by name; none when missing), stamped into `tracker` as of their listing. */
  list(dir: string, tracker: Stamper): fs.Dirent[] {
    let listing = this.#listings.get(dir);
    if (listing === undefined) {
      // Stamp first, then list: a change after the stamp makes the memo recompute next time.
      listing = { stamp: statStamp(dir), entries: listDir(dir) };
      this.#listings.set(dir, listing);
      this.#clearSoon();
    }
    tracker.adopt(dir, listing.stamp);
    return listing.entries;
  }

  /** Whether a workspace-relative path is ignored (`dir/` for a folder); see `ignoreChecker`. */
  ignored(rel: string): boolean {
    if (this.#ignored === undefined) {
      this.#ignored = ignoreChecker(this.root);
      this.#clearSoon();
    }
    return this.#ignored(rel);
  }

  clear(): void {
    this.#listings.clear();
    this.#ignored = undefined;
  }

  #clearSoon(): void {
    if (this.#clearing) return;
    this.#clearing = true;
    // A turn boundary, not a slice of work: the listings are one run's snapshot, valid for this turn only.
    setImmediate(() => {
      this.#clearing = false;
      this.clear();
    });
  }
}
