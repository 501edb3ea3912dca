// Golden files: the exact messages each mode forwards for one fixture repository.
// A change to what the model sees must show up as a reviewed diff of
// test/fixtures/golden/*.txt. Regenerate with UPDATE_GOLDEN=1.

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createTokenCounter } from '../../src/budget/index.ts';
import { loadPlans } from '../../src/config/plans.ts';
import { ConversationCache } from '../../src/pipeline/conversations.ts';
import { defaultStages, nodeWorkspaceFs } from '../../src/pipeline/defaultDeps.ts';
import { type PipelineDeps, prepare } from '../../src/pipeline/runPipeline.ts';
import { createRedactor } from '../../src/redact/createRedactor.ts';
import type { ChatRequest } from '../../src/shared/chatRequest.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import type { Upstream } from '../../src/shared/ports.ts';
import { MODE_NAMES } from '../../src/shared/types.ts';
import { createSourceSet, defaultSourceDeps, looksLikeStackTrace } from '../../src/sources/index.ts';
import { makeDir, makeRepo, type TempDir, type TempRepo } from '../support/gitRepo.ts';
import { until } from '../support/poll.ts';

const GOLDEN = fileURLToPath(new URL('../fixtures/golden/', import.meta.url));
const NOW = Date.parse('2026-03-04T09:30:00Z');

let repo: TempRepo;
let home: TempDir;
let deps: PipelineDeps;
let close: () => void;

/** Prepare-only upstream: the golden path never forwards, it only needs the window. */
const windowOnly: Upstream = {
  kind: 'ollama',
  baseUrl: 'http://127.0.0.1:11434',
  chat: () => Promise.reject(new Error('the golden test never forwards')),
  listModels: async () => [],
  contextWindow: async () => 32768,
};

before(async () => {
  home = makeDir({});
  repo = makeRepo({
    files: {
      'CLAUDE.md': '# Notes\nRun `npm test` before pushing.\n@docs/style.md\n',
      'docs/style.md': 'Two-space indentation.\n',
      'AGENTS.md': 'Agents: keep changes small.\n',
      'src/parse.js':
        'export function parse(text) {\n  const data = JSON.parse(text);\n  if (!data.version) {\n    throw new Error("missing version");\n  }\n  return data;\n}\n',
      'src/index.js': "import { parse } from './parse.js';\nconsole.log(parse('{}'));\n",
      'package.json': '{ "name": "golden", "scripts": { "test": "node --test" } }\n',
    },
    commits: [
      { message: 'Add the parser', files: { 'src/util.js': 'export const one = 1;\n' }, date: '2026-02-01T12:00:00Z' },
    ],
    checkout: 'fix/version-check',
    staged: { 'src/util.js': 'export const one = 1;\nexport const two = 2;\n' },
    unstaged: { 'src/parse.js': 'export function parse(text) {\n  return JSON.parse(text);\n}\n' },
  });
  const redactor = await createRedactor();
  const sourceSet = createSourceSet(
    defaultSourceDeps({
      homeDir: home.dir,
      platform: 'Linux 6.1 (linux/x64)',
      shell: '/bin/bash',
      timeZone: 'UTC',
      watchWorkTree: false,
      isNeverRead: (file) => redactor.isNeverRead(file),
    }),
    // The golden holds the repository map: wait long for the index (and ask again: the mode's test).
    { symbols: { waitMs: 30_000 } },
  );
  close = sourceSet.close;
  deps = {
    stages: defaultStages,
    upstream: windowOnly,
    store: {
      save() {},
      saveInFlight: async () => ({ written: true }),
      health: () => ({ writable: true, queued: 0, dropped: 0 }),
      get: () => undefined,
      list: () => [],
      flush: async () => {},
      close: async () => {},
    },
    sources: sourceSet.sources,
    redactor,
    plans: loadPlans(),
    looksLikeStackTrace,
    conversations: new ConversationCache(),
    tokenCounter: createTokenCounter(),
    settings: {
      workspace: repo.dir,
      mode: 'auto',
      redactMessages: true,
      allowedRoots: [],
      historyOverflow: 'drop-oldest',
      safetyRatio: 0.75,
      models: {},
    },
    fs: nodeWorkspaceFs,
    logger: silentLogger,
    now: () => NOW,
    newId: () => 'golden',
  };
});
after(() => {
  close();
  repo.cleanup();
  home.cleanup();
});

const questions: Record<string, string> = {
  debug: `Why does this fail?\nError: missing version\n    at parse (${'WORKSPACE'}/src/parse.js:4:11)\n    at main (${'WORKSPACE'}/src/index.js:2:13)`,
};

/** The messages `mode` forwards for the fixture's question, as the golden file spells them. */
async function rendered(mode: (typeof MODE_NAMES)[number]): Promise<string> {
  const question = (questions[mode] ?? 'What should I look at in @src/index.js?').replaceAll('WORKSPACE', repo.dir);
  const { assembled } = await prepare(
    {
      request: { model: 'qwen2.5-coder:7b', messages: [{ role: 'user', content: question }] } as ChatRequest,
      headers: { mode },
      requestId: 'golden',
      signal: new AbortController().signal,
    },
    // A fresh conversation cache per mode: each golden is a first turn.
    { ...deps, conversations: new ConversationCache() },
  );
  assert.equal(assembled.modeUsed, mode);
  return `${assembled.request.messages
    .map(
      (message) =>
        `=== ${message.role}\n${typeof message.content === 'string' ? message.content : JSON.stringify(message.content)}`,
    )
    .join('\n')
    .replaceAll(repo.dir, '<WORKSPACE>')
    .replaceAll(path.basename(repo.dir), '<REPO>')}\n`;
}

const MAP = '<context source="symbols.map"';

for (const mode of MODE_NAMES) {
  test(`the ${mode} mode forwards exactly its golden messages`, async () => {
    const file = `${GOLDEN}${mode}.txt`;
    const golden = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
    let text = await rendered(mode);
    // A golden holding the repository map is compared with a map of the whole fixture. A request waits for
    // the symbol index and its ranking only so long (waitMs) before it goes without; at load 40 a parse
    // worker's and a pool worker's first start can take longer. So ask again until the map is there: what
    // this test checks is the messages, not how soon the map is ready (test/sources/symbols does that).
    if (golden?.includes(MAP) && process.env.UPDATE_GOLDEN !== '1') {
      await until(
        async () => {
          if (!text.includes(MAP)) text = await rendered(mode);
          return text.includes(MAP);
        },
        `the ${mode} mode's repository map`,
        { timeoutMs: 600_000, everyMs: 500 },
      );
    }
    if (process.env.UPDATE_GOLDEN === '1' || golden === undefined) {
      assert.ok(process.env.UPDATE_GOLDEN === '1', `no golden file ${file}; run with UPDATE_GOLDEN=1 to create it`);
      mkdirSync(GOLDEN, { recursive: true });
      writeFileSync(file, text);
    }
    assert.equal(text, readFileSync(file, 'utf8'));
  });
}
