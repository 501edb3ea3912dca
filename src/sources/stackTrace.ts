// The stacktrace source: frames from the last user message mapped to files in
// the workspace, each attached with ±20 numbered lines and the failing line
// marked with `>`. Library frames are listed by name only.

import fs from 'node:fs/promises';
import path from 'node:path';
import { contentHash } from '../shared/contentHash.ts';
import type { ContextItem, ContextSource, Segment, SkippedPath } from '../shared/types.ts';
import { defineSource } from './defineSource.ts';
import type { SourceDeps } from './deps.ts';
import { isLibraryFrame, parseTrace, type TraceFrame } from './traceParse.ts';
import { TrackedMemo } from './trackedMemo.ts';
import { isInside } from './workspace/canonicalPath.ts';
import { FileGuard, workspaceZone } from './workspace/guard.ts';
import type { Workspaces } from './workspace.ts';

export { looksLikeStackTrace } from './traceParse.ts';

export interface StackTraceOptions {
  contextLines: number;
  maxFrames: number;
  maxBytes: number;
}

export const defaultStackTraceOptions: StackTraceOptions = {
  contextLines: 20,
  maxFrames: 6,
  maxBytes: 2 * 1024 * 1024,
};

const JAVA_ROOTS = ['src/main/java', 'src/test/java', 'src/main/kotlin', 'src', 'app/src/main/java', ''];

/** Numbered lines around `line`, the failing one marked with `>`. */
export function excerpt(text: string, line: number, context: number): string {
  const lines = text.split('\n');
  const from = excerptStart(line, context);
  const to = Math.min(lines.length, line + context);
  const width = String(to).length;
  const out: string[] = [];
  for (let n = from; n <= to; n++) {
    out.push(`${n === line ? '>' : ' '} ${String(n).padStart(width)} | ${lines[n - 1] ?? ''}`);
  }
  return out.join('\n');
}

function excerptStart(line: number, context: number): number {
  return Math.max(1, line - context);
}

/** The item's header line, and its failing line when the file has it: what the budget keeps first. */
function frameSegments(fileText: string, line: number, context: number): Segment[] {
  const header: Segment = { kind: 'header', start: 0, end: 0 };
  if (line < 1 || line > fileText.split('\n').length) return [header];
  const at = 1 + line - excerptStart(line, context);
  return [header, { kind: 'frame', start: at, end: at }];
}

async function exists(abs: string): Promise<boolean> {
  return (await fs.stat(abs).catch(() => undefined))?.isFile() ?? false;
}

/** A workspace-relative path for the frame's file, or undefined when it is not in the workspace. */
async function locate(
  workspace: string,
  frame: TraceFrame,
  javaIndex: () => Promise<string[]>,
): Promise<string | undefined> {
  const file = frame.file.replace(/\\/g, '/');
  const toRel = (abs: string) => path.relative(workspace, abs).split(path.sep).join('/');
  if (frame.language === 'java') {
    for (const root of JAVA_ROOTS) {
      const abs = path.join(workspace, root, file);
      if (await exists(abs)) return toRel(abs);
    }
    const byName = (await javaIndex()).filter((rel) => rel.endsWith(`/${frame.fileName}`) || rel === frame.fileName);
    const byPackage = byName.find((rel) => rel.endsWith(file));
    return byPackage ?? (byName.length === 1 ? byName[0] : undefined);
  }
  const abs = path.resolve(workspace, file);
  if (isInside(workspace, abs) && (await exists(abs))) return toRel(abs);
  if (path.isAbsolute(file) || /^[A-Za-z]:\//.test(file)) {
    // Traces from containers or other checkouts: try the path's tail inside the workspace.
    const parts = file.split('/').filter(Boolean);
    for (let i = 1; i < parts.length && i <= 8; i++) {
      const candidate = path.join(workspace, ...parts.slice(i));
      if (await exists(candidate)) return toRel(candidate);
    }
  }
  return undefined;
}

function frameLabel(frame: TraceFrame): string {
  return `${frame.fn ? `${frame.fn} ` : ''}${frame.file}:${frame.line}`;
}

/** Frames listed (and looked up) per trace; the attached ones are the first `maxFrames` of these. */
const MAX_LISTED_FRAMES = 100;

export function createStackTraceSource(
  deps: SourceDeps,
  workspaces: Workspaces,
  options: Partial<StackTraceOptions> = {},
): ContextSource {
  const opts = { ...defaultStackTraceOptions, ...options };
  const memo = new TrackedMemo<{ items: ContextItem[]; skipped: SkippedPath[] }>(deps);

  return defineSource(
    workspaces,
    { name: 'stacktrace', timeoutMs: 3_000, answers: ['stacktrace.'] },
    async ({ ws, input }) => {
      const parsed = parseTrace(input.lastUserText);
      if (parsed.length === 0) return { items: [] };
      // Each frame costs a stat or two: a pasted trace of 100,000 frames must not cost 100,000.
      const frames = parsed.slice(0, MAX_LISTED_FRAMES);
      const workspace = ws.root;
      const hash = contentHash(input.lastUserText);
      return memo.get(`${workspace}|${hash}`, async (tracker) => {
        const javaIndex = async () => (await ws.walk()).files.filter((f) => /\.(java|kt|scala|groovy)$/.test(f));
        const items: ContextItem[] = [];
        const skipped: SkippedPath[] = [];
        const summary: string[] = [];
        const zone = workspaceZone(workspace, deps.allowedRoots);
        const guard = new FileGuard(deps.isNeverRead);
        let n = 0;
        for (const frame of frames) {
          if (isLibraryFrame(frame)) {
            summary.push(`  library: ${frameLabel(frame)}`);
            continue;
          }
          const rel = await locate(workspace, frame, javaIndex);
          if (rel === undefined) {
            summary.push(`  not in workspace: ${frameLabel(frame)}`);
            continue;
          }
          if (n >= opts.maxFrames) {
            summary.push(`  not attached (frame limit): ${frame.fn ? `${frame.fn} ` : ''}${rel}:${frame.line}`);
            continue;
          }
          const abs = path.join(workspace, rel);
          const verdict = guard.check(abs, zone, [rel]);
          if (!verdict.ok) {
            skipped.push({ path: rel, reason: verdict.missing ? 'not found' : verdict.reason });
            continue;
          }
          const real = verdict.real;
          tracker.track(abs);
          const stat = await fs.stat(real);
          if (stat.size > opts.maxBytes) {
            skipped.push({ path: rel, reason: `too large (${stat.size} bytes)` });
            continue;
          }
          n++;
          summary.push(`  #${n} ${frame.fn ? `${frame.fn} ` : ''}${rel}:${frame.line}`);
          const text = await fs.readFile(real, 'utf8');
          items.push({
            key: `stacktrace.${n}`,
            source: 'stacktrace',
            title: `${rel}:${frame.line}${frame.fn ? ` (${frame.fn})` : ''}`,
            text: `${frame.language} frame #${n}, ${frame.fn ?? 'unknown function'} at ${rel}:${frame.line}\n${excerpt(text, frame.line, opts.contextLines)}`,
            priority: 100 - n,
            kind: 'code',
            path: rel,
            why: `frame #${n} of the stack trace in the question (${rel}:${frame.line}${frame.fn ? `, in ${frame.fn}` : ''})`,
            segments: frameSegments(text, frame.line, opts.contextLines),
          });
        }
        if (parsed.length > frames.length) summary.push(`  … ${parsed.length - frames.length} more frames not listed`);
        items.unshift({
          key: 'stacktrace.frames',
          source: 'stacktrace',
          title: 'stack frames, deepest first',
          text: summary.join('\n'),
          priority: 100,
          kind: 'text',
          why: 'a stack trace in the question: its frames in this workspace',
        });
        return { items, skipped };
      });
    },
  );
}
