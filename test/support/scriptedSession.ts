// A scripted 20-turn chat against the real server with the real `openai`
// client, a real git repository edited between turns (files changed, added,
// staged, committed, a branch switched), and the fake Ollama recording every
// request. Measures how often turn N+1's forwarded prompt begins with turn N's
// bytes: what lets Ollama reuse its prompt cache. Used by a test and by
// bench/conversation.

import type OpenAI from 'openai';
import { ConversationCache } from '../../src/pipeline/conversations.ts';
import type { ChatMessage } from '../../src/shared/types.ts';
import { type AuditCheck, assertAuditMatchesUpstream } from './auditMatchesUpstream.ts';
import { chatTurn, serialize, withReply } from './chatTurns.ts';
import { startFakeOllama } from './fakeOllama.ts';
import { makeRepo, type TempRepo } from './gitRepo.ts';
import { startProxy } from './proxy.ts';

export interface SessionResult {
  turns: number;
  /** Turn pairs (N, N+1) where N+1's serialized messages begin with N's. */
  stable: number;
  pairs: number;
  /** Turns (1-based) whose prompt did not begin with the previous turn's. */
  unstable: number[];
  /** Context updates attached over the session. */
  updates: number;
  promptBytes: number[];
  /** Of all the bytes of turns 2..N, the share that repeats the previous turn's prompt from byte 0. */
  reusedShare: number;
  audit: AuditCheck;
}

const MODEL = 'qwen2.5-coder:7b';

/** One edit to the work tree before each turn after the first (some turns get none). */
const EDITS: ((repo: TempRepo, turn: number) => void)[] = [
  (repo, turn) => repo.write('src/app.js', `export const app = ${turn};\n`),
  (repo, turn) => repo.write(`src/feature${turn}.js`, `export const feature = ${turn};\n`),
  (repo) => repo.git('add', '-A'),
  (repo, turn) => repo.git('commit', '-q', '-m', `Work from turn ${turn}`),
  () => {},
  (repo, turn) => repo.write('README.md', `# Demo\nUpdated at turn ${turn}.\n`),
  (repo, turn) => repo.git('checkout', '-q', '-b', `topic-${turn}`),
];

export interface SessionOptions {
  turns?: number;
  /** false: the proxy keeps no conversation state (every turn planned fresh), the baseline. */
  remember?: boolean;
}

export async function runScriptedSession(options: SessionOptions = {}): Promise<SessionResult> {
  const turns = options.turns ?? 20;
  const fake = await startFakeOllama();
  const repo = makeRepo({
    files: {
      'AGENTS.md': '# Agents\nRun `npm test` before committing.\n',
      'README.md': '# Demo\n',
      'src/app.js': 'export const app = 0;\n',
    },
  });
  const proxy = await startProxy({ upstreamUrl: fake.url, workspace: repo.dir, settings: { mode: 'auto' } });
  if (options.remember === false) proxy.deps.conversations = new ConversationCache(0);
  const client: OpenAI = proxy.client();
  try {
    const prompts: string[] = [];
    let history: ChatMessage[] = [{ role: 'user', content: 'What is this repository about?' }];
    let updates = 0;
    for (let turn = 1; turn <= turns; turn++) {
      // An edit the work-tree watcher has not seen yet shows up one turn later: the prefix holds either way.
      if (turn > 1) EDITS[(turn - 2) % EDITS.length]?.(repo, turn);
      const result = await chatTurn(proxy, client, fake, history, { model: MODEL, stream: turn % 2 === 0 });
      prompts.push(serialize(result.received));
      updates += (result.snapshot.budget?.parts ?? []).filter((p) => p.kind === 'update' && !p.carried).length;
      history = withReply(history, result.reply, `Question ${turn + 1}: what changed since my last question?`);
    }
    const unstable: number[] = [];
    let reused = 0;
    let later = 0;
    for (let i = 1; i < prompts.length; i++) {
      const [previous, current] = [prompts[i - 1] as string, prompts[i] as string];
      if (!current.startsWith(previous)) unstable.push(i + 1);
      reused += Buffer.byteLength(current.slice(0, commonPrefix(previous, current)));
      later += Buffer.byteLength(current);
    }
    const audit = await assertAuditMatchesUpstream(proxy, fake);
    return {
      turns,
      pairs: prompts.length - 1,
      stable: prompts.length - 1 - unstable.length,
      unstable,
      updates,
      promptBytes: prompts.map((p) => Buffer.byteLength(p)),
      reusedShare: later === 0 ? 1 : reused / later,
      audit,
    };
  } finally {
    await proxy.close();
    await fake.close();
    repo.cleanup();
  }
}

function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}
