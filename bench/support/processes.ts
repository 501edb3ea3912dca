// Child processes for benchmarks: the fake upstream and the real `ctxproxy serve`.

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** User plus system CPU time a process has used so far (all its threads), in ms, from /proc (clock ticks of 10 ms). */
export function cpuMs(pid: number | undefined): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

export interface Child {
  process: ChildProcess;
  url: string;
  stop(): Promise<void>;
}

async function firstLine(child: ChildProcess, pattern: RegExp): Promise<string> {
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  for await (const line of lines) {
    const match = pattern.exec(line);
    if (match) return match[1] as string;
  }
  throw new Error(`process ended before printing ${pattern}`);
}

function stopper(child: ChildProcess, cleanup?: () => void): () => Promise<void> {
  return async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    cleanup?.();
  };
}

export async function startFakeUpstream(): Promise<Child> {
  return startScript('bench/support/fakeOllamaProcess.ts', []);
}

/** A TypeScript file of the repository run with tsx; it prints its URL as its first line. */
export async function startScript(file: string, args: string[]): Promise<Child> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, file), ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await firstLine(child, /^(http:\/\/\S+)$/);
  return { process: child, url, stop: stopper(child) };
}

/**
 * The Node flags a bin's `#!/usr/bin/env -S node …` line sets (this checkout's, or another's given as
 * `bin`: a "before" build runs with its own flags), so that a bench runs the server as the installed
 * command runs it; BENCH_NODE_FLAGS replaces them (`BENCH_NODE_FLAGS= ` for none).
 */
export function binNodeFlags(bin = path.join(root, 'bin/ctxproxy.js')): string[] {
  const override = process.env.BENCH_NODE_FLAGS;
  if (override !== undefined) return override.split(/\s+/).filter((flag) => flag !== '');
  const shebang = readFileSync(bin, 'utf8').split('\n', 1)[0] ?? '';
  return /^#!\/usr\/bin\/env -S node((?:\s+--\S+)*)\s*$/.exec(shebang)?.[1]?.trim().split(/\s+/).filter(Boolean) ?? [];
}

export interface CtxproxyOptions {
  /**
   * `read`: the server's stderr (its log, a line per request) goes to a pipe this process reads, as
   * under a terminal or a service manager; `ignore` (default): to /dev/null.
   */
  stderr?: 'ignore' | 'read' | undefined;
  /** Another checkout's built command (its `bin/ctxproxy.js`), for a before/after in the same rounds. */
  bin?: string | undefined;
  /** A workspace of the caller's (kept at stop); default: an empty temporary folder, removed at stop. */
  workspace?: string | undefined;
}

/** Starts the real CLI, `ctxproxy serve`, on a free port with its own workspace and database. */
export async function startCtxproxy(
  upstream: string,
  extraArgs: string[] = [],
  options: CtxproxyOptions = {},
): Promise<Child & { workspace: string; stderrBytes: () => number }> {
  const workspace = options.workspace ?? mkdtempSync(path.join(tmpdir(), 'ctxproxy-bench-'));
  const bin = options.bin ?? path.join(root, 'bin/ctxproxy.js');
  const child = spawn(
    process.execPath,
    [...binNodeFlags(bin), bin, 'serve', '--port', '0', '--upstream', upstream, '--workspace', workspace, ...extraArgs],
    {
      stdio: ['ignore', 'pipe', options.stderr === 'read' ? 'pipe' : 'ignore'],
      env: { ...process.env, CTXPROXY_MODE: 'off' },
    },
  );
  let stderrBytes = 0;
  child.stderr?.on('data', (chunk: Buffer) => {
    stderrBytes += chunk.length;
  });
  const url = await firstLine(child, /^ctxproxy listening on (http:\/\/\S+)\/v1$/);
  return {
    process: child,
    url,
    workspace,
    stderrBytes: () => stderrBytes,
    stop: stopper(child, () => {
      if (options.workspace === undefined) rmSync(workspace, { recursive: true, force: true });
    }),
  };
}
