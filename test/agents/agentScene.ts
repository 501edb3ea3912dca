// The scene every agent suite shares: the real server in front of the fake
// Ollama (which plays a model that answers a plain turn, calls a tool when
// asked to read a file, and answers once the tool's result is in), a git
// repository with an instruction file and a planted secret, and a way to run
// an agent's own binary headless, with a fresh HOME, offline (any connection
// that is not to 127.0.0.1 goes to a proxy that refuses it), bounded in time.
// The agents' settings are the snippets of docs/clients.md, read from the page,
// with only the port changed: what the page shows is what is tested.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { assertAuditMatchesUpstream } from '../support/auditMatchesUpstream.ts';
import { type FakeOllama, type FakeReply, type ReceivedChat, startFakeOllama } from '../support/fakeOllama.ts';
import { makeRepo, type TempRepo } from '../support/gitRepo.ts';
import { type RunningProxy, startProxy } from '../support/proxy.ts';

export const MODEL = 'qwen2.5-coder:7b';
/** A GitHub token planted in the instruction file, the file the tool reads, and the prompts. */
export const SECRET = 'ghp_Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2';
export const RULE = 'Always run npm test before committing.';
export const BRANCH = 'feature/agent-check';
export const PLAIN_ANSWER = 'PLAIN-ANSWER-7341';
export const TOOL_DONE = 'TOOL-DONE-5518';
/** What the file the tool reads holds: its arrival in a tool message proves the round trip. */
export const MARKER = 'MARKER-LINE-2046';
export const NOTES = 'notes.txt';
/** The words that make the fake model call a tool. */
export const READ_REQUEST = 'Read notes.txt';

const AGENTS_DIR = path.dirname(fileURLToPath(import.meta.url));
const CLIENTS_PAGE = path.join(AGENTS_DIR, '..', '..', 'docs', 'clients.md');
/** Per run: agents start in a few seconds; a hang (a login prompt, a blocked network call) fails here. */
export const RUN_TIMEOUT_MS = 90_000;

export interface AgentRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The chats the fake model received during this run. */
  chats: ReceivedChat[];
}

export interface AgentScene {
  fake: FakeOllama;
  repo: TempRepo;
  proxy: RunningProxy;
  /** A fresh empty HOME for one run. */
  home(): string;
  /** `bin` from test/agents/node_modules/.bin, in the repository, with `env` over a bare environment. */
  run(bin: string, args: string[], options: { home: string; env?: Record<string, string> }): Promise<AgentRun>;
  /** The first fenced block after the line of docs/clients.md that starts with `label`, pointed at this server. */
  snippet(label: string): string;
  close(): Promise<void>;
}

/** The model, as scripted for agents: a tool call when asked to read the notes, text otherwise. */
export function agentModel(body: Record<string, unknown>): FakeReply {
  const messages = (body.messages ?? []) as { role: string; content: string }[];
  const tools = (body.tools ?? []) as { function: { name: string; parameters?: { properties?: object } } }[];
  if (messages.some((m) => m.role === 'tool' && m.content.includes(MARKER))) return { content: TOOL_DONE };
  const asked = messages.some((m) => m.role === 'user' && m.content.includes(READ_REQUEST));
  const call = asked ? readCall(tools) : undefined;
  if (call) return { toolCalls: [call] };
  return { content: PLAIN_ANSWER };
}

/** A call to the agent's own file-reading tool, else its shell tool with `cat`. */
function readCall(
  tools: { function: { name: string; parameters?: { properties?: object } } }[],
): { id: string; name: string; arguments: Record<string, unknown> } | undefined {
  const file = notesPath;
  for (const tool of tools) {
    const props = Object.keys(tool.function.parameters?.properties ?? {});
    const key = props.find((p) => /path/i.test(p));
    if (/^read(_?file)?$/i.test(tool.function.name) && key) {
      return { id: 'call_read_1', name: tool.function.name, arguments: { [key]: file } };
    }
  }
  for (const tool of tools) {
    const props = Object.keys(tool.function.parameters?.properties ?? {});
    const key = props.find((p) => p === 'cmd' || p === 'command');
    if (/exec|bash|shell/i.test(tool.function.name) && key) {
      return { id: 'call_read_1', name: tool.function.name, arguments: { [key]: `cat ${file}` } };
    }
  }
  return undefined;
}

/** The notes file of the scene's repository (one scene per test file). */
let notesPath = '';

export async function startAgentScene(): Promise<AgentScene> {
  const bin = path.join(AGENTS_DIR, 'node_modules', '.bin');
  assert.ok(existsSync(bin), `the agents are not installed: run \`npm ci --prefix test/agents\` (${bin})`);
  const fake = await startFakeOllama();
  fake.reply(MODEL, agentModel);
  const repo = makeRepo({
    files: {
      'AGENTS.md': `${RULE}\nThe deploy token is ${SECRET}\n`,
      [NOTES]: `${MARKER}\ntoken=${SECRET}\n`,
      'src/app.ts': 'export const answer = 42;\n',
    },
    checkout: BRANCH,
  });
  notesPath = path.join(repo.dir, NOTES);
  const proxy = await startProxy({ upstreamUrl: fake.url, workspace: repo.dir, settings: { mode: 'git-aware' } });
  const homes: string[] = [];
  const port = new URL(proxy.url).port;
  const page = readFileSync(CLIENTS_PAGE, 'utf8');

  return {
    fake,
    repo,
    proxy,
    home() {
      const home = mkdtempSync(path.join(tmpdir(), 'ctxproxy-agent-home-'));
      homes.push(home);
      return home;
    },
    async run(name, args, options) {
      const from = fake.chats.length;
      const result = await runBounded(path.join(bin, name), args, {
        cwd: repo.dir,
        env: offlineEnv(options.home, options.env ?? {}),
      });
      return { ...result, chats: fake.chats.slice(from) };
    },
    snippet(label) {
      const at = page.split('\n').findIndex((line) => line.startsWith(label));
      assert.ok(at >= 0, `docs/clients.md has a line starting with ${label}`);
      const rest = page.split('\n').slice(at + 1);
      const open = rest.findIndex((line) => line.startsWith('```'));
      const close = rest.findIndex((line, i) => i > open && line.startsWith('```'));
      assert.ok(open >= 0 && close > open, `a fenced block follows ${label} in docs/clients.md`);
      return `${rest
        .slice(open + 1, close)
        .join('\n')
        .replaceAll('127.0.0.1:4141', `127.0.0.1:${port}`)}\n`;
    },
    async close() {
      await assertAuditMatchesUpstream(proxy, fake);
      await proxy.close();
      await fake.close();
      repo.cleanup();
      for (const home of homes) rmSync(home, { recursive: true, force: true });
    },
  };
}

/** Writes `text` to `home/relative`, making its folders. */
export function writeConfig(home: string, relative: string, text: string): string {
  const file = path.join(home, relative);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

/**
 * Only what a shell gives a program, plus a proxy on a closed port for everything not on
 * loopback: a run that tries to reach the internet (telemetry, model catalogues, updates) fails
 * fast instead of depending on the network.
 */
function offlineEnv(home: string, extra: Record<string, string>): NodeJS.ProcessEnv {
  const closed = 'http://127.0.0.1:9';
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    USER: 'agent',
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    NO_COLOR: '1',
    CI: '1',
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    XDG_STATE_HOME: path.join(home, '.local', 'state'),
    TMPDIR: tmpdir(),
    HTTP_PROXY: closed,
    HTTPS_PROXY: closed,
    http_proxy: closed,
    https_proxy: closed,
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'agent',
    GIT_AUTHOR_EMAIL: 'agent@example.invalid',
    GIT_COMMITTER_NAME: 'agent',
    GIT_COMMITTER_EMAIL: 'agent@example.invalid',
    ...extra,
  };
}

function runBounded(
  file: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    // Its own process group, so a timeout ends the agent and whatever it started.
    const child = spawn(file, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      reject(
        new Error(
          `${path.basename(file)} ${args.join(' ')} did not finish in ${RUN_TIMEOUT_MS} ms\n${stdout}\n${stderr}`,
        ),
      );
    }, RUN_TIMEOUT_MS);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** What every agent turn must show: the secret never reached the model, and was masked where it was. */
export function assertMasked(run: AgentRun): void {
  const all = JSON.stringify(run.chats.map((chat) => chat.body));
  assert.ok(!all.includes(SECRET), 'the planted secret never reached the model');
  assert.match(all, /\[REDACTED:[a-z0-9-]+\]/, 'the secret arrived masked');
}

/** The repository's context reached the model: a fenced block with the instruction file and the branch. */
export function assertContext(run: AgentRun): void {
  const withContext = run.chats.filter((chat) => JSON.stringify(chat.body).includes('<context source='));
  assert.ok(withContext.length > 0, `a chat of this run carried the context (${run.chats.length} chats)`);
  const all = JSON.stringify(withContext.map((chat) => chat.body));
  assert.ok(all.includes(RULE), 'the instruction file reached the model');
  assert.ok(all.includes(BRANCH), 'the git branch reached the model');
}

export function assertNoContext(run: AgentRun): void {
  assert.ok(run.chats.length > 0, 'the model was asked');
  for (const chat of run.chats) {
    const body = JSON.stringify(chat.body);
    // Only ctxproxy's fences: agents put facts of their own (git status, AGENTS.md) in their prompts.
    assert.doesNotMatch(body, /<context(-update)? source=/, 'no context block in mode off');
    assert.equal(chat.body.model, MODEL, 'the +off suffix is stripped before forwarding');
  }
}

/** The tool's result came back to the model, and the agent printed the model's answer to it. */
export function assertToolRoundTrip(run: AgentRun): void {
  const toolMessages = run.chats.flatMap((chat) =>
    ((chat.body.messages ?? []) as { role: string; content: string }[]).filter((m) => m.role === 'tool'),
  );
  assert.ok(
    toolMessages.some((m) => m.content.includes(MARKER)),
    `the tool's result reached the model (${toolMessages.length} tool messages)`,
  );
  assert.ok(
    run.stdout.includes(TOOL_DONE),
    `the agent printed the answer after the tool\n${run.stdout}\n${run.stderr}`,
  );
}

export function assertAnswered(run: AgentRun, answer: string): void {
  assert.equal(run.code, 0, `exit code 0\n${run.stdout}\n${run.stderr}`);
  assert.ok(run.stdout.includes(answer), `the agent printed the model's answer\n${run.stdout}\n${run.stderr}`);
}

/**
 * The three turns every agent must pass, for an agent with nothing else to check: a plain turn answered with the
 * context and the planted secret masked, a tool round trip through the agent's `tool`, and a `+off` turn with no
 * context. `run` runs the agent once in the scene, with the model name to ask for.
 */
export function describeAgent(
  name: string,
  tool: string,
  run: (scene: AgentScene, prompt: string, model: string) => Promise<AgentRun>,
): void {
  let scene: AgentScene;
  before(async () => {
    scene = await startAgentScene();
  });
  after(() => scene.close());

  describe(`${name} through ctxproxy`, () => {
    test('a plain turn: answered, with the context and the secret masked', async () => {
      const turn = await run(scene, `Which branch am I on? My token is ${SECRET}`, MODEL);
      assertAnswered(turn, PLAIN_ANSWER);
      assertContext(turn);
      assertMasked(turn);
    });

    test(`a tool-call round trip: the model calls ${tool}, ${name} runs it, the result comes back`, async () => {
      const turn = await run(scene, `${READ_REQUEST} and tell me what it says.`, MODEL);
      assertAnswered(turn, TOOL_DONE);
      assertToolRoundTrip(turn);
      assertMasked(turn);
    });

    test('a +off turn: answered, no context, the model name without its suffix', async () => {
      const turn = await run(scene, `Say hello. ${SECRET}`, `${MODEL}+off`);
      assertAnswered(turn, PLAIN_ANSWER);
      assertNoContext(turn);
      assertMasked(turn);
    });
  });
}
