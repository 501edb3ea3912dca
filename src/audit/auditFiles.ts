// The audit folder and the database files, made and opened without following a
// symlink. The default path is inside the workspace, a repository a stranger may
// have written: a committed `.ctxproxy` (or `audit.db`, or `audit.db-wal`) that
// is a link to `~/.ssh/authorized_keys` must not make ctxproxy create, write or
// chmod that file. So every folder from the workspace down is lstat'ed, the
// database is opened with O_NOFOLLOW (O_EXCL when new), modes are changed with
// fchmod on our own descriptor, and SQLite's side files are checked the same way
// before SQLite opens them.

import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  renameSync,
  type Stats,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { Logger } from '../shared/ports.ts';

/** The folder ctxproxy owns in a workspace; a --db elsewhere is the user's folder, left alone. */
export const AUDIT_FOLDER = '.ctxproxy';
const GITIGNORE = '# Written by ctxproxy: the audit log is private and never belongs in the repository.\n*\n';

/** The files SQLite keeps next to a database: its write-ahead log, the log's index, a rollback journal. */
export const SIDE_FILE_SUFFIXES = ['-wal', '-shm', '-journal'] as const;

/** Something on the audit path ctxproxy will not use (a symlink, a hard link, not a file); `message` says which. */
export class UnsafeAuditPathError extends Error {
  override readonly name = 'UnsafeAuditPathError';
}

/** The path ctxproxy uses when the user names none. */
export function defaultDbPath(workspace: string): string {
  return join(resolve(workspace), AUDIT_FOLDER, 'audit.db');
}

/**
 * Where the store opens the log and how far it trusts it: folders below the workspace are checked,
 * and a path the user named (anything but the default) may hold a database ctxproxy adopts.
 */
export function auditLocation(settings: { db: string; workspace: string }): {
  path: string;
  workspace: string;
  userChosen: boolean;
} {
  const path = resolve(settings.workspace, settings.db);
  return { path, workspace: settings.workspace, userChosen: path !== defaultDbPath(settings.workspace) };
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function refuseLink(path: string, stats: Stats, what: string): void {
  if (stats.isSymbolicLink()) {
    throw new UnsafeAuditPathError(`${path} is a symlink; ctxproxy does not follow links on the audit path (${what})`);
  }
}

/**
 * The folders below `workspace` down to `folder`, each lstat'ed (a link is refused) and made 0700
 * when missing. A folder outside the workspace is the user's (--db): made as asked, links and all.
 */
function makeFolders(folder: string, workspace: string | undefined): void {
  const rel = workspace === undefined ? undefined : relative(resolve(workspace), folder);
  if (rel === undefined || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    return;
  }
  let current = resolve(workspace as string);
  for (const part of rel.split(sep).filter((name) => name !== '')) {
    current = join(current, part);
    let stats = lstatOrUndefined(current);
    if (!stats) {
      try {
        // mkdir does not follow a link at its last component: one planted meanwhile fails with EEXIST.
        mkdirSync(current, { mode: 0o700 });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      stats = lstatSync(current);
    }
    refuseLink(current, stats, 'a folder between the workspace and the database');
    if (!stats.isDirectory()) throw new UnsafeAuditPathError(`${current} is not a folder`);
  }
}

/** Our own folder is private: tightened through a descriptor opened without following links. */
function tightenFolder(folder: string, logger: Logger): void {
  const stats = lstatSync(folder);
  refuseLink(folder, stats, 'the audit folder');
  if ((stats.mode & 0o077) === 0) return;
  const fd = openSync(folder, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  try {
    fchmodSync(fd, 0o700);
  } finally {
    closeSync(fd);
  }
  logger.warn('audit.folder_mode_tightened', { from: (stats.mode & 0o777).toString(8), to: '700' });
}

/**
 * `.ctxproxy/.gitignore` holds `*` after every start, whatever was there: written to a new file
 * and renamed over the old name, so a committed empty file or a link is replaced, never followed.
 * Fails closed: a log that `git add -A` would take is not opened.
 */
function writeGitignore(folder: string): void {
  const target = join(folder, '.gitignore');
  const temporary = join(folder, `.gitignore.${process.pid}.${Date.now().toString(36)}`);
  const fd = openSync(
    temporary,
    constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW,
    0o600,
  );
  try {
    writeSync(fd, GITIGNORE);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(temporary, target);
  } catch (error) {
    unlinkSync(temporary);
    throw new UnsafeAuditPathError(
      `cannot write ${target} (${(error as NodeJS.ErrnoException).code ?? 'error'}); the audit log would not be ignored by git`,
    );
  }
}

/** A database file: a regular file with one name, opened without following a link and made 0600. */
function checkOpenedFile(fd: number, path: string, logger: Logger, event: string): void {
  const stats = fstatSync(fd);
  if (!stats.isFile()) throw new UnsafeAuditPathError(`${path} is not a regular file`);
  // Another name for the same file (a hard link) would be written too, wherever it lives.
  if (stats.nlink > 1)
    throw new UnsafeAuditPathError(`${path} has ${stats.nlink} hard links; ctxproxy writes only a file of its own`);
  const mode = stats.mode & 0o777;
  if ((mode & 0o077) !== 0) {
    fchmodSync(fd, 0o600);
    logger.warn(event, { from: mode.toString(8), to: '600' });
  }
}

function openNoFollow(path: string, flags: number): number {
  try {
    // O_NONBLOCK: a FIFO planted under the name must not hang the open; it is refused just after.
    return openSync(path, flags | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') {
      throw new UnsafeAuditPathError(`${path} is a symlink; ctxproxy does not follow links on the audit path`);
    }
    throw error;
  }
}

/**
 * The side files SQLite will open next to the database. With a database just created, any left
 * there belong to no database of ours (a planted `-wal` would be replayed into it): removed, by
 * name, which never follows a link. Next to an existing database they are SQLite's: checked and
 * tightened like the database itself.
 */
function prepareSideFiles(path: string, created: boolean, logger: Logger): void {
  for (const suffix of SIDE_FILE_SUFFIXES) {
    const side = `${path}${suffix}`;
    const stats = lstatOrUndefined(side);
    if (!stats) continue;
    if (stats.isDirectory()) throw new UnsafeAuditPathError(`${side} is a folder, where SQLite keeps a file`);
    if (created) {
      unlinkSync(side);
      logger.warn('audit.stale_side_file_removed', { suffix });
      continue;
    }
    refuseLink(side, stats, `SQLite's ${suffix} file`);
    const fd = openNoFollow(side, constants.O_RDWR);
    try {
      checkOpenedFile(fd, side, logger, 'audit.db_mode_tightened');
    } finally {
      closeSync(fd);
    }
  }
}

export interface PreparedAuditFiles {
  /** True when this call created the database file (it is empty; nothing in it is anyone else's). */
  created: boolean;
}

/**
 * Makes the folders, the `.gitignore` of `.ctxproxy`, and the database file (0600), none through a
 * link; checks SQLite's side files. Throws UnsafeAuditPathError for what it refuses, or the fs error.
 */
export function prepareAuditFiles(path: string, workspace: string | undefined, logger: Logger): PreparedAuditFiles {
  const folder = dirname(path);
  makeFolders(folder, workspace);
  if (basename(folder) === AUDIT_FOLDER) {
    tightenFolder(folder, logger);
    writeGitignore(folder);
  }
  let created = true;
  let fd: number;
  try {
    fd = openNoFollow(path, constants.O_CREAT | constants.O_EXCL | constants.O_RDWR);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    created = false;
    fd = openNoFollow(path, constants.O_RDWR);
  }
  try {
    checkOpenedFile(fd, path, logger, 'audit.db_mode_tightened');
  } finally {
    closeSync(fd);
  }
  prepareSideFiles(path, created, logger);
  return { created };
}
