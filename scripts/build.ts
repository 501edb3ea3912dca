// `npm run build`, and so `prepare`: run by `npm ci`, and by npm the first time `npx ctxproxy` is used in a
// checkout (npm links the checkout into its npx cache and runs the linked package's `prepare`). It compiles
// src/ into a folder of its own beside dist/, writes the derived rules there (which also checks every shipped
// rule against its examples and fails the build if one does not hold), and then moves the result into dist/
// file by file (replaceTree.ts), so that a `ctxproxy` running from dist/ meanwhile never finds a module
// missing. The staging folder sits at the same depth as dist/: the compiled code finds rules/ and
// migrations/ at `../../` from its modules.

import { spawnSync } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { replaceTree } from './replaceTree.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const STAGING_PREFIX = '.dist-build-';
const DONE = path.join('redact', 'derivedRules.json');

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Runs a Node script to its end, its output shown; a failure ends the build with the script's code. */
function node(args: string[]): void {
  const result = spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0)
    throw Object.assign(new Error(`build step failed: ${args.join(' ')}`), { status: result.status });
}

// The staging folders of builds that were killed half-way.
for (const name of readdirSync(ROOT)) {
  const pid = Number(name.slice(STAGING_PREFIX.length));
  if (name.startsWith(STAGING_PREFIX) && Number.isInteger(pid) && !processIsAlive(pid))
    rmSync(path.join(ROOT, name), { recursive: true, force: true });
}

const staging = path.join(ROOT, `${STAGING_PREFIX}${process.pid}`);
try {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  node([tsc, '-p', 'tsconfig.build.json', '--noCheck', '--outDir', staging]);
  node([path.join(staging, 'redact', 'writeDerivedRules.js')]);
  replaceTree(staging, path.join(ROOT, 'dist'), DONE);
} catch (error) {
  console.error(`ctxproxy build: ${(error as Error).message}`);
  process.exitCode = (error as { status?: number }).status ?? 1;
} finally {
  rmSync(staging, { recursive: true, force: true });
}
