// The real command as a child process: started in a chosen folder with a clean
// environment, read until its ready lines.

import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const onDeno = 'Deno' in globalThis;

/**
 * How a test starts the command: `dist`, the compiled package that `npm start` and `ctxproxy`
 * run (the default on Node); `deno`, the sources under Deno with `deno task start`'s permissions
 * (the default under Deno). Never the sources through tsx on Node: each child would compile the
 * TypeScript again, the largest cost of the spawning suites (issue 28).
 */
export type Entry = 'dist' | 'deno';
export const DEFAULT_ENTRY: Entry = onDeno ? 'deno' : 'dist';

/** The compiled command, `bin/ctxproxy.js`, for the suites that spawn it with `process.execPath` themselves. */
export const BIN = path.join(ROOT, 'bin', 'ctxproxy.js');

/** The executable and leading arguments that start the command through `entry`. */
export function commandLine(entry: Entry = DEFAULT_ENTRY): { file: string; args: string[] } {
  if (entry === 'dist') return { file: process.execPath, args: [BIN] };
  const task = (JSON.parse(readFileSync(path.join(ROOT, 'deno.json'), 'utf8')) as { tasks: { start: string } }).tasks
    .start;
  const permissions = task.split(/\s+/).filter((word) => word.startsWith('--allow-'));
  assert.ok(permissions.length > 0, `deno.json's start task names no permissions: ${task}`);
  return {
    file: process.execPath,
    args: ['run', ...permissions, '--config', path.join(ROOT, 'deno.json'), path.join(ROOT, 'bin', 'ctxproxy.deno.ts')],
  };
}

// What the compiled package is built from, and the build's last output (written once
// `tsc` is done, by writeDerivedRules.js): older than any source means dist/ is stale.
const BUILD_INPUTS = [path.join(ROOT, 'src'), path.join(ROOT, 'tsconfig.json'), path.join(ROOT, 'tsconfig.build.json')];
const BUILD_DONE = path.join(ROOT, 'dist', 'redact', 'derivedRules.json');

function newestChange(target: string): number {
  const stats = statSync(target);
  if (!stats.isDirectory()) return stats.mtimeMs;
  let newest = stats.mtimeMs;
  for (const name of readdirSync(target)) newest = Math.max(newest, newestChange(path.join(target, name)));
  return newest;
}

function distIsCurrent(): boolean {
  let built: number;
  try {
    built = statSync(BUILD_DONE).mtimeMs;
  } catch {
    return false;
  }
  return BUILD_INPUTS.every((input) => newestChange(input) <= built);
}

function processIsAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The lock's holder died mid-build (a killed run), or before it could write its id. */
function lockIsAbandoned(lock: string): boolean {
  try {
    return !processIsAlive(Number.parseInt(readFileSync(path.join(lock, 'pid'), 'utf8'), 10));
  } catch {
    try {
      return Date.now() - statSync(lock).mtimeMs > 10_000;
    } catch {
      return false; // released meanwhile
    }
  }
}

/**
 * The spawning suites check what a user runs: the compiled package. `npm ci` builds it and
 * `npm test` keeps it; a suite started by itself after a source edit builds it here, once:
 * the test files of one run take turns through a lock folder, and each looks again when its
 * turn comes, so only the first one builds.
 */
async function ensureBuilt(): Promise<void> {
  if (distIsCurrent()) return;
  const lock = path.join(tmpdir(), `ctxproxy-build-${createHash('sha256').update(ROOT).digest('hex').slice(0, 16)}`);
  const deadline = Date.now() + 300_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (lockIsAbandoned(lock)) rmSync(lock, { recursive: true, force: true });
    assert.ok(Date.now() < deadline, `waited 300 s for another test file's build (lock ${lock})`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  try {
    writeFileSync(path.join(lock, 'pid'), String(process.pid));
    if (distIsCurrent()) return;
    try {
      execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (error) {
      const { stdout = '', stderr = '' } = error as { stdout?: Buffer; stderr?: Buffer };
      assert.fail(`npm run build failed, so the compiled command cannot be tested:\n${stdout}${stderr}`);
    }
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

if (!onDeno) await ensureBuilt();

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
  options: { cwd?: string; env?: Record<string, string>; input?: string; entry?: Entry } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const command = commandLine(options.entry);
    const child = spawn(command.file, [...command.args, ...args], { cwd: options.cwd, env: cleanEnv(options.env) });
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
  /**
   * Sends a signal by process id, as a supervisor or `kill` does. Not `child.kill()`: Deno's
   * child_process then reports the exit as that signal, even when the process handled it and exited 0.
   */
  signal(name: NodeJS.Signals): void;
}

export async function startServe(
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
  entry: Entry = DEFAULT_ENTRY,
): Promise<ServingProcess> {
  const command = commandLine(entry);
  const child = spawn(command.file, [...command.args, 'serve', '--port', '0', ...args], {
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
  return {
    child,
    url,
    log: () => stderr,
    exited,
    signal: (name) => {
      if (child.pid !== undefined) process.kill(child.pid, name);
    },
  };
}
