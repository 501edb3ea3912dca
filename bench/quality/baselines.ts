// The whole-repository baselines, measured on the same repositories in the
// same run: the text of every tracked file (what "paste the repo" sends), and
// a packer's output in the manner of Repomix with diffs and logs (every
// non-ignored file, tracked or not, plus the working-tree diff and the log).

import fs from 'node:fs';
import path from 'node:path';
import { gitText } from './repo.ts';

function packFiles(dir: string, files: string[]): string {
  const parts: string[] = [];
  for (const rel of files) {
    let text: string;
    try {
      text = fs.readFileSync(path.join(dir, rel), 'utf8');
    } catch {
      continue; // deleted in the work tree
    }
    parts.push(`================\nFile: ${rel}\n================\n${text}`);
  }
  return parts.join('\n');
}

const list = (dir: string, ...args: string[]) =>
  gitText(dir, 'ls-files', '-z', ...args)
    .split('\0')
    .filter(Boolean);

export function trackedText(dir: string): string {
  return packFiles(dir, list(dir));
}

export function packerText(dir: string): string {
  return [
    packFiles(dir, list(dir, '-co', '--exclude-standard')),
    '================\nGit diffs (work tree and staged)\n================',
    gitText(dir, 'diff', 'HEAD'),
    '================\nGit logs\n================',
    gitText(dir, 'log', '-50', '--date=short', '--format=%h %ad %s', '--name-only'),
  ].join('\n');
}
