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
import type { SkippedPath } from '../shared/types.ts';
import { isInside } from './mentions.ts';
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

/** A folder's real path (so a symlinked workspace or `~/.claude` still matches its files); itself when missing. */
export function realDir(dir: string): string {
  try {
    return fs.realpathSync.native(dir);
  } catch {
    return path.resolve(dir);
  }
}

export function makeZone(label: string, roots: readonly string[]): Zone {
  return { label, roots: [...new Set(roots.map(realDir))] };
}

/** The usual zone: the workspace (a real path already) and the configured allowed roots. */
export function workspaceZone(workspace: string, allowedRoots: readonly string[]): Zone {
  return makeZone('the workspace', [workspace, ...allowedRoots]);
}

function rootOf(zone: Zone, real: string): string | undefined {
  return zone.roots.find((root) => real === root || isInside(root, real));
}

const slashes = (rel: string) => rel.split(path.sep).join('/');

export class FileGuard {
  constructor(private readonly isNeverRead: (relativePath: string) => boolean) {}

  /**
   * Whether `abs` may be opened. `names` are the names it was asked for (the
   * label shown to the user, an import target as written): each is checked
   * against the never-read list too, before anything touches the disk.
   */
  check(abs: string, zone: Zone, names: readonly string[] = []): GuardVerdict {
    for (const name of names) {
      const bare = name.replace(/^~\//, '').replace(/^(\.\.?\/)+/, '');
      if (bare !== '' && (this.isNeverRead(bare) || this.isNeverRead(path.basename(bare)))) {
        return { ok: false, missing: false, reason: NEVER_READ_REASON };
      }
    }
    const own = lstat(abs);
    if (own === undefined) return { ok: false, missing: true };
    let real: string;
    try {
      real = fs.realpathSync.native(abs);
    } catch {
      // A dangling link: nothing to read, but say why when it is a link.
      return own.isSymbolicLink()
        ? { ok: false, missing: false, reason: 'refused: symlink to a missing file' }
        : { ok: false, missing: true };
    }
    const root = rootOf(zone, real);
    if (root === undefined) {
      const linked = own.isSymbolicLink() || real !== path.resolve(abs);
      return {
        ok: false,
        missing: false,
        reason: linked ? `refused: symlink to a path outside ${zone.label}` : `refused: outside ${zone.label}`,
      };
    }
    // Only regular files: a FIFO would block the read, a device never ends.
    if (!fs.statSync(real, { throwIfNoEntry: false })?.isFile()) {
      return { ok: false, missing: false, reason: 'refused: not a regular file' };
    }
    const rel = slashes(path.relative(root, real));
    if (rel !== '' && (this.isNeverRead(rel) || this.isNeverRead(path.basename(real)))) {
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

/** A refusal as the source report shows it. */
export function refusal(pathLabel: string, reason: string): SkippedPath {
  return { path: pathLabel, reason };
}
