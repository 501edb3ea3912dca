// `@path` imports inside instruction files: relative to the importing file,
// `~/` allowed, ignored inside code spans and fences, at most five hops,
// cycles broken, and imports that leave both the workspace and home refused.

import path from 'node:path';
import type { SkippedPath } from '../shared/types.ts';
import { isInside } from './mentions.ts';
import { readTextIfFile, realPathOr } from './syncRead.ts';
import type { StatTracker } from './trackedMemo.ts';

export const MAX_IMPORT_HOPS = 5;

/** Import targets in the order written, ignoring fenced blocks and inline code spans. */
export function findImports(markdown: string): string[] {
  const found: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker) {
      if (fence === undefined) fence = marker[0];
      else if (marker[0] === fence) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    const prose = line.replace(/(`+)[^`]*?\1/g, ' ');
    for (const match of prose.matchAll(/(?:^|\s)@([^\s]+)/g)) {
      const target = (match[1] ?? '').replace(/[.,;:!?)]+$/, '');
      if (target.includes('/') || /\.\w+$/.test(target)) found.push(target);
    }
  }
  return found;
}

export interface ImportContext {
  workspace: string;
  home: string;
  tracker: StatTracker;
  skipped: SkippedPath[];
  /** Real paths already emitted (shared with the caller, so a file appears once). */
  emitted: Set<string>;
}

export interface ImportedFile {
  abs: string;
  text: string;
}

function withinAllowed(ctx: ImportContext, abs: string): boolean {
  const roots = [ctx.workspace, ctx.home];
  return roots.some((root) => abs === root || isInside(root, abs));
}

/** Depth-first: each import followed by its own imports, as a reader would meet them. */
export function resolveImports(
  ctx: ImportContext,
  importer: string,
  text: string,
  chain: readonly string[],
): ImportedFile[] {
  const out: ImportedFile[] = [];
  for (const target of findImports(text)) {
    const abs = target.startsWith('~/')
      ? path.join(ctx.home, target.slice(2))
      : path.resolve(path.dirname(importer), target);
    const real = realPathOr(abs);
    if (!withinAllowed(ctx, abs) || !withinAllowed(ctx, real)) {
      ctx.skipped.push({ path: target, reason: `import in ${importer} refused: outside the workspace and home` });
      continue;
    }
    if (chain.includes(real)) {
      ctx.skipped.push({ path: target, reason: `import cycle broken in ${importer}` });
      continue;
    }
    if (chain.length > MAX_IMPORT_HOPS) {
      ctx.skipped.push({ path: target, reason: `import depth limit (${MAX_IMPORT_HOPS} hops) reached in ${importer}` });
      continue;
    }
    if (ctx.emitted.has(real)) continue;
    ctx.tracker.track(abs);
    const body = readTextIfFile(abs);
    if (body === undefined) {
      ctx.skipped.push({ path: target, reason: `import in ${importer} not found` });
      continue;
    }
    ctx.emitted.add(real);
    out.push({ abs, text: body });
    out.push(...resolveImports(ctx, abs, body, [...chain, real]));
  }
  return out;
}
