// A newcomer's first ten minutes, scripted: a fresh clone of this repository,
// then the README's first-screen commands in the order the README gives them,
// read from README.md itself, against a generated repository, with a real
// `openai` client asking about it through the fake Ollama. Prints the time and
// the disk of each step, and fails when a step fails or the answer is not the
// one the repository's context makes. See README.md beside this file.
//
//   node --import tsx bench/newcomer/run.ts [--link-node-modules] [--with-tests] [--keep]

import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { type FakeOllama, startFakeOllama } from '../../test/support/fakeOllama.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const args = new Set(process.argv.slice(2));
const LINK = args.has('--link-node-modules');
const WITH_TESTS = args.has('--with-tests');
const KEEP = args.has('--keep');

const MODEL = 'qwen2.5-coder:7b';
const BRANCH = 'feature/late-fees';
const CHANGED = 'src/invoice.ts';
const RULE = 'Money is always in integer cents.';
/** The answer the fake model gives when the repository's context reached it. */
const ANSWER = `You are on ${BRANCH}; you changed ${CHANGED} (a late fee). House rule: ${RULE}`;
const NO_CONTEXT = 'I cannot see your repository.';

interface Step {
  name: string;
  seconds: number;
  /** Bytes of the clone after the step. */
  cloneBytes: number;
  note: string;
}
const steps: Step[] = [];
const scratch = mkdtempSync(path.join(tmpdir(), 'ctxproxy-newcomer-'));
const clone = path.join(scratch, 'ctxproxy');
const children: ChildProcess[] = [];
let fake: FakeOllama | undefined;

function du(dir: string): number {
  try {
    return Number(execFileSync('du', ['-sb', dir], { encoding: 'utf8' }).split('\t')[0]);
  } catch {
    return 0;
  }
}

async function step(name: string, work: () => Promise<string> | string): Promise<void> {
  const started = process.hrtime.bigint();
  const note = await work();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const entry = { name, seconds, cloneBytes: du(clone), note };
  steps.push(entry);
  process.stdout.write(`${name.padEnd(42)} ${seconds.toFixed(1).padStart(7)} s  ${mb(entry.cloneBytes)}  ${note}\n`);
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0).padStart(5)} MB`;

/** The environment of a newcomer's shell, with the fake standing in for Ollama and no settings of our own. */
function newcomerEnv(upstream: FakeOllama, port: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('CTXPROXY_') || key === 'OLLAMA_HOST') delete env[key];
  const configHome = path.join(scratch, 'config');
  mkdirSync(configHome, { recursive: true });
  return {
    ...env,
    OLLAMA_HOST: upstream.url,
    CTXPROXY_PORT: String(port),
    XDG_CONFIG_HOME: configHome,
    NO_PROXY: '127.0.0.1',
    no_proxy: '127.0.0.1',
  };
}

function run(command: string, argv: string[], options: { cwd: string; env: NodeJS.ProcessEnv; input?: string }) {
  return new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn(command, argv, { cwd: options.cwd, env: options.env, timeout: 20 * 60_000 });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    child.on('close', (code) => resolve({ code, out }));
    child.stdin.end(options.input ?? '');
  });
}

async function mustRun(
  line: string,
  options: { cwd: string; env: NodeJS.ProcessEnv; input?: string },
): Promise<string> {
  const { code, out } = await run('bash', ['-c', line], options);
  assert.equal(code, 0, `\`${line}\` failed:\n${out.slice(-4000)}`);
  return out;
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A small project as a newcomer has one: a feature branch, an uncommitted edit, an instruction file. */
function generateRepository(dir: string): void {
  const files: Record<string, string> = {
    'package.json': `${JSON.stringify({ name: 'billing', version: '1.0.0', scripts: { test: 'node --test' } }, null, 2)}\n`,
    'AGENTS.md': `# Billing service\n\n${RULE}\nRun \`npm test\` before committing.\n`,
    [CHANGED]:
      'export function total(lines: { cents: number }[]): number {\n  return lines.reduce((sum, line) => sum + line.cents, 0);\n}\n',
    'src/customer.ts': 'export interface Customer {\n  id: string;\n  email: string;\n}\n',
    'test/invoice.test.ts': "import { total } from '../src/invoice.ts';\n// total([{ cents: 100 }]) === 100\n",
  };
  const git = (...argv: string[]) =>
    execFileSync('git', argv, {
      cwd: dir,
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 'n',
        GIT_AUTHOR_EMAIL: 'n@example.invalid',
        GIT_COMMITTER_NAME: 'n',
        GIT_COMMITTER_EMAIL: 'n@example.invalid',
      },
    });
  mkdirSync(dir, { recursive: true });
  git('init', '-q', '-b', 'main');
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  git('add', '-A');
  git('commit', '-q', '-m', 'Invoices and customers');
  git('checkout', '-q', '-b', BRANCH);
  writeFileSync(
    path.join(dir, CHANGED),
    'export const LATE_FEE_CENTS = 500;\n\nexport function total(lines: { cents: number }[], late = false): number {\n  return lines.reduce((sum, line) => sum + line.cents, 0) + (late ? LATE_FEE_CENTS : 0);\n}\n',
  );
}

/** The first-screen commands of the README: the block under "Get going", comments dropped. */
function firstScreenCommands(readme: string): string[] {
  const screen = readme.slice(readme.indexOf('## Get going'), readme.indexOf('## A short tour'));
  const block = /```sh\n([\s\S]*?)```/.exec(screen)?.[1] ?? '';
  return block
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line !== '');
}

async function readyUrl(child: ChildProcess): Promise<string> {
  let log = '';
  child.stderr?.on('data', (d) => {
    log += d;
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  for await (const line of lines) {
    const url = /ctxproxy listening on (http:\/\/127\.0\.0\.1:\d+)\/v1/.exec(line)?.[1];
    if (url) return url;
  }
  throw new Error(`npm start ended before its ready line:\n${log.slice(-4000)}`);
}

async function main(): Promise<void> {
  fake = await startFakeOllama();
  fake.reply(MODEL, (body) => {
    const sent = JSON.stringify(body.messages ?? []);
    return { content: [BRANCH, CHANGED, RULE].every((fact) => sent.includes(fact)) ? ANSWER : NO_CONTEXT };
  });
  const port = await freePort();
  const env = newcomerEnv(fake, port);
  const yourRepo = path.join(scratch, 'code', 'yourrepo');
  generateRepository(yourRepo);
  const here = (text: string) =>
    text.replaceAll('~/code/yourrepo', yourRepo).replaceAll('127.0.0.1:4141', `127.0.0.1:${port}`);

  process.stdout.write(
    `newcomer run in ${scratch} (the fake Ollama at ${fake.url} stands in for \`ollama serve\`; port ${port} for 4141)\n\n`,
  );
  process.stdout.write(`${'step'.padEnd(42)} ${'time'.padStart(9)}  ${'clone'.padStart(8)}  what happened\n`);

  await step('git clone', async () => {
    await mustRun(`git clone --quiet ${JSON.stringify(ROOT)} ${JSON.stringify(clone)}`, { cwd: scratch, env });
    return `HEAD ${execFileSync('git', ['-C', clone, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim()}`;
  });

  const readme = readFileSync(path.join(clone, 'README.md'), 'utf8');
  const commands = firstScreenCommands(readme);
  assert.ok(commands.length >= 3, `the README's first block has the set-up commands: ${commands}`);
  let server: ChildProcess | undefined;
  let url = '';
  const npmCache = path.join(homedir(), '.npm', '_cacache');

  for (const command of commands) {
    if (command.startsWith('ollama ')) {
      steps.push({
        name: command,
        seconds: 0,
        cloneBytes: du(clone),
        note: 'skipped: the fake Ollama serves the model',
      });
      process.stdout.write(
        `${command.padEnd(42)} ${'—'.padStart(7)}    ${mb(du(clone))}  skipped: the fake Ollama serves the model\n`,
      );
    } else if (command === 'npm ci') {
      if (LINK) {
        await step('npm ci (--link-node-modules)', () => {
          symlinkSync(path.join(ROOT, 'node_modules'), path.join(clone, 'node_modules'));
          execFileSync('npm', ['run', 'build'], { cwd: clone, env, stdio: 'ignore' });
          return "linked this checkout's node_modules, ran npm run build";
        });
      } else {
        const cacheBefore = du(npmCache);
        await step('npm ci', async () => {
          await mustRun('npm ci --no-audit --no-fund', { cwd: clone, env });
          const sizes = ['node_modules', 'dist'].map((d) => `${d} ${mb(du(path.join(clone, d))).trim()}`).join(', ');
          return `${sizes}; npm cache grew ${mb(du(npmCache) - cacheBefore).trim()} (warm before: ${mb(cacheBefore).trim()})`;
        });
      }
    } else if (command.startsWith('npm start')) {
      await step(here(command).replace(yourRepo, '~/code/yourrepo'), async () => {
        server = spawn('bash', ['-c', here(command)], {
          cwd: clone,
          env,
          stdio: ['ignore', 'pipe', 'pipe'],
          detached: true,
        });
        children.push(server);
        url = await readyUrl(server);
        return `ready: ${url}/v1`;
      });
    } else {
      throw new Error(`a first-screen command this run does not know: ${command}`);
    }
  }
  assert.ok(url, 'npm start printed its ready line');

  await step('curl (the README block)', async () => {
    const block = /```sh\n(curl[\s\S]*?)```/.exec(readme)?.[1];
    assert.ok(block, 'the README has a curl block');
    const out = await mustRun(here(block), { cwd: clone, env });
    const answer = (JSON.parse(out) as { choices: { message: { content: string } }[] }).choices[0]?.message.content;
    assert.equal(answer, ANSWER, 'curl got the answer made from the repository');
    return `answer: "${answer?.slice(0, 60)}…"`;
  });

  await step('node ask.mjs (openai SDK)', async () => {
    const block = /```js\n([\s\S]*?)```/.exec(readme)?.[1];
    assert.ok(block, 'the README has the openai block');
    writeFileSync(path.join(clone, 'ask.mjs'), here(block));
    const out = await mustRun('node ask.mjs', { cwd: clone, env });
    assert.equal(out.trim(), ANSWER, 'the openai client printed the answer made from the repository');
    return `printed: "${out.trim().slice(0, 60)}…"`;
  });

  await step('open /audit', async () => {
    const page = await fetch(`${url}/audit`);
    assert.equal(page.status, 200);
    const list = (await (await fetch(`${url}/api/audit/snapshots`)).json()) as { data?: { id: string }[] };
    const snapshots = list.data ?? [];
    assert.ok(snapshots.length >= 2, `the two questions are in the audit (${JSON.stringify(list).slice(0, 200)})`);
    const newest = snapshots[0]?.id ?? '';
    const one = await (await fetch(`${url}/audit/${newest}`)).text();
    assert.ok(one.includes(BRANCH), 'the snapshot page shows the context the model saw');
    return `${snapshots.length} snapshots; /audit/${newest.slice(0, 8)}… shows the branch the model saw`;
  });

  const preview = /`(npx ctxproxy preview [^`]+)`/.exec(readme)?.[1];
  assert.ok(preview, 'the README gives an npx ctxproxy preview line');
  await step('npx ctxproxy preview', async () => {
    const out = await mustRun(here(preview), { cwd: clone, env });
    assert.ok(out.includes(BRANCH) && out.includes(RULE), 'preview shows the branch and the instruction file');
    return `${out.length} chars of messages, with the branch and AGENTS.md`;
  });

  if (WITH_TESTS) {
    await step('npm ci --prefix test/agents', () =>
      mustRun('npm ci --prefix test/agents --no-audit --no-fund', { cwd: clone, env }),
    );
    await step('npm test', async () => {
      await mustRun('npm test', { cwd: clone, env });
      return 'passed';
    });
  } else {
    process.stdout.write(
      `${'npm test'.padEnd(42)} ${'—'.padStart(7)}             skipped (--with-tests runs it: the whole suite)\n`,
    );
  }
}

async function cleanUp(): Promise<void> {
  for (const child of children) {
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      // already gone
    }
    await exited;
  }
  await fake?.close();
  if (!KEEP) rmSync(scratch, { recursive: true, force: true });
}

try {
  await main();
  const total = steps.reduce((sum, s) => sum + s.seconds, 0);
  process.stdout.write(
    `\ntotal ${total.toFixed(1)} s; the clone ends at ${mb(steps.at(-1)?.cloneBytes ?? 0).trim()}\n`,
  );
} catch (error) {
  process.stderr.write(`newcomer run failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
} finally {
  await cleanUp();
}
