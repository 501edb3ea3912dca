// The default way the sources run git: one process per command (spawned by a
// worker thread, gitSpawner.ts, so the event loop never waits for it), stdout
// collected as `simple-git`'s `raw` does but without its task queue and plugin
// chain, which cost more CPU per process than the spawn itself on a cold request
// (bench/context/README.md). A factory in `deps.git` may still hand the sources
// a real simple-git instance (the tests count processes that way): it has only
// `raw`, so the byte limits below fall back to cutting its whole answer, and no
// options object ever reaches its `raw` (simple-git would turn one into flags).
//
// A repository can make git print hundreds of megabytes (a huge text file
// changed, a commit touching every file); every command the sources run is read
// up to a byte limit sized from what its caller keeps, and git is killed there,
// so one request never holds, joins and decodes all of that.

import { spawnSync } from 'node:child_process';
import { gitChildEnvironment } from './gitEnvironment.ts';
import { gitFailureReason, subcommandOf } from './gitFailure.ts';
import { spawnGitOffThread } from './gitSpawner.ts';

/** What was kept of a command's stdout. */
export interface GitOutput {
  text: string;
  /** Part of the output is not in `text`: git was stopped, or the keeper left some out. */
  cut: boolean;
  /** Bytes read from git's stdout. */
  bytes: number;
}

/**
 * Takes git's stdout chunk by chunk and keeps what its caller can use; when it
 * wants no more, git is stopped. Keeping is the caller's business (a first part,
 * or so many bytes a file of a diff), the runner only stops reading.
 */
export interface OutputKeeper {
  /** Takes the next chunk; false once nothing more is wanted. */
  push(chunk: Buffer): boolean;
  /** What was kept; `stopped` when the runner stopped reading before git was done. */
  result(stopped: boolean): { text: string; cut: boolean };
}

/** What the sources need of a git client: run one command, get its stdout. */
export interface GitRunner {
  raw(args: string[]): Promise<string>;
  /** Hands stdout to `keeper` and stops git once it wants no more. Optional: a simple-git instance has no such method. */
  rawKept?(args: string[], keeper: OutputKeeper): Promise<GitOutput>;
}

/** Keeps the first `maxBytes`; when cut, up to the end of the last whole record (a line, or a NUL-ended entry). */
export function prefixKeeper(maxBytes: number, separator: '\n' | '\0' = '\n'): OutputKeeper {
  const kept: Buffer[] = [];
  let size = 0;
  let cut = false;
  return {
    push(chunk) {
      if (size + chunk.length <= maxBytes) {
        kept.push(chunk);
        size += chunk.length;
        return true;
      }
      kept.push(chunk.subarray(0, maxBytes - size));
      size = maxBytes;
      cut = true;
      return false;
    },
    result() {
      const all = Buffer.concat(kept);
      // Neither separator byte occurs inside a UTF-8 character: the cut never splits one.
      if (!cut) return { text: all.toString('utf8'), cut };
      return { text: all.subarray(0, all.lastIndexOf(separator) + 1).toString('utf8'), cut };
    },
  };
}

/**
 * A failed git command. The message is a fixed sentence (the subcommand, the
 * exit code and a class of failure): git's stderr quotes repository text
 * (paths, ref names, config values) and failures end up in the source report,
 * which the audit stores without redaction.
 */
export class GitCommandError extends Error {
  constructor(
    message: string,
    readonly exitCode: number | null,
  ) {
    super(message);
    this.name = 'GitCommandError';
  }
}

/** A command whose whole output is needed printed more than its limit (see `readWhole`). */
export class GitOutputTooLarge extends GitCommandError {
  constructor(
    readonly subcommand: string,
    readonly maxBytes: number,
  ) {
    super(`git ${subcommand} printed more than ${formatBytes(maxBytes)}; not read`, null);
    this.name = 'GitOutputTooLarge';
  }
}

/** `64 MB`, `48 KB`: limits as a person reads them in a skip reason. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Math.round(bytes / (1024 * 1024))} MB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${bytes} bytes`;
}

/** Enough of stderr to tell the class of a failure; the rest is never needed. */
const STDERR_BYTES = 4096;

/**
 * Runs `git <args>` in `baseDir`. `raw` resolves with the whole stdout once the
 * process has closed its pipes with exit code 0; `rawKept` hands it to a keeper
 * and stops git once the keeper wants no more. Both reject with a GitCommandError otherwise, or when `signal`
 * aborts (the process is killed).
 */
export function spawnGit(baseDir: string, signal?: AbortSignal): GitRunner {
  return {
    raw: async (args) => (await runGit(baseDir, args, undefined, signal)).text,
    rawKept: (args, keeper) => runGit(baseDir, args, keeper, signal),
  };
}

function runGit(baseDir: string, args: string[], keeper: OutputKeeper | undefined, signal?: AbortSignal) {
  return new Promise<GitOutput>((resolve, reject) => {
    if (signal?.aborted) {
      reject(new GitCommandError('git: aborted', null));
      return;
    }
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let bytes = 0;
    let stopped = false;
    const onAbort = () => child.kill();
    const child = spawnGitOffThread(baseDir, args, gitChildEnvironment(), STDERR_BYTES, {
      stdout(chunk) {
        // Chunks the worker sent before it heard the stop are not read.
        if (stopped) return;
        bytes += chunk.length;
        if (!keeper) out.push(chunk);
        else if (!keeper.push(chunk)) {
          // Nothing more wanted: stop reading and stop git (it would go on writing).
          stopped = true;
          child.stop();
        }
      },
      stderr(chunk) {
        err.push(chunk);
      },
      // Not started (no git, a missing folder): a promise settles once, whichever event comes first.
      error(error) {
        signal?.removeEventListener('abort', onAbort);
        reject(error);
      },
      close(code) {
        signal?.removeEventListener('abort', onAbort);
        if (signal?.aborted) reject(new GitCommandError('git: aborted', code));
        else if (code !== 0 && !stopped) {
          const reason = gitFailureReason(Buffer.concat(err).toString('utf8'));
          const what = `git ${subcommandOf(args)} failed (${code === null ? 'killed' : `exit ${code}`})`;
          reject(new GitCommandError(reason ? `${what}: ${reason}` : what, code));
        } else if (keeper) resolve({ ...keeper.result(stopped), bytes });
        else resolve({ text: Buffer.concat(out).toString('utf8'), cut: false, bytes });
      },
    });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * `git <args>` run synchronously, for the rare caller that cannot wait (the
 * repository check of a caller that did not ask for it first): the whole
 * stdout, or a GitCommandError past `maxBytes`, `timeoutMs` or a failure.
 */
export function runGitSync(baseDir: string, args: string[], maxBytes: number, timeoutMs = 5_000): string {
  const result = spawnSync('git', args, {
    cwd: baseDir,
    env: gitChildEnvironment(),
    windowsHide: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: maxBytes,
    timeout: timeoutMs,
  });
  if (result.error)
    throw new GitCommandError(`git ${subcommandOf(args)} failed (${gitErrorReason(result.error)})`, null);
  if (result.status !== 0) {
    const reason = gitFailureReason(result.stderr.toString('utf8'));
    const what = `git ${subcommandOf(args)} failed (${result.status === null ? 'killed' : `exit ${result.status}`})`;
    throw new GitCommandError(reason ? `${what}: ${reason}` : what, result.status);
  }
  return result.stdout.toString('utf8');
}

/** The output as `keeper` keeps it, whoever the runner is. */
export async function readKept(git: GitRunner, args: string[], keeper: OutputKeeper): Promise<GitOutput> {
  if (git.rawKept) return git.rawKept(args, keeper);
  // A runner without it (simple-git in tests): the whole answer, kept the same way after the fact.
  const whole = Buffer.from(await git.raw(args), 'utf8');
  const stopped = !keeper.push(whole);
  return { ...keeper.result(stopped), bytes: whole.length };
}

/** Up to `maxBytes` of the output, for callers that can use a first part (history, listings). */
export async function readPrefix(
  git: GitRunner,
  args: string[],
  maxBytes: number,
  separator: '\n' | '\0' = '\n',
): Promise<{ text: string; cut: boolean }> {
  const { text, cut } = await readKept(git, args, prefixKeeper(maxBytes, separator));
  return { text, cut };
}

/**
 * The whole output, for callers a cut list would mislead (`status -z`: a file
 * left out reads as unchanged); past `maxBytes` it rejects with GitOutputTooLarge.
 */
export async function readWhole(git: GitRunner, args: string[], maxBytes: number): Promise<string> {
  const output = await readKept(git, args, prefixKeeper(maxBytes));
  if (output.cut) throw new GitOutputTooLarge(subcommandOf(args), maxBytes);
  return output.text;
}

/**
 * What a skip reason says about a failed git command: the runner's own fixed
 * sentence, or only the error's class for anything else (simple-git's errors
 * carry git's stderr, which may quote repository text).
 */
export function gitErrorReason(error: unknown): string {
  if (error instanceof GitCommandError) return error.message;
  // Not started (no git on PATH, a folder gone): the error code says which.
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return `git could not start (${code})`;
  if (error instanceof Error) return `git failed (${error.name})`;
  return 'git failed';
}
