// The build's last step (scripts/replaceTree.ts): a new compiled tree replaces dist/ without dist/ or any of
// its files ever missing, so a command running from dist/ while a build happens (npm runs `prepare` on the
// first `npx ctxproxy` of a checkout) still finds the modules it imports later.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { replaceTree } from '../../scripts/replaceTree.ts';

const scratch = mkdtempSync(path.join(tmpdir(), 'ctxproxy-replace-tree-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

let trees = 0;
function writeTree(files: Record<string, string>): string {
  const root = path.join(scratch, `tree-${++trees}`);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    writeFileSync(path.join(root, name), text);
  }
  return root;
}

function contents(root: string): Record<string, string> {
  const found: Record<string, string> = {};
  const visit = (relative: string): void => {
    for (const entry of readdirSync(path.join(root, relative), { withFileTypes: true })) {
      const child = path.join(relative, entry.name);
      if (entry.isDirectory()) visit(child);
      else found[child] = readFileSync(path.join(root, child), 'utf8');
    }
  };
  visit('');
  return found;
}

const inode = (file: string): number => statSync(file).ino;

describe('replaceTree', () => {
  test('the target ends up holding exactly the new files; unchanged ones and the folder itself are never replaced', () => {
    const dist = writeTree({
      'main.js': 'main 1',
      'cli/audit.js': 'audit 1',
      'cli/gone.js': 'gone',
      'old/only.js': 'old folder',
      'redact/done.json': 'same',
    });
    const before = { dist: inode(dist), main: inode(path.join(dist, 'main.js')) };
    const past = new Date(Date.now() - 3_600_000);
    utimesSync(path.join(dist, 'redact/done.json'), past, past);
    const next = writeTree({
      'main.js': 'main 1',
      'cli/audit.js': 'audit 2',
      'cli/new.js': 'new',
      'redact/done.json': 'same',
    });

    replaceTree(next, dist, path.join('redact', 'done.json'));

    assert.deepEqual(contents(dist), {
      'main.js': 'main 1',
      [path.join('cli', 'audit.js')]: 'audit 2',
      [path.join('cli', 'new.js')]: 'new',
      [path.join('redact', 'done.json')]: 'same',
    });
    assert.equal(inode(dist), before.dist, 'the folder was replaced');
    assert.equal(inode(path.join(dist, 'main.js')), before.main, 'an unchanged file was replaced');
    assert.ok(!existsSync(path.join(dist, 'old')), 'a folder the new tree lacks is left behind');
    // The marker moves in even with the same bytes: its time says when the tree was complete.
    assert.ok(statSync(path.join(dist, 'redact/done.json')).mtimeMs > past.getTime() + 1000);
    assert.deepEqual(contents(next), {}, 'files were left in the staging folder');
  });

  test('a process reading every file while the tree is replaced again and again never finds one missing', async () => {
    const names = Array.from({ length: 40 }, (_, i) => `group${i % 4}/module${i}.js`);
    const version = (n: number) => Object.fromEntries(names.map((name) => [name, `${name} version ${n}\n`]));
    const dist = writeTree(version(0));
    // The reader runs in a process of its own, as a command running from dist/ does.
    const reader = spawn(
      process.execPath,
      [
        '-e',
        `const fs = require('node:fs'); const path = require('node:path');
         const names = ${JSON.stringify(names)}; let reads = 0, missing = 0;
         process.stdin.on('data', () => { console.log(JSON.stringify({ reads, missing })); process.exit(0); });
         (function loop() {
           for (const name of names) {
             try { fs.readFileSync(path.join(${JSON.stringify(dist)}, name)); reads++; } catch { missing++; }
           }
           setImmediate(loop);
         })();
         console.log('ready');`,
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    let output = '';
    reader.stdout.setEncoding('utf8');
    await new Promise<void>((ready) => {
      reader.stdout.on('data', (chunk: string) => {
        output += chunk;
        if (output.includes('ready\n')) ready();
      });
    });
    const started = Date.now();
    // Until the reader has had time to read through many replacements, however loaded the machine.
    for (let n = 1; n <= 400 && (n <= 40 || Date.now() - started < 1000); n++) replaceTree(writeTree(version(n)), dist);
    const ended = new Promise<void>((resolve) => reader.on('exit', () => resolve()));
    reader.stdin.end('report\n');
    await ended;
    const { reads, missing } = JSON.parse(output.trim().split('\n').at(-1) ?? '{}') as {
      reads: number;
      missing: number;
    };
    assert.ok(reads > names.length, `the reader read ${reads} files`);
    assert.equal(missing, 0, `${missing} of ${reads + missing} reads found a file missing`);
  });
});
