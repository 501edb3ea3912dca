// `@path` imports inside instruction files: relative to the importing file,
// `~/` allowed under ~/.claude only, ignored inside code spans and fences, at
// most five hops, cycles broken, every target through the file guard.

import path from 'node:path';
import type { SkippedPath } from '../shared/types.ts';
import type { StatTracker } from './trackedMemo.ts';
import type { FileGuard, Zone } from './workspace/guard.ts';
import { readTextIfFile } from './workspace/syncRead.ts';

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
  guard: FileGuard;
  home: string;
  /** Where `@~/` imports may land: the user's own `~/.claude` only, as Claude Code reads them. */
  homeZone: Zone;
  /** How a file is named in the report (workspace-relative or `~/…`). */
  label: (abs: string) => string;
  tracker: StatTracker;
  skipped: SkippedPath[];
  /** Real paths already emitted (shared with the caller, so a file appears once). */
  emitted: Set<string>;
}

export interface ImportedFile {
  abs: string;
  text: string;
}

/**
 * Depth-first: each import followed by its own imports, as a reader would meet
 * them. A relative import stays in the zone its importer was read from; `@~/`
 * goes to `~/.claude` only. Both pass the guard (real path, never-read list).
 */
export function resolveImports(
  ctx: ImportContext,
  importer: { abs: string; zone: Zone },
  text: string,
  chain: readonly string[],
): ImportedFile[] {
  const out: ImportedFile[] = [];
  const from = ctx.label(importer.abs);
  for (const target of findImports(text)) {
    const fromHome = target.startsWith('~/');
    const abs = fromHome ? path.join(ctx.home, target.slice(2)) : path.resolve(path.dirname(importer.abs), target);
    const zone = fromHome ? ctx.homeZone : importer.zone;
    ctx.tracker.track(abs);
    const verdict = ctx.guard.check(abs, zone, [target]);
    if (!verdict.ok) {
      ctx.skipped.push({
        path: target,
        reason: verdict.missing ? `import in ${from} not found` : `${verdict.reason} (import in ${from})`,
      });
      continue;
    }
    const real = verdict.real;
    if (chain.includes(real)) {
      ctx.skipped.push({ path: target, reason: `import cycle broken in ${from}` });
      continue;
    }
    if (chain.length > MAX_IMPORT_HOPS) {
      ctx.skipped.push({
        path: target,
        reason: `import depth limit (${MAX_IMPORT_HOPS} hops) reached in ${from}`,
      });
      continue;
    }
    if (ctx.emitted.has(real)) continue;
    const body = readTextIfFile(real);
    if (body === undefined) {
      ctx.skipped.push({ path: target, reason: `import in ${from} not found` });
      continue;
    }
    ctx.emitted.add(real);
    out.push({ abs, text: body });
    out.push(...resolveImports(ctx, { abs, zone }, body, [...chain, real]));
  }
  return out;
}
