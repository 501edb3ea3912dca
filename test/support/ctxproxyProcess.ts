// The real command, `bin/ctxproxy.js serve`, as a child process: started in a
// chosen folder with a clean environment, read until its ready lines.

import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/**
 * The command under test: the sources through tsx, or with CTXPROXY_TEST_BUILD=dist
 * (`npm run test:compiled`) the compiled package that `npm start` runs. The sources by
 * default: a dist/ left from an older build would otherwise be what the tests check.
 */
export const BIN = chooseBin(process.env.CTXPROXY_TEST_BUILD);

function chooseBin(build: string | undefined): string {
  if (build !== 'dist') return fileURLToPath(new URL('../../bin/ctxproxy.sources.js', import.meta.url));
  assert.ok(
    existsSync(new URL('../../dist/main.js', import.meta.url)),
    'CTXPROXY_TEST_BUILD=dist: run `npm run build` first',
  );
  return fileURLToPath(new URL('../../bin/ctxproxy.js', import.meta.url));
}

/**
 * A config folder that does not exist: the child reads no user config file (the developer's
 * ~/.config/ctxproxy/config.json would otherwise count) unless a test sets XDG_CONFIG_HOME itself.
 */
export const NO_USER_CONFIG_HOME = fileURLToPath(new URL('../fixtures/no-user-config-home/', import.meta.url));

/** Environment without the developer's own ctxproxy or Ollama settings. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('CTXPROXY_') || key === 'OLLAMA_HOST') delete env[key];
  return { ...env, XDG_CONFIG_HOME: NO_USER_CONFIG_HOME, ...extra };
}

/** Runs the command to its end: exit code and everything it wrote; `input` is its standard input. */
export function runCommand(
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; input?: string } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: options.cwd, env: cleanEnv(options.env) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
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
