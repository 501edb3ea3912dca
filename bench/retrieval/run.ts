// Retrieval on real repositories: questions generated from each repository's
// code and history (questions.ts, ground truth by git and grep), asked through
// the real server with the real `openai` client, in `auto` mode and in `off`
// (the client's messages alone), the fake Ollama recording what the model
// would receive. Scored by facts found verbatim in the forwarded request,
// forbidden strings (a fake credential in the work-tree edit, an ignored
// `.env`'s password), and the tokens the context added (auto minus off).
//
//   node --import tsx bench/retrieval/run.ts --dev REPO... [--held-out REPO...] [--unseen REPO...] [--model M] [--misses] [--dump DIR] [--only KIND,...] [--warm-index]
//
// The repositories are cloned to a scratch folder and prepared there
// (prepare.ts); the paths given are not changed.

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTokenCounter } from '../../src/budget/index.ts';
import { openIndexDatabase } from '../../src/pipeline/indexDatabase.ts';
import { DEFAULT_NEVER_READ_FILE } from '../../src/redact/createRedactor.ts';
import { loadNeverRead } from '../../src/redact/loadRules.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import type { ChatMessage } from '../../src/shared/types.ts';
import { defaultSourceDeps } from '../../src/sources/deps.ts';
import { createRetrievalIndexes } from '../../src/sources/retrieval/index/registry.ts';
import { Workspaces } from '../../src/sources/workspace.ts';
import { chatTurn, type WireMessage } from '../../test/support/chatTurns.ts';
import { startFakeOllama } from '../../test/support/fakeOllama.ts';
import { startProxy } from '../../test/support/proxy.ts';
import { prepare } from './prepare.ts';
import { type BenchQuestion, generateQuestions, HELD_OUT_KINDS, NEW_KINDS } from './questions.ts';

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
/** `--unseen`: repositories scored for figures only; their misses are never printed, so nobody tunes on them. */
const sets = { dev: listAfter('--dev'), 'held-out': listAfter('--held-out'), unseen: listAfter('--unseen') };
if (Object.values(sets).every((repos) => repos.length === 0)) {
  // `npm run bench` runs every benchmark without arguments: this one needs repositories nobody here wrote.
  console.log(
    'bench/retrieval skipped: no repositories given (run.ts --dev REPO... [--held-out REPO...]; see README.md)',
  );
  process.exit(0);
}
const MODEL = flag('--model') ?? 'qwen2.5-coder:7b';
const showMisses = args.includes('--misses');
/**
 * `--warm-index`: the workspace index (`.ctxproxy/index.db`) is built before the server starts, so the
 * questions are answered from a stored index (a restart), not while a first build runs.
 */
const warmIndex = args.includes('--warm-index');

async function buildIndex(dir: string): Promise<void> {
  const deps = defaultSourceDeps({
    isNeverRead: loadNeverRead(DEFAULT_NEVER_READ_FILE),
    logger: silentLogger,
    openIndex: (root) => openIndexDatabase(root, silentLogger),
  });
  const workspaces = new Workspaces(deps);
  const indexes = createRetrievalIndexes(deps, workspaces);
  try {
    await indexes.warm(dir);
  } finally {
    indexes.close();
    workspaces.closeAll();
  }
}
const dumpDir = flag('--dump');
/** `--only kind,kind`: ask only those kinds (a quick look while working on one class). */
const onlyKinds = flag('--only')?.split(',');

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
  /** Facts found by the one-command grep baseline, and its tokens. */
  grepFound: number;
  grepTokens: number;
  /** Facts already in the client's own messages (`off`). */
  offFound: number;
}

/** Words of a question a developer would grep for: not stop words, 4 characters or more. */
const BASELINE_STOP = new Set(
  'what where which when does this that with from have been into about your there their these those show tell explain find code file files function method class project repository last change changed changes test tests value part defined define take takes return returns default branch compared since make sure actually check checks'.split(
    ' ',
  ),
);
const GREP_CHARS = 8_000;

/**
 * The one-command baseline: `git grep -n -i -w` of the last turn's words over the
 * work tree, its output cut at 8,000 characters (about 2,000 tokens).
 */
function grepBaseline(dir: string, question: BenchQuestion): string {
  const last = question.turns.at(-1) ?? '';
  const words = [...new Set(last.match(/[A-Za-z_][\w.]*[\w]/g) ?? [])].filter(
    (w) => w.length >= 4 && !BASELINE_STOP.has(w.toLowerCase()),
  );
  if (words.length === 0) return '';
  try {
    const out = execFileSync(
      'git',
      ['grep', '-n', '-I', '-i', '-w', '-F', '--untracked', '--exclude-standard', ...words.flatMap((w) => ['-e', w])],
      { cwd: dir, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
    );
    return out.slice(0, GREP_CHARS);
  } catch {
    return '';
  }
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
      const questions = generateQuestions(repo.dir, repo).filter((q) => !onlyKinds || onlyKinds.includes(q.kind));
      if (warmIndex) await buildIndex(repo.dir);
      const proxy = await startProxy({ upstreamUrl: fake.url, workspace: repo.dir, settings: { mode: 'auto' } });
      try {
        for (const question of questions) {
          // One retry: on the shared 2-core machine the fake upstream has reset a connection under load.
          const twice = async (mode: 'off' | undefined) => {
            try {
              return await ask(proxy, question, mode);
            } catch (error) {
              console.error(`retrying ${repo.name} ${question.id}: ${(error as Error).message.slice(0, 120)}`);
              return await ask(proxy, question, mode);
            }
          };
          const off = await twice('off');
          const auto = await twice(undefined);
          const text = textOf(auto.received);
          const missed = question.facts.filter((f) => !text.includes(f));
          const offTokens = counter.countMessages(off.received as ChatMessage[]);
          const offText = textOf(off.received);
          const baseline = grepBaseline(repo.dir, question);
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
            grepFound: question.facts.filter((f) => baseline.includes(f) || offText.includes(f)).length,
            grepTokens: counter.count(baseline),
            offFound: question.facts.filter((f) => offText.includes(f)).length,
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
  const sum = (pick: (o: Outcome) => number) => list.reduce((s, o) => s + pick(o), 0);
  const needed = sum((o) => o.needed);
  const ratio = (n: number) => (needed === 0 ? 1 : n / needed).toFixed(2);
  const added = list.map((o) => o.added);
  const grepTokens = list.map((o) => o.grepTokens);
  return `| ${label} | ${list.length} | ${ratio(sum((o) => o.found))} (${sum((o) => o.found)}/${needed}) | ${sum((o) => o.leaked)} | ${Math.round(median(added))} | ${p90(added)} | ${ratio(sum((o) => o.grepFound))} / ${Math.round(median(grepTokens))} | ${ratio(sum((o) => o.offFound))} |`;
}

for (const set of Object.keys(sets)) {
  const inSet = outcomes.filter((o) => o.set === set);
  if (inSet.length === 0) continue;
  console.log(`\n## ${set}: ${[...new Set(inSet.map((o) => o.repo))].join(', ')} (model ${MODEL}, auto mode)\n`);
  console.log(
    '| kind | questions | recall | forbidden | median added tokens | p90 | grep baseline: recall / median tokens | off: recall |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
  const kinds = [...new Set(inSet.map((o) => o.kind))].sort();
  for (const kind of kinds) {
    const label = HELD_OUT_KINDS.has(kind)
      ? `${kind} (held-out kind)`
      : NEW_KINDS.has(kind)
        ? `${kind} (new kind, held back outside dev)`
        : kind;
    console.log(
      row(
        label,
        inSet.filter((o) => o.kind === kind),
      ),
    );
  }
  console.log(
    row(
      'kinds built on',
      inSet.filter((o) => !HELD_OUT_KINDS.has(o.kind) && !NEW_KINDS.has(o.kind)),
    ),
  );
  console.log(
    row(
      'held-out kinds',
      inSet.filter((o) => HELD_OUT_KINDS.has(o.kind)),
    ),
  );
  console.log(
    row(
      'new kinds',
      inSet.filter((o) => NEW_KINDS.has(o.kind)),
    ),
  );
  console.log(
    row(
      'all but the new kinds',
      inSet.filter((o) => !NEW_KINDS.has(o.kind)),
    ),
  );
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
    // The new kinds' held-back part: their misses outside the dev set are not printed.
    if (o.set === 'unseen' || (o.set !== 'dev' && NEW_KINDS.has(o.kind))) continue;
    for (const m of o.missed)
      console.log(`  ${o.set} ${o.repo} ${o.id} (${o.mode}): ${JSON.stringify(m).slice(0, 140)}`);
    if (o.leaked) console.log(`  ${o.set} ${o.repo} ${o.id}: ${o.leaked} forbidden string(s)`);
  }
}
