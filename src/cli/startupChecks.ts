// Checks that turn a confusing start into one clear line: a workspace that is
// not a folder stops `serve` and `preview`; an upstream that does not answer
// is a warning after the ready line (the server still starts: Ollama may come
// up later).

import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { isAbsolute, relative, sep } from 'node:path';
import { SIDE_FILE_SUFFIXES } from '../audit/auditFiles.ts';
import { AuditStoreOpenError } from '../audit/types.ts';
import { SettingsError } from '../config/loadSettings.ts';
import { ProxyError } from '../shared/errors.ts';
import type { Upstream } from '../shared/ports.ts';
import { gitChildEnvironment } from '../sources/git/gitEnvironment.ts';
import { NOT_A_REPOSITORY_HINT, notARepositoryWarning } from '../sources/git/gitPresence.ts';
import { gitPrefix } from '../sources/git/gitSafety.ts';

/** Throws a SettingsError (exit 2) unless `dir` is an existing folder. Creates nothing. */
export function checkWorkspace(dir: string, stat: (path: string) => { isDirectory(): boolean } = statSync): void {
  let isFolder: boolean;
  try {
    isFolder = stat(dir).isDirectory();
  } catch {
    throw new SettingsError(`the workspace ${dir} does not exist; pass --workspace with an existing folder`);
  }
  if (!isFolder) throw new SettingsError(`the workspace ${dir} is not a folder; pass --workspace with a folder`);
}

/**
 * One warning line when the workspace has no git to go on: not a repository, or one git cannot
 * read (not installed, or refused: a folder owned by someone else, say). Answers are still served;
 * every snapshot carries the same warning (pipeline/collect.ts).
 */
export function warnIfNotGit(workspace: string, err: (text: string) => void): boolean {
  const missing = notARepositoryWarning(workspace);
  if (missing) {
    err(`ctxproxy: warning: ${workspace}: ${missing}.\n`);
    return false;
  }
  try {
    execFileSync('git', [...gitPrefix([]), 'rev-parse', '--git-dir'], {
      cwd: workspace,
      env: gitChildEnvironment(),
      timeout: 5000,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    return true;
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & { stderr?: Buffer };
    const said = String(failure.stderr ?? '')
      .split('\n')
      .find((line) => line.trim() !== '')
      ?.trim()
      .slice(0, 200);
    const why = failure.code === 'ENOENT' ? 'git is not installed' : `git refused it${said ? ` (${said})` : ''}`;
    err(
      `ctxproxy: warning: ${workspace} is a git repository git cannot read: ${why}; there is no status, diff or history to go on. Install git or fix what it says, or ${NOT_A_REPOSITORY_HINT}.\n`,
    );
    return false;
  }
}

/** Asks the upstream for its models once; when it does not answer, prints one warning line with the hint. */
export async function warnIfUpstreamDown(
  upstream: Upstream,
  err: (text: string) => void,
  timeoutMs = 3000,
): Promise<boolean> {
  try {
    await upstream.listModels(AbortSignal.timeout(timeoutMs));
    return true;
  } catch (error) {
    const hint =
      upstream.kind === 'ollama'
        ? 'Start Ollama with `ollama serve`, or point --upstream at where it runs.'
        : 'Start the server, or point --upstream at where it runs.';
    const message =
      error instanceof ProxyError
        ? error.message
        : `The upstream at ${upstream.baseUrl} did not answer within ${timeoutMs / 1000}s. ${hint}`;
    err(`ctxproxy: warning: ${message} Requests will fail until it answers.\n`);
    return false;
  }
}

/**
 * The database files (the database and SQLite's side files) that git tracks, when they are inside
 * the workspace. A repository can commit a well-formed audit.db; `.gitignore` does not
 * apply to tracked files, so the user's next `git commit -a` would take every prompt written to it.
 * `ls-files --cached` reads only the index (no filter, no work-tree refresh); git's hardening
 * overrides still apply. Not a repository, or no git: nothing is tracked.
 */
export function trackedAuditFiles(workspace: string, dbPath: string): string[] {
  const rel = relative(workspace, dbPath);
  if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return [];
  const specs = [rel, ...SIDE_FILE_SUFFIXES.map((suffix) => `${rel}${suffix}`)];
  const env = gitChildEnvironment();
  let listed: string;
  try {
    listed = execFileSync(
      'git',
      [...gitPrefix([]), 'ls-files', '-z', '--cached', '--', ...specs.map((spec) => `:(literal)${spec}`)],
      { cwd: workspace, env, encoding: 'utf8', timeout: 5000, stdio: ['ignore', 'pipe', 'ignore'] },
    );
  } catch {
    return [];
  }
  return listed.split('\0').filter((name) => name !== '');
}

/** Refuses (one line, exit 1) an audit log the repository tracks, before the file is opened. */
export function refuseTrackedAuditLog(workspace: string, dbPath: string): void {
  const tracked = trackedAuditFiles(workspace, dbPath);
  if (tracked.length === 0) return;
  throw new AuditStoreOpenError(
    'unsafe-path',
    dbPath,
    `audit database ${dbPath} is not used: the repository tracks ${tracked.slice(0, 3).join(', ')}${tracked.length > 3 ? ' …' : ''}, so the log would be committed with it. Untrack it (git rm --cached ${tracked.map((name) => JSON.stringify(name)).join(' ')}), or pass --db to use a file outside the repository.`,
  );
}
