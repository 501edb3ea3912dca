// Context quality: does the request the model receives carry what an answer
// needs? Four generated repositories (TypeScript, Python, Go, JS + Rust), 60
// questions, asked through the real server (real socket, real `openai`
// client) with the fake Ollama recording what it received, in each mode; scored
// by needed facts found verbatim, forbidden strings leaked and tokens added,
// against `off` and two whole-repository baselines measured in the same run.
// See README.md. `--seed N` reproduces a run; `--misses` lists what was missed.

import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { countedTexts, createTokenCounter } from '../../src/budget/index.ts';
import type { ChatMessage } from '../../src/shared/types.ts';
import { chatTurn, type WireMessage } from '../../test/support/chatTurns.ts';
import { startFakeOllama } from '../../test/support/fakeOllama.ts';
import { startProxy } from '../../test/support/proxy.ts';
import { packerText, trackedText } from './baselines.ts';
import { PROFILES } from './profiles.ts';
import { seededRandom } from './random.ts';
import { KINDS, makeScenario, type Question, type Scenario } from './scenario.ts';
import { inScope, kindRows, MODES, median, modeRows, type Outcome, table, totals, verdict } from './score.ts';

/** `--model llama3.2:3b` asks the fake's 8,192-token model instead of the 32,768-token one: trimming and downgrades. */
const MODELS: Record<string, number> = { 'qwen2.5-coder:7b': 32_768, 'llama3.2:3b': 8_192 };
/** Time between an edit and the next turn: a person reads the reply and types; the work-tree watcher sees the edit. */
const EDIT_SETTLE_MS = 300;

const args = process.argv.slice(2);
const flag = (name: string) => {
  const at = args.indexOf(name);
  return at === -1 ? undefined : (args[at + 1] ?? '');
};
const seed = Number(flag('--seed') ?? Math.floor(Math.random() * 2 ** 31));
if (!Number.isInteger(seed)) throw new Error('--seed takes an integer');
const showMisses = args.includes('--misses');
const MODEL = flag('--model') ?? 'qwen2.5-coder:7b';
const window = MODELS[MODEL];
if (window === undefined) throw new Error(`--model takes one of ${Object.keys(MODELS).join(', ')}`);
/** `--dump DIR`: every forwarded request as a text file, `MODE/ID.txt`, to see why a fact was missed. */
const dumpDir = flag('--dump');
console.log(`seed ${seed} (reproduce: node --import tsx bench/quality/run.ts --seed ${seed})`);

const started = performance.now();
const counter = createTokenCounter();
const root = path.join(tmpdir(), `ctxproxy-bench-quality-${seed}`);
const random = seededRandom(seed);
const scenarios: Scenario[] = PROFILES.map((profile) => makeScenario(random, profile(random, random.word()), root));
const fake = await startFakeOllama();
const generatedMs = performance.now() - started;
let baselineMs = 0;

const textOf = (messages: readonly WireMessage[]) => messages.map((m) => m.content).join('\n');
const outcomes: Outcome[] = [];
const offTokens = new Map<string, number>();
const requestMs = new Map<string, number[]>();
/** Requests whose forwarded messages count more than the budget's usable share: the prompt must fit the window. */
const overBudget: { mode: string; id: string; tokens: number; usable: number }[] = [];
/** Its own cache, so the exact counts it keeps do not change the sampled figures of `counter` above. */
const exactCounter = createTokenCounter();
interface BaselineScore {
  found: number;
  needed: number;
  violations: number;
  tokens: number[];
}
const baselines: Record<'off' | 'tracked' | 'packer', BaselineScore> = {
  off: { found: 0, needed: 0, violations: 0, tokens: [] },
  tracked: { found: 0, needed: 0, violations: 0, tokens: [] },
  packer: { found: 0, needed: 0, violations: 0, tokens: [] },
};

function scoreBaseline(
  name: keyof typeof baselines,
  text: string,
  question: Question,
  scenario: Scenario,
  tokens: number,
) {
  const b = baselines[name];
  const haystack = `${text}\n${question.turns.join('\n')}`;
  b.needed += question.facts.length;
  b.found += question.facts.filter((f) => haystack.includes(f)).length;
  b.violations += scenario.forbidden.filter((f) => text.includes(f.text)).length;
  b.tokens.push(tokens);
}

type Pack = { text: string; tokens: number };
const packNow = (dir: string) => {
  const [tracked, packer] = [trackedText(dir), packerText(dir)];
  return {
    tracked: { text: tracked, tokens: counter.count(tracked) } as Pack,
    packer: { text: packer, tokens: counter.count(packer) } as Pack,
  };
};

for (const scenario of scenarios) {
  let packs: ReturnType<typeof packNow> | undefined;
  const proxy = await startProxy({ upstreamUrl: fake.url, workspace: scenario.dir, settings: { mode: 'auto' } });
  const client = proxy.client();
  try {
    for (const mode of ['off', ...MODES] as const) {
      for (const question of scenario.questions) {
        let history: ChatMessage[] = [];
        let received: WireMessage[] = [];
        let modeUsed = '';
        let note = '';
        for (const [i, turn] of question.turns.entries()) {
          const last = i === question.turns.length - 1;
          if (last && question.beforeLast) {
            question.beforeLast();
            await sleep(EDIT_SETTLE_MS);
          }
          history = [...history, { role: 'user', content: turn }];
          const t0 = performance.now();
          const result = await chatTurn(proxy, client, fake, history, {
            model: MODEL,
            mode: mode === 'auto' ? undefined : mode,
          });
          requestMs.set(mode, [...(requestMs.get(mode) ?? []), performance.now() - t0]);
          received = result.received;
          modeUsed = result.headers.get('x-ctx-mode') ?? '?';
          const b = result.snapshot.budget;
          const sentMessages = result.received as ChatMessage[];
          const sent = (await exactCounter.prepare(countedTexts(sentMessages))).countMessages(sentMessages);
          if (b && sent > b.usable) overBudget.push({ mode, id: question.id, tokens: sent, usable: b.usable });
          note = `mode ${modeUsed}; warning ${result.headers.get('x-ctx-warning') ?? '-'}; window ${b?.window} usable ${b?.usable} context ${b?.contextTokens} num_ctx ${b?.numCtx}\nper entry (used/budget): ${(b?.perEntry ?? []).map((e) => `${e.items} ${e.used}/${e.budget}`).join(', ')}`;
          history = [...history, { role: 'assistant', content: result.reply }];
        }
        const text = textOf(received);
        if (dumpDir) {
          const file = path.join(dumpDir, mode, `${question.id.replace(/[/#]/g, '_')}.txt`);
          mkdirSync(path.dirname(file), { recursive: true });
          writeFileSync(file, `${note}\n${received.map((m) => `=== ${m.role}\n${m.content}`).join('\n')}`);
        }
        const tokens = counter.countMessages(received as ChatMessage[]);
        if (mode === 'off') {
          offTokens.set(question.id, tokens);
          scoreBaseline('off', text, question, scenario, 0);
          const b0 = performance.now();
          // The work tree changes only inside an edited question, so its baselines are packed anew.
          if (!packs || question.beforeLast) packs = packNow(scenario.dir);
          scoreBaseline('tracked', packs.tracked.text, question, scenario, packs.tracked.tokens);
          scoreBaseline('packer', packs.packer.text, question, scenario, packs.packer.tokens);
          if (question.beforeLast) packs = undefined;
          baselineMs += performance.now() - b0;
        } else {
          outcomes.push({
            id: question.id,
            kind: question.kind,
            mode,
            inScope: inScope(mode, question.minMode),
            modeUsed,
            needed: question.facts.length,
            missed: question.facts.filter((f) => !text.includes(f)),
            violations: scenario.forbidden.filter((f) => text.includes(f.text)).map((f) => f.label),
            addedTokens: tokens - (offTokens.get(question.id) ?? 0),
          });
        }
        if (question.restore) {
          question.restore();
          await sleep(EDIT_SETTLE_MS);
        }
      }
    }
  } finally {
    await proxy.close();
  }
}
await fake.close();
rmSync(root, { recursive: true, force: true });

const questionCount = scenarios.reduce((n, s) => n + s.questions.length, 0);
const factCount = scenarios.reduce((n, s) => n + s.questions.reduce((m, q) => m + q.facts.length, 0), 0);
console.log(
  `${scenarios.length} repositories (${scenarios.map((s) => s.name).join(', ')}), ${questionCount} questions, ${factCount} needed facts, ` +
    `${outcomes.length} scored requests; ${((performance.now() - started) / 1000).toFixed(1)} s in all (repositories ${(generatedMs / 1000).toFixed(1)} s, baselines ${(baselineMs / 1000).toFixed(1)} s); model ${MODEL}, window ${window.toLocaleString('en-US')}`,
);
console.log(
  `request time, median per mode: ${['off', ...MODES].map((m) => `${m} ${median(requestMs.get(m) ?? []).toFixed(0)} ms`).join(', ')}`,
);
console.log(`\nBy mode (recall in scope: the questions a mode is meant to answer; tokens added over \`off\`):\n`);
console.log(table(modeRows(outcomes)));
console.log(`\nBy kind (recall / median added tokens; * = no question of this kind is in the mode's scope):\n`);
console.log(table(kindRows(outcomes, KINDS)));

const headline = totals(outcomes.filter((o) => o.inScope));
const headlineAll = { ...headline, violations: totals(outcomes).violations };
console.log(`\nHeadline (every in-scope question and mode): ${verdict(headlineAll)}`);

console.log('\nBaselines, same questions and repositories, same run:\n');
const baseRows = [['baseline', 'recall', 'violations', 'median tokens', 'tokens / ours (median)', 'recall ours / it']];
for (const [name, label] of [
  ['off', 'off (the question alone)'],
  ['tracked', 'whole repository: tracked files'],
  ['packer', 'packer: non-ignored files + diff + log'],
] as const) {
  const b = baselines[name];
  const recall = b.found / b.needed;
  const tokens = median(b.tokens);
  baseRows.push([
    label,
    `${recall.toFixed(2)} (${b.found}/${b.needed})`,
    String(b.violations),
    Math.round(tokens).toLocaleString('en-US'),
    name === 'off' ? '-' : `${(tokens / headline.medianTokens).toFixed(1)}x`,
    recall === 0 ? '-' : `${(headline.recall / recall).toFixed(2)}x`,
  ]);
}
console.log(table(baseRows));

const worst = overBudget.reduce((w, o) => Math.max(w, o.tokens / o.usable), 0);
console.log(
  `\nRequests over the usable budget (forwarded messages counted > usable): ${overBudget.length}${
    overBudget.length > 0
      ? `, worst ${worst.toFixed(2)}x (${overBudget
          .map((o) => `${o.mode} ${o.id} ${o.tokens}/${o.usable}`)
          .slice(0, 5)
          .join(', ')}${overBudget.length > 5 ? ', ...' : ''})`
      : ''
  }`,
);

const violations = outcomes.filter((o) => o.violations.length > 0);
if (violations.length > 0) {
  console.log('\nViolations:');
  for (const o of violations) console.log(`  ${o.mode.padEnd(9)} ${o.id}: ${o.violations.join(', ')}`);
}
if (showMisses) {
  console.log('\nMissed facts (in scope):');
  for (const o of outcomes.filter((x) => x.inScope && x.missed.length > 0)) {
    console.log(
      `  ${o.mode.padEnd(9)} ${o.id} (used ${o.modeUsed}): ${o.missed.map((m) => JSON.stringify(m)).join(' | ')}`,
    );
  }
}
