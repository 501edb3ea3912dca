// Every client snippet of the README and docs/clients.md, run as written (only
// the port changed) against the real server in front of the fake Ollama, on a
// repository with its own branch and an edited file: each must print the
// model's answer, and the answer is one the model could only give from the
// context ctxproxy added (the fake answers with the branch it finds in what it
// received). curl runs in a shell; the JavaScript runs as a module from the
// checkout, where `openai`, the AI SDK and LangChain are installed.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { makeRepo, type TempRepo } from '../support/gitRepo.ts';
import { type RunningProxy, startProxy } from '../support/proxy.ts';
import { fencedBlockAfter, fencedBlocks, ROOT, readDoc } from './markdown.ts';

const MODEL = 'qwen2.5-coder:7b';
const BRANCH = 'feature/invoice-rounding';
const CHANGED = 'billing/rates.py';
const NO_CONTEXT = 'I cannot see your repository.';
/** What the fake model answers when the repository's context reached it. */
const ANSWER = `You are on ${BRANCH} and you changed ${CHANGED}.`;

/** A model that answers from what it was sent: the branch and the changed file, when they are there. */
function modelReadingContext(body: Record<string, unknown>) {
  const sent = JSON.stringify(body.messages ?? []);
  return { content: sent.includes(BRANCH) && sent.includes(CHANGED) ? ANSWER : NO_CONTEXT };
}

/** Runs `program` with `input` on standard input from the checkout; bounded in time. */
function run(program: string, args: string[], input: string): Promise<{ code: number | null; out: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_PROXY: '127.0.0.1', no_proxy: '127.0.0.1' };
  for (const key of ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy', 'ALL_PROXY', 'all_proxy'])
    delete env[key];
  return new Promise((resolve) => {
    const child = spawn(program, args, { cwd: ROOT, env, timeout: 60_000 });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    child.on('close', (code) => resolve({ code, out }));
    child.stdin.end(input);
  });
}

describe('the snippets of the README and docs/clients.md', () => {
  let fake: FakeOllama;
  let repo: TempRepo;
  let proxy: RunningProxy;
  let port = '';

  before(async () => {
    fake = await startFakeOllama();
    fake.reply(MODEL, modelReadingContext);
    repo = makeRepo({
      files: { [CHANGED]: 'def rate(amount):\n    return amount * 0.2\n', 'README.md': '# Billing\n' },
      checkout: BRANCH,
      unstaged: { [CHANGED]: 'def rate(amount):\n    return round(amount * 0.2, 2)\n' },
    });
    proxy = await startProxy({ upstreamUrl: fake.url, workspace: repo.dir, settings: { mode: 'auto' } });
    port = new URL(proxy.url).port;
  });
  after(async () => {
    await proxy.close();
    await fake.close();
    repo.cleanup();
  });

  const here = (snippet: string) => snippet.replaceAll('127.0.0.1:4141', `127.0.0.1:${port}`);

  async function printsTheAnswer(snippet: string, language: 'js' | 'sh') {
    const from = fake.chats.length;
    const { code, out } =
      language === 'js'
        ? await run(process.execPath, ['--input-type=module'], here(snippet))
        : await run('bash', ['-e'], here(snippet));
    assert.equal(code, 0, out);
    assert.ok(fake.chats.length > from, 'the snippet reached the model');
    // curl with "stream": true prints SSE frames: the answer arrives in pieces, so compare words.
    const printed = language === 'sh' ? streamedText(out) : out;
    assert.ok(printed.includes(ANSWER), `it prints the answer made from the repository's context:\n${out}`);
  }

  it("the README's curl", async () => {
    const block = fencedBlocks(readDoc('README.md')).find((b) => b.lang === 'sh' && b.body.startsWith('curl'));
    assert.ok(block, 'the README has a curl block');
    await printsTheAnswer(block.body, 'sh');
  });

  it("the README's openai (JS)", async () => {
    const block = fencedBlocks(readDoc('README.md')).find((b) => b.lang === 'js');
    assert.ok(block, 'the README has a JavaScript block');
    await printsTheAnswer(block.body, 'js');
  });

  const page = readDoc('docs/clients.md');
  const snippets: [string, 'js' | 'sh'][] = [
    ['**openai (Node)**', 'js'],
    ['**curl**', 'sh'],
    ['**Vercel AI SDK**, default provider', 'js'],
    ['**Vercel AI SDK**, `openai-compatible` provider', 'js'],
    ['**LangChain**', 'js'],
  ];
  for (const [label, language] of snippets) {
    it(`docs/clients.md: ${label}`, async () => {
      await printsTheAnswer(fencedBlockAfter(page, label, 'docs/clients.md'), language);
    });
  }
});

/** The text of an answer, whether printed as JSON or as SSE chunks of `delta.content`. */
function streamedText(out: string): string {
  if (!out.includes('data: ')) return out;
  let text = '';
  for (const line of out.split('\n')) {
    if (!line.startsWith('data: {')) continue;
    const chunk = JSON.parse(line.slice('data: '.length)) as { choices?: { delta?: { content?: string } }[] };
    text += chunk.choices?.[0]?.delta?.content ?? '';
  }
  return text;
}
