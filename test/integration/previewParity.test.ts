// `ctxproxy preview` and `ctxproxy serve` forward the same context for the same
// question (issue 23): the real command for both, the fake Ollama as the model,
// on a repository large enough that its retrieval index builds in the
// background (over the 2,000 files a request waits for). Compared twice: cold,
// before any index exists (both answer through git grep and say so), and once
// the server's index is ready (both answer from the stored index).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import { runCommand, type ServingProcess, startServe } from '../support/ctxproxyProcess.ts';
import { type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { makeRepo, type TempRepo } from '../support/gitRepo.ts';
import { until } from '../support/poll.ts';

const MODEL = 'qwen2.5-coder:7b';
const FILES = 2_400;

interface Preview {
  modeUsed: string;
  numCtx?: number;
  messages: { role: string; content: unknown }[];
  sources: { source: string; skipped: { path: string; reason: string }[] }[];
}

function repository(): Record<string, string> {
  const files: Record<string, string> = {
    'README.md': '# Billing\n\nRun the tests with `npm test`.\n',
    'src/billing/rates.ts': [
      'export const RATES: Record<string, number> = { eu: 0.19, us: 0.07 };',
      '',
      'export function computeRate(amount: number, region: string): number {',
      '  const rate = RATES[region];',
      "  if (rate === undefined) throw new Error('unknown billing region');",
      '  return amount * rate;',
      '}',
      '',
    ].join('\n'),
    'src/billing/invoice.ts': [
      "import { computeRate } from './rates';",
      '',
      'export function invoiceTotal(lines: { amount: number; region: string }[]): number {',
      '  return lines.reduce((sum, line) => sum + computeRate(line.amount, line.region), 0);',
      '}',
      '',
    ].join('\n'),
    'src/shipping/parcel.ts': 'export function parcelWeight(grams: number): number {\n  return grams / 1000;\n}\n',
  };
  for (let k = 0; k < FILES; k++) {
    files[`src/generated/area${k % 40}/module${k}.ts`] =
      `export function helper${k}(value: number): number {\n  return value + ${k};\n}\n`;
  }
  return files;
}

/** What a report says of indexes that were not ready (the symbol index building, retrieval's catching up). */
const indexNotes = (report: Preview) =>
  report.sources.flatMap((source) =>
    source.skipped
      .filter((entry) => entry.path === '(retrieval index)' || entry.path === '(symbol index)')
      .map((entry) => `${entry.path}: ${entry.reason}`),
  );

let fake: FakeOllama;
let repo: TempRepo;
let server: ServingProcess | undefined;
before(async () => {
  fake = await startFakeOllama();
  repo = makeRepo({ files: repository() });
});
after(async () => {
  if (server) {
    server.signal('SIGTERM');
    await server.exited;
  }
  await fake.close();
  repo.cleanup();
});

async function preview(question: string): Promise<Preview> {
  const result = await runCommand(['preview', '--json', '--model', MODEL, '--upstream', fake.url, question], {
    cwd: repo.dir,
  });
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout) as Preview;
}

/** What the server forwarded to the model for `question`, as the model received it, and its source report. */
async function served(question: string): Promise<{ messages: { role: string; content: unknown }[]; notes: string[] }> {
  assert.ok(server);
  const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'x', maxRetries: 0 });
  const before = fake.chats.length;
  const { response } = await client.chat.completions
    .create({ model: MODEL, messages: [{ role: 'user', content: question }] })
    .withResponse();
  const chat = fake.chats[before];
  assert.ok(chat, 'the server forwarded the question');
  const id = response.headers.get('x-ctx-snapshot-id');
  const snapshot = (await (await fetch(`${server.url}/api/audit/snapshots/${id}`)).json()) as Preview;
  return {
    messages: (chat.body.messages as { role: string; content: unknown }[]).map(({ role, content }) => ({
      role,
      content,
    })),
    notes: indexNotes(snapshot),
  };
}

/** The environment item's clock (`Date:`, `Time:`) is the moment's: the two runs are seconds apart. */
const clockFree = (messages: { role: string; content: unknown }[]) =>
  messages.map(({ role, content }) => ({
    role,
    content: typeof content === 'string' ? content.replace(/^(Date|Time): .*$/gm, '$1: (now)') : content,
  }));

const sameMessages = (forwarded: { role: string; content: unknown }[], previewed: Preview) =>
  assert.deepEqual(clockFree(forwarded), clockFree(previewed.messages));

test('preview and the server forward the same context for the same question, with no index yet and with the stored one', async () => {
  // No index yet: the preview builds both (symbols, retrieval) before it answers, as a warm server has.
  const first = 'Who calls computeRate, and what does it throw for an unknown region?';
  const previewedFirst = await preview(first);
  assert.deepEqual(indexNotes(previewedFirst), [], 'the preview answered with both indexes ready');
  assert.match(JSON.stringify(previewedFirst.messages), /invoiceTotal/, 'the caller was found');

  // A server on the stored index: once its answers say nothing is building, it forwards what the preview did.
  server = await startServe(['--upstream', fake.url], repo.dir);
  let probe = 0;
  await until(async () => (await served(`Where is helper${probe++} defined?`)).notes.length === 0, 'a warm server', {
    timeoutMs: 120_000,
    everyMs: 200,
  });
  sameMessages((await served(first)).messages, previewedFirst);

  // With the server running (its index stored and current), a preview reads the stored index.
  const second = 'Where is computeRate used, and where is parcelWeight defined?';
  const previewedSecond = await preview(second);
  assert.deepEqual(indexNotes(previewedSecond), []);
  assert.match(JSON.stringify(previewedSecond.messages), /parcelWeight\(grams/);
  sameMessages((await served(second)).messages, previewedSecond);
});
