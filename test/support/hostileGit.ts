// Repositories whose git configuration is written to get past a config check
// (issue 24, part 2): keys hidden from a hand parser, commands in a
// submodule's own config, partial clones whose lazy fetch runs a transport, a
// `core.worktree` that moves git to the home folder, includes of outside files.
// Each command would leave a file in `markers/`; the fake home holds text that
// must never reach the model or the audit.

import fs from 'node:fs';
import path from 'node:path';
import { makeDir, makeRepo, type TempDir, type TempRepo } from './gitRepo.ts';

/** Whole contents of the fake home's files. */
export const HOME_TEXT = {
  notes: 'HOME-NOTES-TXT-5a1c9e',
  history: 'HOME-BASH-HISTORY-e07b3d',
} as const;

export interface HostileWorld {
  home: TempDir;
  markers: string;
  /** Names of the marker files (empty when no command ran). */
  ran(): string[];
  /** A shell command that leaves `name` in the markers folder. */
  touch(name: string): string;
  /** Temp folders to remove at the end. */
  track<T extends TempDir>(dir: T): T;
  cleanup(): void;
}

export function makeHostileWorld(): HostileWorld {
  const home = makeDir(
    { 'notes.txt': `${HOME_TEXT.notes}\n`, '.bash_history': `${HOME_TEXT.history}\n` },
    'ctxproxy-fake-home-',
  );
  const markerDir = makeDir({}, 'ctxproxy-markers-');
  const dirs: TempDir[] = [home, markerDir];
  return {
    home,
    markers: markerDir.dir,
    ran: () => fs.readdirSync(markerDir.dir).sort(),
    touch: (name) => `touch ${path.join(markerDir.dir, name)}`,
    track(dir) {
      dirs.push(dir);
      return dir;
    },
    cleanup() {
      for (const dir of dirs) dir.cleanup();
    },
  };
}

/** A repository with a committed, then modified, attributed text file (status and diff must hash and diff it). */
export function attributedRepo(world: HostileWorld, attributes = '*.txt filter=evil diff=evil\n'): TempRepo {
  const repo = world.track(makeRepo({ files: { '.gitattributes': attributes, 'a.txt': 'one\n' } }));
  fs.writeFileSync(path.join(repo.dir, 'a.txt'), 'one\ntwo\n');
  return repo;
}

/** Appends raw text to the repository's `.git/config`, as an attacker writes it (not through `git config`). */
export function appendConfig(repo: TempDir, text: string): void {
  fs.appendFileSync(path.join(repo.dir, '.git', 'config'), text);
}

/**
 * A superproject whose submodule `sub/` (its own repository, its own config)
 * has a modified attributed file; `configure` writes the submodule's config.
 */
export function repoWithSubmodule(world: HostileWorld, configure: (sub: TempRepo) => void): TempRepo {
  const sub = world.track(makeRepo({ files: { '.gitattributes': '*.txt filter=evil diff=evil\n', 'a.txt': 'one\n' } }));
  const repo = world.track(makeRepo({ files: { 'README.md': 'super\n' } }));
  // A submodule as `git submodule add` leaves it, without a transport: the repository moved in, a gitlink, .gitmodules.
  fs.renameSync(sub.dir, path.join(repo.dir, 'sub'));
  fs.mkdirSync(sub.dir);
  fs.writeFileSync(path.join(repo.dir, '.gitmodules'), '[submodule "sub"]\n\tpath = sub\n\turl = ./sub\n');
  repo.git('add', '.gitmodules', 'sub');
  repo.git('commit', '-q', '-m', 'add submodule');
  const inner: TempRepo = {
    ...sub,
    dir: path.join(repo.dir, 'sub'),
    git: (...args) => repo.git('-C', 'sub', ...args),
  };
  configure(inner);
  // The same size as before: status must hash the file (through its filter) to see the change.
  fs.writeFileSync(path.join(inner.dir, 'a.txt'), 'uno\n');
  return repo;
}

/**
 * A partial clone: `a.txt`'s committed blob is missing from the object store
 * and the promisor remote is `url`, so diffing the modified file makes git
 * fetch it (a lazy fetch) from that remote.
 */
export function partialClone(world: HostileWorld, remote: [string, string][]): TempRepo {
  const repo = world.track(makeRepo({ files: { 'a.txt': 'one\n' } }));
  const blob = repo.git('rev-parse', 'HEAD:a.txt').trim();
  fs.rmSync(path.join(repo.dir, '.git', 'objects', blob.slice(0, 2), blob.slice(2)));
  repo.git('config', 'extensions.partialClone', 'origin');
  repo.git('config', 'remote.origin.promisor', 'true');
  for (const [key, value] of remote) repo.git('config', key, value);
  fs.writeFileSync(path.join(repo.dir, 'a.txt'), 'one\ntwo\n');
  return repo;
}
