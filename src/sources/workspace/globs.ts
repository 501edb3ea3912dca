// Glob matching for rule files: a glob without a slash matches a basename
// anywhere (`*.go`), and match-all globs (`**`, `**/*`) apply even when no file
// is in play.

import picomatch from 'picomatch';

const MATCH_ALL = new Set(['**', '**/*', '*', '**/**']);

export function matchesAny(globs: readonly string[], files: readonly string[]): boolean {
  if (globs.some((glob) => MATCH_ALL.has(glob))) return true;
  const matchers = globs.map((glob) =>
    picomatch(glob.replace(/^\.\//, '').replace(/^\//, ''), { dot: true, basename: !glob.includes('/') }),
  );
  return files.some((file) => matchers.some((match) => match(file)));
}
