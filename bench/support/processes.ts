// Child processes for benchmarks: the fake upstream and the real `ctxproxy serve`.

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

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

/** Starts the real CLI, `ctxproxy serve`, on a free port with its own workspace and database. */
export async function startCtxproxy(
  upstream: string,
  extraArgs: string[] = [],
): Promise<Child & { workspace: string }> {
  const workspace = mkdtempSync(path.join(tmpdir(), 'ctxproxy-bench-'));
  const child = spawn(
    process.execPath,
    [
      path.join(root, 'bin/ctxproxy.js'),
      'serve',
      '--port',
      '0',
      '--upstream',
      upstream,
      '--workspace',
      workspace,
      ...extraArgs,
    ],
    { stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, CTXPROXY_MODE: 'off' } },
  );
  const url = await firstLine(child, /^ctxproxy listening on (http:\/\/\S+)\/v1$/);
  return {
    process: child,
    url,
    workspace,
    stop: stopper(child, () => rmSync(workspace, { recursive: true, force: true })),
  };
}
