// The default way the sources run git: one `spawn` per command, stdout
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

import { spawn } from 'node:child_process';
import { gitFailureReason, subcommandOf } from './gitFailure.ts';

/** What was read of a command's stdout, up to a byte limit. */
export interface GitOutput {
  text: string;
  /** The output went on past the limit: `text` is its first part and git was stopped. */
  cut: boolean;
  /** Bytes read from git's stdout (the limit plus at most the last chunk). */
  bytes: number;
}

/** What the sources need of a git client: run one command, get its stdout. */
export interface GitRunner {
  raw(args: string[]): Promise<string>;
  /** Reads stdout up to `maxBytes`, then kills git. Optional: a simple-git instance has no such method. */
  rawLimited?(args: string[], maxBytes: number): Promise<GitOutput>;
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
 * process has closed its pipes with exit code 0; `rawLimited` stops reading at
 * the limit. Both reject with a GitCommandError otherwise, or when `signal`
 * aborts (the process is killed).
 */
export function spawnGit(baseDir: string, signal?: AbortSignal): GitRunner {
  const run = (args: string[], maxBytes: number) => runGit(baseDir, args, maxBytes, signal);
  return {
    raw: async (args) => (await run(args, Number.POSITIVE_INFINITY)).text,
    rawLimited: run,
  };
}

function runGit(baseDir: string, args: string[], maxBytes: number, signal?: AbortSignal): Promise<GitOutput> {
  return new Promise<GitOutput>((resolve, reject) => {
    if (signal?.aborted) {
      reject(new GitCommandError('git: aborted', null));
      return;
    }
    const child = spawn('git', args, { cwd: baseDir, windowsHide: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let kept = 0;
    let bytes = 0;
    let errBytes = 0;
    let cut = false;
    child.stdout.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (cut) return;
      if (kept + chunk.length <= maxBytes) {
        out.push(chunk);
        kept += chunk.length;
        return;
      }
      // Past the limit: keep what fits, stop reading and stop git (it would go on writing).
      out.push(chunk.subarray(0, maxBytes - kept));
      kept = maxBytes;
      cut = true;
      child.stdout.destroy();
      child.kill();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (errBytes >= STDERR_BYTES) return;
      err.push(chunk.subarray(0, STDERR_BYTES - errBytes));
      errBytes += Math.min(chunk.length, STDERR_BYTES - errBytes);
    });
    const onAbort = () => child.kill();
    signal?.addEventListener('abort', onAbort, { once: true });
    // Not started (no git, a missing folder): a promise settles once, whichever event comes first.
    child.on('error', (error) => {
      signal?.removeEventListener('abort', onAbort);
      reject(error);
    });
    child.on('close', (code) => {
      signal?.removeEventListener('abort', onAbort);
      if (signal?.aborted) reject(new GitCommandError('git: aborted', code));
      else if (cut) resolve({ text: Buffer.concat(out).toString('utf8'), cut, bytes });
      else if (code !== 0) {
        const reason = gitFailureReason(Buffer.concat(err).toString('utf8'));
        const what = `git ${subcommandOf(args)} failed (${code === null ? 'killed' : `exit ${code}`})`;
        reject(new GitCommandError(reason ? `${what}: ${reason}` : what, code));
      } else resolve({ text: Buffer.concat(out).toString('utf8'), cut, bytes });
    });
  });
}

/** At most `maxBytes` of the output, UTF-8, whoever the runner is. */
async function limited(git: GitRunner, args: string[], maxBytes: number): Promise<GitOutput> {
  if (git.rawLimited) return git.rawLimited(args, maxBytes);
  // A runner without a limit (simple-git in tests): the same answer, cut after the fact.
  const whole = Buffer.from(await git.raw(args), 'utf8');
  if (whole.length <= maxBytes) return { text: whole.toString('utf8'), cut: false, bytes: whole.length };
  return { text: whole.subarray(0, maxBytes).toString('utf8'), cut: true, bytes: whole.length };
}

/**
 * The output up to `maxBytes`, for callers that can use a first part (diffs,
 * history): when cut, it ends after the last whole record (`separator`: a line,
 * or a NUL-ended entry), never in the middle of one (nor of a UTF-8 character:
 * neither separator byte occurs inside one).
 */
export async function readPrefix(
  git: GitRunner,
  args: string[],
  maxBytes: number,
  separator: '\n' | '\0' = '\n',
): Promise<{ text: string; cut: boolean }> {
  const output = await limited(git, args, maxBytes);
  if (!output.cut) return { text: output.text, cut: false };
  return { text: output.text.slice(0, output.text.lastIndexOf(separator) + 1), cut: true };
}

/**
 * The whole output, for callers a cut list would mislead (`status -z`: a file
 * left out reads as unchanged); past `maxBytes` it rejects with GitOutputTooLarge.
 */
export async function readWhole(git: GitRunner, args: string[], maxBytes: number): Promise<string> {
  const output = await limited(git, args, maxBytes);
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
  if (error instanceof Error) return `git failed (${error.name})`;
  return 'git failed';
}
