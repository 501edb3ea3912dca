// Generates the benchmark repository once (20,000 files, 2,000 commits) into a
// cache directory under os.tmpdir(), using `git fast-import` so history is
// written in one pass instead of 2,000 `git commit` processes.

import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface BenchRepoShape {
  files: number;
  commits: number;
}

const EXTENSIONS = ['ts', 'ts', 'ts', 'py', 'go', 'md'];

function fileContent(index: number, files: number, revision: number): string {
  const ext = EXTENSIONS[index % EXTENSIONS.length];
  const dep = (index * 7919 + 13) % Math.min(files, 500);
  const lines: string[] = [];
  if (ext === 'ts')
    lines.push(`import { helper${dep} } from '../../lib/helper${dep % 50}.ts';`, "import path from 'node:path';");
  if (ext === 'py') lines.push(`from pkg.mod${dep % 40} import run`, 'import os');
  if (ext === 'go') lines.push('package gen', '', 'import (', '\t"fmt"', `\t"example.com/gen/mod${dep % 30}"`, ')');
  for (let i = 0; i < 12; i++) lines.push(`// file ${index} line ${i} revision ${revision}`);
  return `${lines.join('\n')}\n`;
}

export function filePath(index: number): string {
  const ext = EXTENSIONS[index % EXTENSIONS.length];
  const top = `area${index % 20}`;
  const mid = `module${Math.floor(index / 20) % 50}`;
  return `${top}/${mid}/file${index}.${ext}`;
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

async function fastImport(dir: string, shape: BenchRepoShape): Promise<void> {
  const child = spawn('git', ['fast-import', '--quiet'], { cwd: dir, stdio: ['pipe', 'inherit', 'inherit'] });
  const done = new Promise<void>((resolve, reject) => {
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`git fast-import exited ${code}`))));
  });
  const chunks: string[] = [];
  let pending = 0;
  const write = (text: string) => {
    chunks.push(text);
    pending += text.length;
    if (pending > 1 << 20) flush();
  };
  const flush = () => {
    child.stdin.write(chunks.join(''));
    chunks.length = 0;
    pending = 0;
  };
  const data = (content: string) => `data ${Buffer.byteLength(content)}\n${content}\n`;
  const start = 1_700_000_000;
  for (let c = 0; c < shape.commits; c++) {
    const when = start + c * 3600;
    write(`commit refs/heads/main\ncommitter Bench <bench@example.test> ${when} +0000\n`);
    write(data(c === 0 ? 'Initial import' : `Change ${c}`));
    if (c === 0) {
      write(`M 100644 inline lib/README.md\n${data('# lib\n')}`);
      for (let i = 0; i < 50; i++)
        write(`M 100644 inline lib/helper${i}.ts\n${data(`export const helper${i} = ${i};\n`)}`);
      for (let i = 0; i < shape.files - 51; i++)
        write(`M 100644 inline ${filePath(i)}\n${data(fileContent(i, shape.files, 0))}`);
    } else {
      // A few files per commit, skewed so some are hotspots.
      for (let k = 0; k < 4; k++) {
        const i = k === 0 ? c % 37 : (c * 131 + k * 977) % (shape.files - 51);
        write(`M 100644 inline ${filePath(i)}\n${data(fileContent(i, shape.files, c))}`);
      }
    }
    write('\n');
  }
  flush();
  child.stdin.end();
  await done;
}

/** Returns the path of the cached repository, generating it on first use. */
export async function benchRepository(shape: BenchRepoShape = { files: 20_000, commits: 2_000 }): Promise<string> {
  const dir = path.join(os.tmpdir(), `ctxproxy-bench-context-${shape.files}-${shape.commits}-v1`);
  const marker = path.join(dir, '.git', 'ctxproxy-bench-ready');
  if (fs.existsSync(marker)) return dir;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q', '-b', 'main');
  await fastImport(dir, shape);
  git(dir, 'checkout', '-q', '-f', 'main');
  fs.writeFileSync(path.join(dir, 'CLAUDE.md'), '# Bench repo\nRun `make test`.\n');
  fs.writeFileSync(path.join(dir, '.gitignore'), 'tmp/\n');
  fs.writeFileSync(marker, new Date().toISOString());
  return dir;
}

/** Leaves a realistic dirty state: a few edited tracked files and a few new ones. */
export function dirtyWorkTree(dir: string): void {
  for (let i = 0; i < 12; i++) fs.appendFileSync(path.join(dir, filePath(i * 101)), `// local edit ${i}\n`);
  for (let i = 0; i < 3; i++) fs.writeFileSync(path.join(dir, `scratch${i}.ts`), `export const s${i} = ${i};\n`);
}
