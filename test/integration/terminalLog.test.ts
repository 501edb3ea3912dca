// The real `ctxproxy serve` on a real terminal: a pseudo-terminal from util-linux's
// `script`, the openai client asking through it. On the terminal the log is one
// human line per request and one line per problem with the proxy's hint intact,
// no JSON, no stack; through a pipe (a supervisor, a file) it stays JSON lines.
// Either form can be asked for (--log-format, CTXPROXY_LOG_FORMAT).

import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { BIN, cleanEnv, startServe } from '../support/ctxproxyProcess.ts';
import { type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { until } from '../support/poll.ts';

const HINT = 'Start Ollama with `ollama serve`, or point --upstream at where it runs.';

interface Terminal {
  url: string;
  /** Everything the terminal showed so far, carriage returns removed. */
  screen(): string;
  stop(): Promise<void>;
}

const quote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`;

/** `ctxproxy serve` with its standard output and error on a pseudo-terminal. */
async function serveOnTerminal(args: string[], cwd: string, env: Record<string, string> = {}): Promise<Terminal> {
  const command = [process.execPath, BIN, 'serve', '--port', '0', ...args].map(quote).join(' ');
  // Standard input stays open: `script` ends the session when its input ends.
  const child: ChildProcess = spawn('script', ['-qfc', command, '/dev/null'], {
    cwd,
    env: cleanEnv(env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let screen = '';
  child.stdout?.on('data', (data) => {
    screen += String(data).replace(/\r/g, '');
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await until(() => /ctxproxy listening on http:\/\/127\.0\.0\.1:\d+\/v1/.test(screen), 'the ready line', {
    timeoutMs: 20_000,
  });
  const url = /ctxproxy listening on (http:\/\/127\.0\.0\.1:\d+)\/v1/.exec(screen)?.[1] as string;
  return {
    url,
    screen: () => screen,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** A port nothing listens on: an upstream that is down. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const client = (url: string) => new OpenAI({ baseURL: `${url}/v1`, apiKey: 'unused', maxRetries: 0 });
const ask = (url: string) =>
  client(url).chat.completions.create({
    model: 'qwen2.5-coder:7b',
    messages: [{ role: 'user', content: 'a private question about the parser' }],
  });

let fake: FakeOllama;
let workspace: string;
let down: string;

before(async () => {
  fake = await startFakeOllama();
  workspace = mkdtempSync(path.join(tmpdir(), 'ctxproxy-terminal-'));
  down = `http://127.0.0.1:${await closedPort()}`;
});
after(async () => {
  await fake.close();
  rmSync(workspace, { recursive: true, force: true });
});

describe('on a terminal', () => {
  test('a request is one line with status, route, mode, tokens and time; the prompt is not in it', async () => {
    const terminal = await serveOnTerminal(['--upstream', fake.url, '--mode', 'quick'], workspace);
    try {
      await ask(terminal.url);
      await until(() => /200 POST \/v1\/chat\/completions/.test(terminal.screen()), 'the request log line', {
        timeoutMs: 10_000,
      });
      const line =
        terminal
          .screen()
          .split('\n')
          .find((l) => l.includes('200 POST /v1/chat/completions')) ?? '';
      assert.match(
        line,
        /^\d\d:\d\d:\d\d 200 POST \/v1\/chat\/completions {2}quick {2}\d+ in, \d+ out tokens {2}\d+(\.\d)? m?s$/,
      );
      assert.match(terminal.screen(), /log {7}one line per request/, 'the ready lines say how the log is written');
      assert.doesNotMatch(terminal.screen(), /\{"t":/, 'no JSON line on a terminal');
      assert.doesNotMatch(terminal.screen(), /private question/);
    } finally {
      await terminal.stop();
    }
  });

  test("an upstream that is down: the request line, then one problem line with the proxy's hint intact, no stack", async () => {
    const terminal = await serveOnTerminal(['--upstream', down], workspace);
    try {
      const error = await ask(terminal.url).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(error instanceof OpenAI.APIError && error.status === 502, String(error));
      await until(() => /502 POST \/v1\/chat\/completions/.test(terminal.screen()), 'the request log line', {
        timeoutMs: 10_000,
      });
      const screen = terminal.screen();
      assert.ok(screen.includes(`error upstream_unavailable (502): ${HINT}`), screen);
      assert.doesNotMatch(screen, /chars>/, 'the hint is not masked');
      assert.doesNotMatch(screen, /^\s+at /m, 'no stack trace');
      assert.doesNotMatch(screen, /\{"t":/);
    } finally {
      await terminal.stop();
    }
  });

  test('--log-format json on a terminal writes JSON lines', async () => {
    const terminal = await serveOnTerminal(['--upstream', fake.url, '--log-format', 'json'], workspace);
    try {
      await ask(terminal.url);
      await until(() => /"event":"http\.request"/.test(terminal.screen()), 'the request log line', {
        timeoutMs: 10_000,
      });
      const line =
        terminal
          .screen()
          .split('\n')
          .find((l) => l.includes('"event":"http.request"')) ?? '';
      const event = JSON.parse(line);
      assert.equal(event.route, '/v1/chat/completions');
      assert.equal(event.status, 200);
    } finally {
      await terminal.stop();
    }
  });
});

describe('through a pipe', () => {
  test('JSON lines, with the hint as its own field, intact', async () => {
    const serving = await startServe(['--upstream', down, '--workspace', workspace], workspace);
    try {
      await ask(serving.url).catch(() => undefined);
      await until(() => serving.log().includes('"event":"http.request"'), 'the request log line', {
        timeoutMs: 10_000,
      });
      const events = serving
        .log()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      const problem = events.find((e) => e.event === 'http.server_error');
      assert.equal(problem?.hint, HINT);
      assert.equal(problem?.errorCode, 'upstream_unavailable');
      const request = events.find((e) => e.event === 'http.request');
      assert.equal(request?.status, 502);
      assert.doesNotMatch(serving.log(), /private question/);
    } finally {
      serving.child.kill('SIGTERM');
      await serving.exited;
    }
  });

  test('CTXPROXY_LOG_FORMAT=text writes the human lines to a pipe too', async () => {
    const serving = await startServe(['--upstream', down, '--workspace', workspace], workspace, {
      CTXPROXY_LOG_FORMAT: 'text',
    });
    try {
      await ask(serving.url).catch(() => undefined);
      await until(() => /502 POST \/v1\/chat\/completions/.test(serving.log()), 'the request log line', {
        timeoutMs: 10_000,
      });
      assert.ok(serving.log().includes(`error upstream_unavailable (502): ${HINT}`), serving.log());
    } finally {
      serving.child.kill('SIGTERM');
      await serving.exited;
    }
  });
});
