// The tree source: the work tree as indented names (no box-drawing), folders
// first ordered by how many files they hold, folders beyond the depth limit
// collapsed to `name/ (N files)`. Never-read files are listed: only their
// contents are secret, not their names.

import path from 'node:path';
import type { ContextSource, SourceResult } from '../shared/types.ts';
import { capHead } from './cap.ts';
import { defineSource } from './defineSource.ts';
import type { SourceDeps } from './deps.ts';
import { Memo } from './memo.ts';
import type { WalkResult } from './workspace/walk.ts';
import type { Workspaces } from './workspace.ts';

export interface TreeOptions {
  maxDepth: number;
  /** Files listed per folder before `… N more files`. */
  maxFilesPerDir: number;
  maxChars: number;
}

export const defaultTreeOptions: TreeOptions = { maxDepth: 4, maxFilesPerDir: 40, maxChars: 12_000 };

/** What the tree needs of a walk: file counts per folder, and a folder's names when it is listed. */
export type Folders = Pick<WalkResult, 'fileCounts' | 'namesIn'>;

interface Dir {
  path: string;
  dirs: Map<string, Dir>;
  /** Files directly inside. */
  own: number;
  /** Files at any depth below. */
  count: number;
  /** Sub-folders, most files first; sorted once, on the first rendering that opens this folder. */
  sorted?: Array<[string, Dir]>;
}

const newDir = (dirPath: string): Dir => ({ path: dirPath, dirs: new Map(), own: 0, count: 0 });

function build(fileCounts: ReadonlyMap<string, number>): Dir {
  const root = newDir('');
  const nodes = new Map<string, Dir>([['', root]]);
  const nodeFor = (dirPath: string): Dir => {
    const known = nodes.get(dirPath);
    if (known) return known;
    const cut = dirPath.lastIndexOf('/');
    const dir = newDir(dirPath);
    nodeFor(cut === -1 ? '' : dirPath.slice(0, cut)).dirs.set(dirPath.slice(cut + 1), dir);
    nodes.set(dirPath, dir);
    return dir;
  };
  for (const [dirPath, count] of fileCounts) {
    if (count > 0) nodeFor(dirPath).own = count;
  }
  const total = (dir: Dir): number => {
    dir.count = dir.own;
    for (const sub of dir.dirs.values()) dir.count += total(sub);
    return dir.count;
  };
  total(root);
  return root;
}

/** Renders at one depth limit; undefined as soon as the text would exceed `maxChars`. */
function renderAt(
  root: Dir,
  folders: Folders,
  rootName: string,
  depthLimit: number,
  options: TreeOptions,
): string | undefined {
  const lines = [`${rootName}/`];
  let size = lines[0]?.length ?? 0;
  const push = (line: string) => {
    lines.push(line);
    size += line.length + 1;
    return size <= options.maxChars;
  };
  const visit = (dir: Dir, depth: number): boolean => {
    const indent = '  '.repeat(depth);
    dir.sorted ??= [...dir.dirs.entries()].sort((a, b) => b[1].count - a[1].count || a[0].localeCompare(b[0]));
    for (const [name, sub] of dir.sorted) {
      if (depth >= depthLimit) {
        if (!push(`${indent}${name}/ (${sub.count} files)`)) return false;
      } else if (!push(`${indent}${name}/`) || !visit(sub, depth + 1)) {
        return false;
      }
    }
    if (dir.own === 0) return true;
    // Names are made here, for the folders actually listed; they arrive sorted.
    const names = folders.namesIn(dir.path);
    for (let i = 0; i < Math.min(names.length, options.maxFilesPerDir); i++) {
      if (!push(`${indent}${names[i]}`)) return false;
    }
    if (names.length > options.maxFilesPerDir) {
      return push(`${indent}… ${names.length - options.maxFilesPerDir} more files`);
    }
    return true;
  };
  return visit(root, 1) ? lines.join('\n') : undefined;
}

/**
 * The deepest rendering (up to `maxDepth`) that fits in `maxChars`: a large
 * repository gets a shallower tree with folder counts rather than a listing
 * cut off halfway through its first folder.
 */
export function renderTree(
  folders: Folders,
  rootName: string,
  options: TreeOptions = defaultTreeOptions,
): { text: string; depth: number; fits: boolean } {
  const root = build(folders.fileCounts);
  for (let depth = options.maxDepth; depth >= 1; depth--) {
    const text = renderAt(root, folders, rootName, depth, options);
    if (text !== undefined) return { text, depth, fits: true };
  }
  const text = renderAt(root, folders, rootName, 1, { ...options, maxChars: Number.POSITIVE_INFINITY }) ?? '';
  return { text, depth: 1, fits: false };
}

export function createTreeSource(
  deps: SourceDeps,
  workspaces: Workspaces,
  options: Partial<TreeOptions> = {},
): ContextSource {
  const opts = { ...defaultTreeOptions, ...options };
  const memo = new Memo<SourceResult>(deps, 8);
  return defineSource(
    workspaces,
    { name: 'tree', timeoutMs: 3_000, answers: ['tree.root'], spawnsFirst: true },
    async ({ ws }) => {
      return memo.get(ws.root, ws.gitFingerprint(), async () => {
        const walk = await ws.walk();
        const rendered = renderTree(walk, path.basename(ws.root), opts);
        const capped = capHead(rendered.text, opts.maxChars, 'ls -R');
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
              why: 'the layout of the workspace',
              ...(capped.truncated || walk.truncated ? { truncated: true } : {}),
            },
          ],
        };
      });
    },
  );
}
