// Retrieval on real repositories: questions generated from each repository's
// code and history (questions.ts, ground truth by git and grep), asked through
// the real server with the real `openai` client, in `auto` mode and in `off`
// (the client's messages alone), the fake Ollama recording what the model
// would receive. Scored by facts found verbatim in the forwarded request,
// forbidden strings (a fake credential in the work-tree edit, an ignored
// `.env`'s password), and the tokens the context added (auto minus off).
//
//   node --import tsx bench/retrieval/run.ts --dev REPO... [--held-out REPO...] [--model M] [--misses] [--dump DIR]
//
// The repositories are cloned to a scratch folder and prepared there
// (prepare.ts); the paths given are not changed.

import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTokenCounter } from '../../src/budget/index.ts';
import type { ChatMessage } from '../../src/shared/types.ts';
import { chatTurn, type WireMessage } from '../../test/support/chatTurns.ts';
import { startFakeOllama } from '../../test/support/fakeOllama.ts';
import { startProxy } from '../../test/support/proxy.ts';
import { prepare } from './prepare.ts';
import { type BenchQuestion, generateQuestions } from './questions.ts';

const args = process.argv.slice(2);
const listAfter = (name: string) => {
  const at = args.indexOf(name);
  if (at === -1) return [];
  const out: string[] = [];
  for (let i = at + 1; i < args.length && !(args[i] as string).startsWith('--'); i++) out.push(args[i] as string);
  return out;
};
const flag = (name: string) => {
  const at = args.indexOf(name);
  return at === -1 ? undefined : args[at + 1];
};
const sets = { dev: listAfter('--dev'), 'held-out': listAfter('--held-out') };
if (sets.dev.length + sets['held-out'].length === 0) {
  // `npm run bench` runs every benchmark without arguments: this one needs repositories nobody here wrote.
  console.log(
    'bench/retrieval skipped: no repositories given (run.ts --dev REPO... [--held-out REPO...]; see README.md)',
  );
  process.exit(0);
}
const MODEL = flag('--model') ?? 'qwen2.5-coder:7b';
const showMisses = args.includes('--misses');
const dumpDir = flag('--dump');

interface Outcome {
  set: string;
  repo: string;
  kind: string;
  id: string;
  found: number;
  needed: number;
  missed: string[];
  leaked: number;
  added: number;
  mode: string;
}

const counter = createTokenCounter();
const fake = await startFakeOllama();
const scratch = mkdtempSync(path.join(tmpdir(), 'ctxproxy-bench-retrieval-'));
const outcomes: Outcome[] = [];
const textOf = (messages: readonly WireMessage[]) => messages.map((m) => m.content).join('\n');

async function ask(
  proxy: Awaited<ReturnType<typeof startProxy>>,
  question: BenchQuestion,
  mode: 'off' | undefined,
): Promise<{ received: WireMessage[]; modeUsed: string; report: string }> {
  const client = proxy.client();
  let history: ChatMessage[] = [];
  let received: WireMessage[] = [];
  let modeUsed = '';
  let report = '';
  for (const turn of question.turns) {
    history = [...history, { role: 'user', content: turn }];
    const result = await chatTurn(proxy, client, fake, history, { model: MODEL, mode });
    received = result.received;
    modeUsed = result.headers.get('x-ctx-mode') ?? '?';
    report += `${JSON.stringify(result.snapshot.sources)}\n${JSON.stringify(result.snapshot.budget?.perEntry)}\n`;
    history = [...history, { role: 'assistant', content: result.reply }];
  }
  return { received, modeUsed, report };
}

try {
  for (const [set, repos] of Object.entries(sets)) {
    for (const source of repos) {
      const repo = prepare(source, scratch);
      const questions = generateQuestions(repo.dir, repo.editedLine);
      const proxy = await startProxy({ upstreamUrl: fake.url, workspace: repo.dir, settings: { mode: 'auto' } });
      try {
        for (const question of questions) {
          const off = await ask(proxy, question, 'off');
          const auto = await ask(proxy, question, undefined);
          const text = textOf(auto.received);
          const missed = question.facts.filter((f) => !text.includes(f));
          const offTokens = counter.countMessages(off.received as ChatMessage[]);
          const autoTokens = counter.countMessages(auto.received as ChatMessage[]);
          outcomes.push({
            set,
            repo: repo.name,
            kind: question.kind,
            id: question.id,
            found: question.facts.length - missed.length,
            needed: question.facts.length,
            missed,
            leaked: repo.forbidden.filter((f) => text.includes(f)).length,
            added: autoTokens - offTokens,
            mode: auto.modeUsed,
          });
          if (dumpDir) {
            const file = path.join(dumpDir, repo.name, `${question.id.replace(/[^\w.-]+/g, '_')}.txt`);
            mkdirSync(path.dirname(file), { recursive: true });
            writeFileSync(
              file,
              `${JSON.stringify(question, null, 1)}\n${auto.report}\n${auto.received.map((m) => `=== ${m.role}\n${m.content}`).join('\n')}`,
            );
          }
        }
      } finally {
        await proxy.close();
      }
    }
  }
} finally {
  await fake.close();
}

const median = (values: number[]) => {
  const s = [...values].sort((a, b) => a - b);
  if (s.length === 0) return 0;
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};
const p90 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.9)] ?? 0;

function row(label: string, list: Outcome[]): string {
  const found = list.reduce((s, o) => s + o.found, 0);
  const needed = list.reduce((s, o) => s + o.needed, 0);
  const leaked = list.reduce((s, o) => s + o.leaked, 0);
  const added = list.map((o) => o.added);
  const recall = needed === 0 ? 1 : found / needed;
  return `| ${label} | ${list.length} | ${recall.toFixed(2)} (${found}/${needed}) | ${leaked} | ${Math.round(median(added))} | ${p90(added)} |`;
}

for (const set of Object.keys(sets)) {
  const inSet = outcomes.filter((o) => o.set === set);
  if (inSet.length === 0) continue;
  console.log(`\n## ${set}: ${[...new Set(inSet.map((o) => o.repo))].join(', ')} (model ${MODEL}, auto mode)\n`);
  console.log('| kind | questions | recall | forbidden | median added tokens | p90 |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const kind of [...new Set(inSet.map((o) => o.kind))].sort()) {
    console.log(
      row(
        kind,
        inSet.filter((o) => o.kind === kind),
      ),
    );
  }
  for (const repo of [...new Set(inSet.map((o) => o.repo))])
    console.log(
      row(
        `repo ${repo}`,
        inSet.filter((o) => o.repo === repo),
      ),
    );
  console.log(row('**all**', inSet));
}
if (showMisses) {
  console.log('\nmissed facts:');
  for (const o of outcomes) {
    for (const m of o.missed)
      console.log(`  ${o.set} ${o.repo} ${o.id} (${o.mode}): ${JSON.stringify(m).slice(0, 140)}`);
    if (o.leaked) console.log(`  ${o.set} ${o.repo} ${o.id}: ${o.leaked} forbidden string(s)`);
  }
}
