// The default way the sources run git: one `spawn` per command, stdout
// collected whole, as `simple-git`'s `raw` does but without its task queue and
// plugin chain, which cost more CPU per process than the spawn itself on a cold
// request (bench/context/README.md). Only `raw` is used by the sources; a
// factory in `deps.git` may still hand them a real simple-git instance (the
// tests count processes that way).

import { spawn } from 'node:child_process';

/** What the sources need of a git client: run one command, get its stdout. */
export interface GitRunner {
  raw(args: string[]): Promise<string>;
}

/** A failed git command: its exit code and what it printed on stderr. */
export class GitCommandError extends Error {
  constructor(
    message: string,
    readonly exitCode: number | null,
  ) {
    super(message);
    this.name = 'GitCommandError';
  }
}

/**
 * Runs `git <args>` in `baseDir`. Resolves with stdout once the process has
 * closed its pipes with exit code 0; rejects with stderr otherwise, or when
 * `signal` aborts (the process is killed).
 */
export function spawnGit(baseDir: string, signal?: AbortSignal): GitRunner {
  return {
    raw(args) {
      return new Promise<string>((resolve, reject) => {
        if (signal?.aborted) {
          reject(new GitCommandError('git: aborted', null));
          return;
        }
        const child = spawn('git', args, { cwd: baseDir, windowsHide: true, stdio: ['ignore', 'pipe', 'pipe'] });
        const out: Buffer[] = [];
        const err: Buffer[] = [];
        child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
        child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
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
          else if (code !== 0) {
            const text = Buffer.concat(err).toString('utf8').trim();
            reject(new GitCommandError(text || `git exited with code ${code}`, code));
          } else resolve(Buffer.concat(out).toString('utf8'));
        });
      });
    },
  };
}
