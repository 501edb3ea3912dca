// Parses `git status --porcelain=v1 -z --branch` into the branch header and
// entries, and renders the entries as `git status --short` lines (XY columns
// intact, paths relative to the workspace like git shows them from there).

import path from 'node:path';

export interface StatusEntry {
  /** The two status columns, e.g. `M `, ` M`, `??`, `R `. */
  xy: string;
  /** Repository-relative path (a trailing `/` for an untracked directory). */
  path: string;
  /** For renames and copies: the old path. */
  from?: string | undefined;
}

export interface BranchHeader {
  /** Undefined when HEAD is detached. */
  branch: string | undefined;
  upstream: string | undefined;
  ahead: number;
  behind: number;
  /** True in a repository without commits yet. */
  unborn: boolean;
}

export interface StatusSnapshot {
  header: BranchHeader;
  entries: StatusEntry[];
  /** `git status --short` lines, paths relative to the workspace. */
  shortLines: string[];
  /** Workspace-relative paths of changed files (not deleted, not untracked dirs, inside the workspace). */
  changedFiles: string[];
}

export function parseBranchHeader(line: string): BranchHeader {
  const header: BranchHeader = { branch: undefined, upstream: undefined, ahead: 0, behind: 0, unborn: false };
  const body = line.replace(/^## /, '');
  const unborn = /^(?:No commits yet on|Initial commit on) (.+)$/.exec(body);
  if (unborn) return { ...header, branch: unborn[1], unborn: true };
  if (body.startsWith('HEAD (no branch)')) return header;
  const match = /^(.+?)(?:\.\.\.(\S+))?(?: \[(.+)\])?$/.exec(body);
  if (!match) return header;
  header.branch = match[1];
  header.upstream = match[2];
  const ahead = /ahead (\d+)/.exec(match[3] ?? '');
  const behind = /behind (\d+)/.exec(match[3] ?? '');
  header.ahead = ahead ? Number(ahead[1]) : 0;
  header.behind = behind ? Number(behind[1]) : 0;
  return header;
}

/**
 * ctxproxy's own folder (`.ctxproxy/`: the audit log, the retrieval index) at any depth. It ignores
 * itself through its own `.gitignore`, but that file is written just after the folder is made, so a
 * status taken in between would list the folder, and the next turn would carry a change the user
 * never made. The walk skips the same name (workspace/walk.ts).
 */
function isProxyOwn(repoPath: string): boolean {
  return repoPath.split('/').includes('.ctxproxy');
}

export function parseStatus(raw: string, topLevel: string, workspace: string): StatusSnapshot {
  const fields = raw.split('\0');
  let header: BranchHeader = { branch: undefined, upstream: undefined, ahead: 0, behind: 0, unborn: false };
  const entries: StatusEntry[] = [];
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i] ?? '';
    if (field === '') continue;
    if (field.startsWith('## ')) {
      header = parseBranchHeader(field);
      continue;
    }
    const xy = field.slice(0, 2);
    const entry: StatusEntry = { xy, path: field.slice(3) };
    if (xy.includes('R') || xy.includes('C')) {
      entry.from = fields[i + 1];
      i++;
    }
    if (!isProxyOwn(entry.path)) entries.push(entry);
  }
  const toWorkspace = (repoPath: string) => {
    const rel = path.relative(workspace, path.join(topLevel, repoPath)).split(path.sep).join('/');
    return repoPath.endsWith('/') ? `${rel}/` : rel;
  };
  const shortLines = entries.map((entry) =>
    entry.from !== undefined
      ? `${entry.xy} ${toWorkspace(entry.from)} -> ${toWorkspace(entry.path)}`
      : `${entry.xy} ${toWorkspace(entry.path)}`,
  );
  const changedFiles = entries
    .filter((entry) => !entry.path.endsWith('/') && !entry.xy.includes('D'))
    .map((entry) => toWorkspace(entry.path))
    .filter((rel) => !rel.startsWith('../'));
  return { header, entries, shortLines, changedFiles };
}
