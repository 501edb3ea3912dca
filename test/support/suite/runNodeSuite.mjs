// The Node suite (`npm run test:unit`, `npm run test:agents`) in two long-lived
// processes instead of one per file. Node 20's runner starts a process for every
// file, and each pays tsx and the sources' module graph again (about half a second
// of CPU, issue 28). Here two processes (the runner's concurrency) take the files
// from one queue as they go, so both end at about the same time; each runs its
// files one after another (fileGroup.mjs, which fails a file that leaves the
// process changed) and prints every file as a suite named by its path.
//
//   node test/support/suite/runNodeSuite.mjs [node --test options] [files or folders]
//
// Folders are searched for `*.test.ts` (node_modules never; test/agents only when
// named). Nothing named: every test file under test/ but test/agents. New files are
// picked up by that search. A file whose text holds `@own-process` (with its reason)
// keeps a process to itself, as every file did before.

import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CONCURRENCY = 2;

/** The `*.test.ts` files under `folder`, never looking into node_modules or a folder in `skip`. */
function testFiles(folder, skip) {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || skip.includes(full) ? [] : testFiles(full, skip);
    return entry.isFile() && entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

const options = [];
const named = [];
for (const arg of process.argv.slice(2)) (arg.startsWith('--') ? options : named).push(arg);
const files = (
  named.length > 0
    ? named.flatMap((target) => {
        const full = path.resolve(target);
        return statSync(full).isDirectory() ? testFiles(full, []) : [full];
      })
    : testFiles(path.join(ROOT, 'test'), [path.join(ROOT, 'test', 'agents')])
).sort();

const own = [];
const shared = [];
for (const file of files) {
  const text = readFileSync(file, 'utf8');
  if (text.includes('@own-process')) own.push(file);
  // The queue's order: files that start processes (the slowest), then the longest first, so that
  // no long file is left to the end while the other process has nothing to do.
  else shared.push({ file, spawns: /ctxproxyProcess|node:child_process|playwright/.test(text), size: text.length });
}
shared.sort((a, b) => Number(b.spawns) - Number(a.spawns) || b.size - a.size);

// The compiled package, built here once if a source is newer (ctxproxyProcess.ts's check), before any file
// runs, rather than by whichever file first needs it while the others wait on its lock.
const built = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--input-type=module', '-e', "await import('./test/support/ctxproxyProcess.ts');"],
  { cwd: ROOT, stdio: 'inherit' },
);
if (built.status !== 0) process.exit(built.status ?? 1);

const run = mkdtempSync(path.join(tmpdir(), 'ctxproxy-node-suite-'));
const queue = path.join(run, 'queue');
mkdirSync(queue);
for (const [i, { file }] of shared.entries()) writeFileSync(path.join(queue, String(i).padStart(5, '0')), file);
const fileGroup = pathToFileURL(path.join(ROOT, 'test', 'support', 'suite', 'fileGroup.mjs')).href;
const entries = Array.from({ length: Math.min(CONCURRENCY, shared.length) }, (_, i) => {
  const entry = path.join(run, `process-${i + 1}.mjs`);
  writeFileSync(
    entry,
    `import { runQueue } from ${JSON.stringify(fileGroup)};\nawait runQueue(${JSON.stringify(ROOT)}, ${JSON.stringify(queue)});\n`,
  );
  return entry;
});

const child = spawn(
  process.execPath,
  ['--import', 'tsx', '--test', `--test-concurrency=${CONCURRENCY}`, ...options, ...own, ...entries],
  { cwd: ROOT, stdio: 'inherit' },
);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => {
  rmSync(run, { recursive: true, force: true });
  process.exitCode = code ?? (signal ? 1 : 0);
});
