// Whether one path is ignored, by the default ignores and every .gitignore
// from the workspace root down to its directory (for single files named in
// the conversation, without walking the tree).

import path from 'node:path';
import ignore from 'ignore';
import { readTextIfFile } from './syncRead.ts';
import { DEFAULT_IGNORED_DIRS, IGNORE_FILE_BYTES } from './walk.ts';

export function isGitIgnored(workspace: string, rel: string): boolean {
  const parts = rel.split('/');
  if (parts.slice(0, -1).some((dir) => DEFAULT_IGNORED_DIRS.has(dir))) return true;
  for (let i = 0; i < parts.length; i++) {
    const base = parts.slice(0, i).join('/');
    const text = readTextIfFile(path.join(workspace, base, '.gitignore'), { maxBytes: IGNORE_FILE_BYTES });
    if (text === undefined) continue;
    const matcher = ignore().add(text);
    const inner = parts.slice(i);
    // A file is ignored when it or any of its parent directories is.
    for (let j = 1; j <= inner.length; j++) {
      const candidate = inner.slice(0, j).join('/') + (j < inner.length ? '/' : '');
      if (matcher.ignores(candidate)) return true;
    }
  }
  return false;
}

/**
 * `isGitIgnored` for many paths of one workspace: each `.gitignore` is read and
 * compiled once per checker (make one per collection run, not longer: the files change).
 */
export function ignoreChecker(workspace: string): (rel: string) => boolean {
  const matchers = new Map<string, ReturnType<typeof ignore> | null>();
  const matcherFor = (base: string) => {
    let matcher = matchers.get(base);
    if (matcher === undefined) {
      const text = readTextIfFile(path.join(workspace, base, '.gitignore'), { maxBytes: IGNORE_FILE_BYTES });
      matcher = text === undefined ? null : ignore().add(text);
      matchers.set(base, matcher);
    }
    return matcher;
  };
  return (rel) => {
    const parts = rel.replace(/\/$/, '').split('/');
    const isDir = rel.endsWith('/');
    if (parts.slice(0, isDir ? parts.length : -1).some((dir) => DEFAULT_IGNORED_DIRS.has(dir))) return true;
    for (let i = 0; i < parts.length; i++) {
      const matcher = matcherFor(parts.slice(0, i).join('/'));
      if (matcher === null) continue;
      const inner = parts.slice(i);
      for (let j = 1; j <= inner.length; j++) {
        const candidate = inner.slice(0, j).join('/') + (j < inner.length || isDir ? '/' : '');
        if (matcher.ignores(candidate)) return true;
      }
    }
    return false;
  };
}
