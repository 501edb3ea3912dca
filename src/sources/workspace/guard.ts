// The one gate every file a source opens goes through. A cloned repository is
// untrusted input: a committed `AGENTS.md -> ~/.ssh/id_rsa` or an import
// `@~/.aws/credentials` must not turn ctxproxy into a file reader for whoever
// wrote the repository. So a file is read only when its real path (symlinks
// resolved, folders included) lies inside the zone the caller allows (the
// workspace and the configured allowed roots, or `~/.claude` for the user's own
// memory files), and neither the name it was asked for nor its real path is on
// the never-read list. Refusals come back as a reason for the source report;
// the reason never names where an outside symlink points (that would leak it).

import fs from 'node:fs';
import path from 'node:path';
import { canonicalPath } from './canonicalPath.ts';
import { readTextIfFile } from './syncRead.ts';

/** Where reads may land: real folder paths, and how to name them in a refusal. */
export interface Zone {
  roots: readonly string[];
  label: string;
}

export type GuardVerdict =
  | { ok: true; real: string }
  | { ok: false; missing: true }
  | { ok: false; missing: false; reason: string };

export const NEVER_READ_REASON = 'refused: never read (a secret by nature)';

export function makeZone(label: string, roots: readonly string[]): Zone {
  return { label, roots: [...new Set(roots.map(canonicalPath))] };
}

/** The usual zone: the workspace (a real path already) and the configured allowed roots. */
export function workspaceZone(workspace: string, allowedRoots: readonly string[]): Zone {
  return makeZone('the workspace', [workspace, ...allowedRoots]);
}

/** The zone root holding `file` (both absolute and normalized: a prefix test, no path.relative per file). */
function rootOf(zone: Zone, file: string): string | undefined {
  return zone.roots.find((root) => file === root || file.startsWith(root.endsWith(path.sep) ? root : root + path.sep));
}

/** `file` relative to `root` (which holds it), with `/` separators; '' for the root itself. */
function relativeTo(root: string, file: string): string {
  const rel = file === root ? '' : file.slice(root.endsWith(path.sep) ? root.length : root.length + 1);
  return path.sep === '/' ? rel : rel.split(path.sep).join('/');
}

/**
 * Make one per collection run: it remembers which folders are not links for
 * the run's duration only (a folder can become a link between requests).
 */
export class FileGuard {
  /** Folder → whether it is a symlink, for the folders between a zone root and the files checked. */
  readonly #linked = new Map<string, boolean>();

  constructor(private readonly isNeverRead: (relativePath: string) => boolean) {}

  /**
   * `abs` itself when it lies lexically inside a zone root and no folder on the
   * way down is a link (so it is its own real path); else undefined. Saves a
   * realpath per file when many files share folders (stats samples hundreds).
   */
  #unlinked(abs: string, zone: Zone): string | undefined {
    const root = rootOf(zone, abs);
    if (root === undefined) return undefined;
    for (let dir = path.dirname(abs); dir !== root && dir.length > root.length; dir = path.dirname(dir)) {
      let linked = this.#linked.get(dir);
      if (linked === undefined) {
        linked = lstat(dir)?.isSymbolicLink() ?? true;
        this.#linked.set(dir, linked);
      }
      if (linked) return undefined;
    }
    return abs;
  }

  /**
   * Whether `abs` may be opened. `names` are the names it was asked for (the
   * label shown to the user, an import target as written): each is checked
   * against the never-read list too, before anything touches the disk.
   */
  check(abs: string, zone: Zone, names: readonly string[] = []): GuardVerdict {
    // The list judges every path's tails (`a/.aws/credentials`), so one call per name does.
    // It is not cheap (a glob set), so a real path equal to a name already judged is not asked again.
    const judged = new Set<string>();
    for (const name of names) {
      const bare = name.replace(/^~\//, '').replace(/^(\.\.?\/)+/, '');
      if (bare === '') continue;
      if (this.isNeverRead(bare)) return { ok: false, missing: false, reason: NEVER_READ_REASON };
      judged.add(bare);
    }
    const own = lstat(abs);
    if (own === undefined) return { ok: false, missing: true };
    const resolved = path.resolve(abs);
    let real = own.isSymbolicLink() ? undefined : this.#unlinked(resolved, zone);
    let stat: fs.Stats | undefined = own;
    if (real === undefined) {
      try {
        real = fs.realpathSync.native(abs);
      } catch {
        // A dangling link: nothing to read, but say why when it is a link.
        return own.isSymbolicLink()
          ? { ok: false, missing: false, reason: 'refused: symlink to a missing file' }
          : { ok: false, missing: true };
      }
      stat = real === resolved ? own : lstat(real);
    }
    const root = rootOf(zone, real);
    if (root === undefined) {
      const linked = own.isSymbolicLink() || real !== resolved;
      return {
        ok: false,
        missing: false,
        reason: linked ? `refused: symlink to a path outside ${zone.label}` : `refused: outside ${zone.label}`,
      };
    }
    // Only regular files: a FIFO would block the read, a device never ends.
    if (!stat?.isFile()) {
      return { ok: false, missing: false, reason: 'refused: not a regular file' };
    }
    const rel = relativeTo(root, real);
    if (rel !== '' && !judged.has(rel) && this.isNeverRead(rel)) {
      return { ok: false, missing: false, reason: NEVER_READ_REASON };
    }
    return { ok: true, real };
  }

  /**
   * The text of a regular file that passes `check`, read from its real path and
   * cut at `maxBytes` (never read whole when huge). `refused` is set when the
   * file exists but may not be read; both are undefined when it is missing.
   */
  read(
    abs: string,
    zone: Zone,
    names: readonly string[] = [],
    options: { maxBytes?: number; skipLarger?: boolean } = {},
  ): { text?: string; real?: string; refused?: string } {
    const verdict = this.check(abs, zone, names);
    if (!verdict.ok) return verdict.missing ? {} : { refused: verdict.reason };
    const text = readTextIfFile(verdict.real, options);
    return text === undefined ? {} : { text, real: verdict.real };
  }
}

function lstat(file: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(file, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}
