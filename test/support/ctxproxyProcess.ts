// The real command, `bin/ctxproxy.js serve`, as a child process: started in a
// chosen folder with a clean environment, read until its ready lines.

import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/ctxproxy.js', import.meta.url));

/** Environment without the developer's own ctxproxy or Ollama settings. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('CTXPROXY_') || key === 'OLLAMA_HOST') delete env[key];
  return { ...env, ...extra };
}

export interface ServingProcess {
  child: ChildProcess;
  /** `http://127.0.0.1:PORT`, no `/v1`. */
  url: string;
  /** Everything written to standard error so far (the JSON log). */
  log(): string;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
}

export async function startServe(
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<ServingProcess> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], {
    cwd,
    env: cleanEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (data) => {
    stderr += data;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  let first: string | undefined;
  for await (const line of lines) {
    first = line;
    break;
  }
  const url = /^ctxproxy listening on (http:\/\/127\.0\.0\.1:\d+)\/v1$/.exec(first ?? '')?.[1];
  assert.ok(url, `unexpected first line: ${first}\n${stderr}`);
  return { child, url, log: () => stderr, exited };
}
