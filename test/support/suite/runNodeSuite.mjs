// The Node suite (`npm run test:unit`, `npm run test:agents`), in a few long-lived
// processes instead of one per file. Node 20's runner starts a process for every
// file, and each pays tsx and the sources' module graph again (about a second of
// CPU, issue 28). Here the files are dealt into GROUPS processes, each running its
// files one after another (fileGroup.mjs, which fails a file that leaves the
// process changed); the runner still runs two processes at a time and prints every
// file as a suite named by its path.
//
//   node test/support/suite/runNodeSuite.mjs [node --test options] [files or folders]
//
// Folders are searched for `*.test.ts` (node_modules never; test/agents only when
// named). Nothing named: every test file under test/ but test/agents. New files are
// picked up by that search. A file whose text holds `@own-process` (with its reason)
// keeps a process to itself, as every file did before.

import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const GROUPS = 6;

function testFiles(folder, skip) {
  return readdirSync(folder, { recursive: true })
    .filter((name) => name.endsWith('.test.ts') && !name.split(path.sep).includes('node_modules'))
    .map((name) => path.join(folder, name))
    .filter((file) => !skip.some((skipped) => file.startsWith(skipped + path.sep)));
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

const own = files.filter((file) => readFileSync(file, 'utf8').includes('@own-process'));
const shared = files.filter((file) => !own.includes(file));

// Dealt in turn, so each group gets some of every folder (the spawning integration
// files are the slow ones); groups of one file need no group.
const groupCount = Math.min(GROUPS, Math.ceil(shared.length / 2));
const groups = Array.from({ length: groupCount }, (_, i) => shared.filter((_, j) => j % groupCount === i));

const entries = mkdtempSync(path.join(tmpdir(), 'ctxproxy-node-suite-'));
const fileGroup = pathToFileURL(path.join(ROOT, 'test', 'support', 'suite', 'fileGroup.mjs')).href;
const groupEntries = groups.map((group, i) => {
  const entry = path.join(entries, `group-${i + 1}-of-${groupCount}.mjs`);
  writeFileSync(
    entry,
    `import { runFiles } from ${JSON.stringify(fileGroup)};\nrunFiles(${JSON.stringify(ROOT)}, ${JSON.stringify(group, null, 1)});\n`,
  );
  return entry;
});

const child = spawn(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=2', ...options, ...own, ...groupEntries],
  { cwd: ROOT, stdio: 'inherit' },
);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => {
  rmSync(entries, { recursive: true, force: true });
  process.exitCode = code ?? (signal ? 1 : 0);
});
