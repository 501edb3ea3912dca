// Builders for audit tests: realistic snapshots and temp database folders.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Snapshot } from '../../src/shared/types.ts';

export interface TempDir {
  dir: string;
  path(name?: string): string;
  cleanup(): void;
}

export function tempDir(prefix = 'ctxproxy-audit-'): TempDir {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return {
    dir,
    path: (name = 'audit.db') => join(dir, name),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A context block of about `chars` characters, fenced the way the assembler fences it. */
export function contextBlock(chars = 4000, seed = 'stable'): string {
  const lines: string[] = ['<context source="git.status">'];
  let size = lines[0]?.length ?? 0;
  for (let i = 0; size < chars; i++) {
    const line = `M src/module${i}.ts // ${seed} line ${i} of the repository facts`;
    lines.push(line);
    size += line.length + 1;
  }
  lines.push('</context>');
  return lines.join('\n');
}

let counter = 0;

/** A full snapshot with every optional field set; override what the test is about. */
export function makeSnapshot(overrides: Partial<Snapshot> = {}): Snapshot {
  counter += 1;
  const block = 'contextBlock' in overrides ? overrides.contextBlock : contextBlock();
  const question = `How does module ${counter} work?`;
  const base: Snapshot = {
    id: `snap-${String(counter).padStart(6, '0')}`,
    requestId: `req-${counter}`,
    createdAt: 1_760_000_000_000 + counter * 1000,
    model: 'qwen2.5-coder:7b',
    modeAsked: 'auto',
    modeUsed: 'git-aware',
    downgradeReason: 'conversation exceeds 80% of the window',
    workspace: '/home/dev/project',
    userAgent: 'OpenAI/JS 6.30.1',
    stream: true,
    conversationId: 'conv-1',
    forwarded: [
      ...(block === undefined ? [] : [{ role: 'system' as const, content: block }]),
      { role: 'user', content: question },
    ],
    sources: [
      { source: 'git', status: 'ok', ms: 12, items: 2, chars: 3000, tokens: 750, skipped: [], trimmed: ['git.diff'] },
      {
        source: 'files',
        status: 'timeout',
        ms: 500,
        items: 0,
        chars: 0,
        error: 'timed out after 500 ms',
        skipped: [{ path: '.env', reason: 'never-read' }],
      },
    ],
    redactions: { 'aws-access-key-id': 1 },
    budget: {
      window: 32768,
      usable: 26214,
      reserve: 2048,
      conversationTokens: 120,
      contextTokens: 1000,
      numCtx: 32768,
      perEntry: [{ items: 'git.', budget: 4000, used: 750, trimmed: [] }],
    },
    reply: { content: `Module ${counter} loads the config.`, finishReason: 'stop' },
    usage: { promptTokens: 1100, completionTokens: 42 },
    timings: { totalMs: 812.5, collectMs: 30, firstTokenMs: 200.25, upstreamMs: 780 },
    outcome: 'ok',
    warnings: ['files: timed out'],
  };
  if (block !== undefined) base.contextBlock = block;
  const merged: Record<string, unknown> = { ...base, ...overrides };
  // `{ contextBlock: undefined }` means "without one": the key is left out, as a saved snapshot would have it.
  for (const [key, value] of Object.entries(merged)) if (value === undefined) delete merged[key];
  return merged as unknown as Snapshot;
}
