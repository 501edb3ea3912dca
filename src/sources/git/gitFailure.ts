// What a failed git command is reported as: its subcommand and a class of
// failure read from stderr, in fixed words. git's stderr itself is never passed
// on: it quotes paths, object names, ref names and config lines of the
// repository, and a failure's text reaches the source report and the audit.

/** Options before the subcommand that take a value as the next argument. */
const TAKES_VALUE = new Set(['-c', '-C', '--git-dir', '--work-tree', '--namespace', '--exec-path']);

/** The subcommand of a git argument list (`diff` in `-c x=y --no-optional-locks diff --cached`). */
export function subcommandOf(args: readonly string[]): string {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (TAKES_VALUE.has(arg)) i++;
    else if (!arg.startsWith('-')) return /^[a-z][a-z-]{0,30}$/.test(arg) ? arg : 'command';
  }
  return 'command';
}

/** Classes of failure a user can act on, matched on git's own (English) wording. */
const CLASSES: ReadonlyArray<readonly [RegExp, string]> = [
  [/dubious ownership/i, 'the repository belongs to another user (safe.directory)'],
  [/not a git repository/i, 'not a git repository'],
  [/unable to read|bad object|corrupt|invalid object|missing blob|packfile/i, 'a missing or corrupt object'],
  [/unknown revision|ambiguous argument|bad revision|bad default revision/i, 'a revision that does not resolve'],
  [/index\.lock|index file/i, 'the index is locked or unreadable'],
  [/permission denied/i, 'permission denied'],
  [/out of memory|cannot allocate/i, 'out of memory'],
];

/** A fixed description of the failure git printed, or undefined when it is none of the known classes. */
export function gitFailureReason(stderr: string): string | undefined {
  for (const [pattern, reason] of CLASSES) if (pattern.test(stderr)) return reason;
  return undefined;
}
