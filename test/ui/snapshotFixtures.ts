// Realistic snapshots for the audit browser's tests: a context block fenced
// the way the assembler fences it, a redaction marker, a budget, and text that
// would break a page that did not escape (`</script>`, `<img onerror>`).

import type { Snapshot } from '../../src/shared/types.ts';

export const HOSTILE = '</script><script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">';

export const BASE_TIME = Date.UTC(2026, 10, 20, 9, 30, 0);

export function contextBlockOf(seed = 'stable'): string {
  return [
    "ctxproxy collected the context below locally from the user's workspace. It is reference data.",
    '<context source="instructions.project" title="CLAUDE.md">\n# Project rules\nUse node:test. Never log prompts.\n</context>',
    `<context source="git.status">\nbranch main\nM src/server.ts\nM src/${seed}.ts\n</context>`,
    '<context source="files.src/config.ts" title="src/config.ts">\nexport const key = "[REDACTED:aws-access-key-id]";\nexport const port = 4141;\n</context>',
  ].join('\n\n');
}

let counter = 0;

/** A complete snapshot; override what the test is about. */
export function makeSnapshot(overrides: Partial<Snapshot> = {}): Snapshot {
  counter += 1;
  const id = overrides.id ?? `snap-${String(counter).padStart(4, '0')}`;
  const contextBlock = overrides.contextBlock ?? contextBlockOf();
  const question = 'Why does the server crash on start?';
  return {
    id,
    requestId: `req-${id}`,
    createdAt: BASE_TIME + counter * 60_000,
    model: 'qwen2.5-coder:7b',
    modeAsked: 'auto',
    modeUsed: 'git-aware',
    workspace: '/home/dev/project',
    userAgent: 'OpenAI/JS 6.30.1',
    stream: true,
    forwarded: [
      { role: 'system', content: 'You are a helpful coding assistant.' },
      { role: 'system', content: contextBlock },
      { role: 'user', content: question },
    ],
    contextBlock,
    sources: [
      { source: 'instructions', status: 'ok', ms: 3, items: 1, chars: 48, tokens: 12, skipped: [] },
      {
        source: 'git',
        status: 'ok',
        ms: 41,
        items: 2,
        chars: 1200,
        tokens: 310,
        skipped: [],
        trimmed: ['git.diff'],
      },
      {
        source: 'files',
        status: 'ok',
        ms: 9,
        items: 1,
        chars: 80,
        tokens: 25,
        skipped: [{ path: '.env', reason: 'never-read' }],
      },
    ],
    redactions: { 'aws-access-key-id': 1 },
    budget: {
      window: 32768,
      usable: 26214,
      reserve: 4096,
      conversationTokens: 1800,
      contextTokens: 6400,
      numCtx: 32768,
      perEntry: [
        { items: 'instructions.', budget: 2000, used: 12, trimmed: [] },
        { items: 'git.', budget: 3000, used: 3000, trimmed: ['git.diff'] },
      ],
    },
    reply: {
      content: 'The server reads PORT before loading the config. Move the call below `loadConfig()`.',
      reasoning: 'Look at the stack trace first.',
      finishReason: 'stop',
    },
    usage: { promptTokens: 8200, completionTokens: 140 },
    timings: { totalMs: 2350, collectMs: 55, firstTokenMs: 420, upstreamMs: 2280 },
    outcome: 'ok',
    warnings: [],
    ...overrides,
  };
}

/** `turns` snapshots of one conversation; the git status changes at turn 3, the messages grow each turn. */
export function conversationOf(conversationId: string, turns: number): Snapshot[] {
  const out: Snapshot[] = [];
  const history: Snapshot['forwarded'] = [{ role: 'system', content: 'You are a helpful coding assistant.' }];
  for (let turn = 1; turn <= turns; turn++) {
    const contextBlock = contextBlockOf(turn >= 3 ? 'changed' : 'stable');
    const question = `Turn ${turn}: what next?`;
    const forwarded = [history[0]!, { role: 'system' as const, content: contextBlock }, ...history.slice(1)];
    forwarded.push({ role: 'user', content: question });
    out.push(makeSnapshot({ conversationId, contextBlock, forwarded }));
    history.push({ role: 'user', content: question }, { role: 'assistant', content: `Answer ${turn}.` });
  }
  return out;
}
