// History, for questions about it ("what did the last commit change", "when did
// rates.py change"): the recent commits with the files each touched, of the
// whole repository or of the paths the question names, and the last commit's
// changed lines, each read up to a byte limit.

import { type GitRunner, readPrefix } from '../git/gitRunner.ts';
import { NO_DRIVERS } from '../git/gitSafety.ts';

export interface HistoryLimits {
  commits: number;
  logBytes: number;
  patchBytes: number;
}

export const defaultHistoryLimits: HistoryLimits = { commits: 5, logBytes: 6 * 1024, patchBytes: 3 * 1024 };

const FORMAT = '--format=commit %h %ad %an%n    %s';

export function logArgs(limits: HistoryLimits, paths: readonly string[], base?: string): string[] {
  return [
    'log',
    `-n${limits.commits}`,
    ...(base ? [`${base}..HEAD`] : []),
    '--date=short',
    FORMAT,
    // Names, not --stat: a tree diff reads no file contents, so a commit whose blobs are absent (a partial
    // clone, a snapshot without its large files) still lists what it touched, with whole paths.
    '--name-status',
    '--no-color',
    ...NO_DRIVERS,
    '--',
    ...paths,
  ];
}

export function lastPatchArgs(paths: readonly string[]): string[] {
  return ['show', '--format=', '--unified=1', '--no-color', ...NO_DRIVERS, 'HEAD', '--', ...paths];
}

/** What the branch changes since it left `base` (three dots: against the merge base, not base's own news). */
export function branchPatchArgs(base: string, paths: readonly string[]): string[] {
  return ['diff', '--unified=1', '--no-color', ...NO_DRIVERS, `${base}...HEAD`, '--', ...paths];
}

/** Lines of a definition followed by `git log -L`: its head, where a change to the name or signature lands. */
const DEFINITION_LINES = 5;

/** The last commit that touched a definition's first lines (`git log -L`), without its patch. */
export function definitionLogArgs(rel: string, line: number): string[] {
  return [
    'log',
    '-n1',
    '-s',
    '--date=short',
    FORMAT,
    '--no-color',
    ...NO_DRIVERS,
    `-L${line},+${DEFINITION_LINES}:${rel}`,
  ];
}

/** A definition the question names, located in the work tree. */
export interface DefinitionAt {
  name: string;
  rel: string;
  line: number;
}

/**
 * History of named things ("who last changed parse_links", "when was that
 * file last changed" after naming a function): for each definition, the last
 * commit that touched its first lines, then the recent commits of the files
 * that define them. Each read is bounded; a definition git cannot follow
 * (untracked, a line past the committed file) is left out, the file log still
 * answers.
 */
export async function definitionHistory(
  git: GitRunner,
  withPrefix: (args: string[]) => string[],
  definitions: readonly DefinitionAt[],
  limits: HistoryLimits = defaultHistoryLimits,
): Promise<string> {
  const files = [...new Set(definitions.map((d) => d.rel))];
  const [lineLogs, fileLog] = await Promise.all([
    Promise.all(
      definitions.map((d) =>
        readPrefix(git, withPrefix(definitionLogArgs(d.rel, d.line)), limits.patchBytes)
          .then((out) =>
            out.text.trim() === '' ? '' : `last change to ${d.name} (${d.rel}:${d.line}):\n${out.text.trimEnd()}`,
          )
          .catch(() => ''),
      ),
    ),
    readPrefix(
      git,
      withPrefix(
        logArgs(
          { ...limits, commits: 3 },
          files.map((rel) => `:(literal)${rel}`),
        ),
      ),
      limits.logBytes,
    ),
  ]);
  const log = mark(fileLog.text.trimEnd(), fileLog.cut, 'more in git log');
  return [...lineLogs.filter(Boolean), log === '' ? '' : `recent commits of ${files.join(', ')}:\n${log}`]
    .filter(Boolean)
    .join('\n\n');
}

/** Tag names read at most (newest first: the list is sorted before it is cut). */
const TAG_LIST_BYTES = 4 * 1024;
/** Commits listed between two releases, at most. */
const RELEASE_COMMITS = 60;

/**
 * What changed between releases ("what changed in the last release", "since
 * the last tag"): the commits between the two newest tags reachable from HEAD,
 * then those since the newest, one line each, bounded. Undefined when the
 * repository has fewer than two tags (the recent history answers instead).
 */
export async function releaseHistory(
  git: GitRunner,
  withPrefix: (args: string[]) => string[],
  limits: HistoryLimits = defaultHistoryLimits,
): Promise<{ text: string; newest: string; previous: string } | undefined> {
  const tags = await readPrefix(
    git,
    withPrefix(['tag', '--sort=-creatordate', '--merged', 'HEAD', '--no-color']),
    TAG_LIST_BYTES,
  );
  const [newest, previous] = tags.text.split('\n').filter((tag) => tag !== '' && !tag.startsWith('-'));
  if (!newest || !previous) return undefined;
  const oneLine = (range: string, n: number) =>
    readPrefix(
      git,
      withPrefix(['log', `-n${n}`, '--no-merges', '--date=short', '--format=%h %ad %s', '--no-color', range, '--']),
      limits.logBytes,
    );
  const [between, since] = await Promise.all([
    oneLine(`refs/tags/${previous}..refs/tags/${newest}`, RELEASE_COMMITS),
    oneLine(`refs/tags/${newest}..HEAD`, limits.commits),
  ]);
  const parts = [
    `commits between ${previous} and ${newest}:\n${mark(between.text.trimEnd(), between.cut, 'more in git log')}`,
  ];
  if (since.text.trim() !== '')
    parts.push(`commits since ${newest}:\n${mark(since.text.trimEnd(), since.cut, 'more in git log')}`);
  return { text: parts.join('\n\n'), newest, previous };
}

/** The log text (and the last commit's lines), with a marker where a limit cut it. */
export async function recentHistory(
  git: GitRunner,
  withPrefix: (args: string[]) => string[],
  paths: readonly string[],
  limits: HistoryLimits = defaultHistoryLimits,
  /** The default branch, when the question is about the current branch against it. */
  base?: string,
): Promise<{ log: string; patch: string; branch: boolean }> {
  if (base) {
    const [log, patch] = await Promise.all([
      readPrefix(git, withPrefix(logArgs(limits, paths, base)), limits.logBytes),
      readPrefix(git, withPrefix(branchPatchArgs(base, paths)), limits.patchBytes).catch(() => NO_PATCH),
    ]);
    // A branch with no commits of its own: the recent history answers instead.
    if (log.text.trim() !== '') {
      return {
        log: mark(log.text.trimEnd(), log.cut, `more in git log ${base}..HEAD`),
        patch: mark(patch.text.trimEnd(), patch.cut, `more in git diff ${base}...HEAD`),
        branch: true,
      };
    }
  }
  const [log, patch] = await Promise.all([
    readPrefix(git, withPrefix(logArgs(limits, paths)), limits.logBytes),
    // The changed lines need the blobs; without them the log still answers.
    readPrefix(git, withPrefix(lastPatchArgs(paths)), limits.patchBytes).catch(() => NO_PATCH),
  ]);
  return {
    log: mark(log.text.trimEnd(), log.cut, 'more in git log'),
    patch: mark(patch.text.trimEnd(), patch.cut, 'more in git show HEAD'),
    branch: false,
  };
}

const NO_PATCH = { text: '', cut: false };

const mark = (text: string, cut: boolean, what: string) => (cut ? `${text}… (cut: ${what})` : text);

/** Commits and bytes of a pasted line's commits read with `git log -S` (the history index not built yet). */
export const PICKAXE_LIMITS = { commits: 3, bytes: 2 * 1024 };

/** The commits whose changes add or remove `line` in `paths`, newest first, with their messages' bodies. */
export function pickaxeArgs(line: string, paths: readonly string[], commits: number): string[] {
  return [
    'log',
    `-n${commits}`,
    '--date=short',
    `${FORMAT}%n%w(0,4,4)%b`,
    '--no-color',
    ...NO_DRIVERS,
    // Stuck to its option, so that a line starting with a dash is the string searched for, not an option.
    `-S${line}`,
    '--',
    ...paths,
  ];
}

/**
 * "Which commit introduced this line in PATH": while the history index is not built, `git log -S` of the pasted
 * lines in the named files finds the commits that added or removed them. One path-limited walk per line, each
 * read up to a byte limit (git is stopped there); empty when none changed it.
 */
export async function pickaxeHistory(
  git: GitRunner,
  withPrefix: (args: string[]) => string[],
  lines: readonly string[],
  paths: readonly string[],
  limits = PICKAXE_LIMITS,
): Promise<string> {
  if (lines.length === 0 || paths.length === 0) return '';
  const logs = await Promise.all(
    lines.map((line) => readPrefix(git, withPrefix(pickaxeArgs(line, paths, limits.commits)), limits.bytes)),
  );
  return logs
    .map((log) => mark(log.text.trimEnd(), log.cut, 'more in git log -S'))
    .filter((text) => text !== '')
    .join('\n\n');
}

/** Asking when or by whom something came into being: a file's first commit, not its recent ones. */
export const ASKS_ORIGIN =
  /\b(?:first|originally|initial(?:ly)?)\b[^.?!\n]{0,40}\b(?:add|creat|introduc|writ|wrote|commit|appear|check)|\b(?:who|when|which commit)\b[^.?!\n]{0,60}\b(?:created|introduced|added|wrote|written)\b/i;

/**
 * The commit that brought each named path into being (added, or renamed to its name), found by a walk of the
 * history limited to the path; at most `ORIGIN_PATHS` paths, each read bounded. Empty when git finds none.
 */
export async function originHistory(
  git: GitRunner,
  withPrefix: (args: string[]) => string[],
  paths: readonly string[],
  limits: HistoryLimits = defaultHistoryLimits,
): Promise<string> {
  const logs = await Promise.all(
    paths.slice(0, ORIGIN_PATHS).map((pathspec) =>
      readPrefix(
        git,
        withPrefix([
          'log',
          '-n1',
          // Renamed to its name counts: before that it was another file.
          '--diff-filter=AR',
          '--date=short',
          FORMAT,
          '--name-status',
          '--no-color',
          ...NO_DRIVERS,
          '--',
          pathspec,
        ]),
        limits.logBytes,
      ).then(
        (out) => out.text.trimEnd(),
        () => '',
      ),
    ),
  );
  return logs.filter(Boolean).join('\n\n');
}

/** Named paths whose first commit is looked for. */
const ORIGIN_PATHS = 2;
