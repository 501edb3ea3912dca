// The tree source: the work tree as indented names (no box-drawing), folders
// first ordered by how many files they hold, folders beyond the depth limit
// collapsed to `name/ (N files)`. Never-read files are listed: only their
// contents are secret, not their names.

import path from 'node:path';
import type { ContextSource, SourceResult } from '../shared/types.ts';
import { capHead } from './cap.ts';
import { type SourceDeps, wants } from './deps.ts';
import { Memo } from './memo.ts';
import type { Workspaces } from './workspace.ts';

export interface TreeOptions {
  maxDepth: number;
  /** Files listed per folder before `… N more files`. */
  maxFilesPerDir: number;
  maxChars: number;
}

export const defaultTreeOptions: TreeOptions = { maxDepth: 4, maxFilesPerDir: 40, maxChars: 12_000 };

interface Dir {
  dirs: Map<string, Dir>;
  files: string[];
  count: number;
}

const newDir = (): Dir => ({ dirs: new Map(), files: [], count: 0 });

function build(files: readonly string[]): Dir {
  const root = newDir();
  for (const file of files) {
    const parts = file.split('/');
    let dir = root;
    dir.count++;
    for (const part of parts.slice(0, -1)) {
      let next = dir.dirs.get(part);
      if (!next) {
        next = newDir();
        dir.dirs.set(part, next);
      }
      next.count++;
      dir = next;
    }
    dir.files.push(parts[parts.length - 1] ?? file);
  }
  return root;
}

export function renderTree(
  files: readonly string[],
  rootName: string,
  options: TreeOptions = defaultTreeOptions,
): string {
  const lines = [`${rootName}/`];
  const visit = (dir: Dir, depth: number) => {
    const indent = '  '.repeat(depth);
    const subdirs = [...dir.dirs.entries()].sort((a, b) => b[1].count - a[1].count || a[0].localeCompare(b[0]));
    for (const [name, sub] of subdirs) {
      if (depth >= options.maxDepth) {
        lines.push(`${indent}${name}/ (${sub.count} files)`);
      } else {
        lines.push(`${indent}${name}/`);
        visit(sub, depth + 1);
      }
    }
    const names = [...dir.files].sort();
    for (const name of names.slice(0, options.maxFilesPerDir)) lines.push(`${indent}${name}`);
    if (names.length > options.maxFilesPerDir)
      lines.push(`${indent}… ${names.length - options.maxFilesPerDir} more files`);
  };
  visit(build(files), 1);
  return lines.join('\n');
}

export function createTreeSource(
  deps: SourceDeps,
  workspaces: Workspaces,
  options: Partial<TreeOptions> = {},
): ContextSource {
  const opts = { ...defaultTreeOptions, ...options };
  const memo = new Memo<SourceResult>(() => deps.memoTtlMs, deps.clock, 8);
  return {
    name: 'tree',
    timeoutMs: 3_000,
    async collect(input) {
      if (!wants(input.wanted, 'tree.root')) return { items: [] };
      const ws = workspaces.get(input.workspace);
      return memo.get(ws.root, ws.gitFingerprint(), async () => {
        const walk = await ws.walk();
        const body = renderTree(walk.files, path.basename(ws.root), opts);
        const capped = capHead(body, opts.maxChars, 'ls -R');
        const note = walk.truncated ? '\n… listing stopped at the file limit' : '';
        return {
          items: [
            {
              key: 'tree.root',
              source: 'tree',
              title: `${path.basename(ws.root)}/ (${walk.files.length} files)`,
              text: capped.text + note,
              priority: 40,
              kind: 'tree',
              ...(capped.truncated || walk.truncated ? { truncated: true } : {}),
            },
          ],
        };
      });
    },
  };
}
