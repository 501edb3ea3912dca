// The CPU pool (issue 28): long per-request CPU work (a secret scan of a large
// text) runs in a worker that starts only when such work comes and exits once
// idle; its results are the ones the same work gives inline, byte for byte; a
// worker that dies or hangs fails its task, and the redactor then fails closed
// (the text is never returned unscanned); tasks queued behind a hung one still
// get their answer from a fresh worker.

import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { countedTexts, createTokenCounter } from '../../src/budget/index.ts';
import { POOL_ABOVE_CHARS as COUNT_POOL_ABOVE_CHARS } from '../../src/budget/tokenCounter.ts';
import { POOL_ABOVE_BYTES, readJsonBody } from '../../src/http/readJsonBody.ts';
import { questionOffLoop } from '../../src/pipeline/collect.ts';
import { createRedactor, POOL_ABOVE_CHARS, RedactionTimeoutError } from '../../src/redact/createRedactor.ts';
import { CpuPool, CpuTaskFailed, defaultCpuWorkerUrl } from '../../src/shared/cpuPool.ts';
import { analyseQuestion } from '../../src/shared/question.ts';
import type { ChatMessage } from '../../src/shared/types.ts';
import { seededRng } from '../redact/secretGen.ts';
import { SECRET_KINDS } from '../redact/secretKinds.ts';

const tasks = new URL('../fixtures/cpu/tasks.mjs', import.meta.url);
const crashing = new URL('../fixtures/cpu/crashingWorker.mjs', import.meta.url);
const hanging = new URL('../fixtures/cpu/hangingWorker.mjs', import.meta.url);

const pools: CpuPool[] = [];
function pool(options: Partial<ConstructorParameters<typeof CpuPool>[0]> = {}): CpuPool {
  const made = new CpuPool({ workerUrl: defaultCpuWorkerUrl, idleMs: 60_000, size: 1, ...options });
  pools.push(made);
  return made;
}
after(() => {
  for (const made of pools) made.close();
});

/** Generous: a loaded machine must not turn these tests into timeout tests (the last one is). */
const timeoutMs = 30_000;

/** Texts above the pool's threshold: every kind of fake secret the redactor tests know, in lines of code and prose. */
function largeTexts(): { text: string; secrets: string[] }[] {
  const rng = seededRng(28);
  const filler = [
    'export function total(items) { return items.reduce((sum, item) => sum + item.price, 0); }',
    'The deployment reads its settings from the environment; see docs/config.md for the list.',
    '2026-12-07T04:40:00Z INFO request finished in 12 ms status=200 path=/v1/chat/completions',
  ];
  return [POOL_ABOVE_CHARS + 1, 200_000, 1_500_000].map((target) => {
    const lines: string[] = [];
    const secrets: string[] = [];
    let size = 0;
    for (let i = 0; size < target; i++) {
      const kinds = Object.entries(SECRET_KINDS);
      const [name, kind] = kinds[i % kinds.length] as [string, (typeof SECRET_KINDS)[string]];
      const planted = kind(rng);
      const line = i % 4 === 0 ? `${name.toUpperCase().replace(/\W/g, '_')}=${planted.text}` : (filler[i % 3] ?? '');
      if (i % 4 === 0) secrets.push(...planted.secrets);
      lines.push(line);
      size += line.length + 1;
    }
    return { text: lines.join('\n'), secrets };
  });
}

describe('the CPU pool', () => {
  test('starts no worker until a task comes, and its worker exits once idle', async () => {
    const cpu = pool({ idleMs: 50 });
    const redactor = await createRedactor({ pool: cpu });
    await redactor.redact(`export TOKEN=ghp_${'a'.repeat(36)}\n${'x'.repeat(POOL_ABOVE_CHARS - 100)}`);
    assert.equal(cpu.started, 0, 'a text under the threshold is scanned inline');
    assert.equal(await cpu.run({ module: tasks, name: 'add', args: [2, 3] }, 5_000), 5);
    assert.equal(cpu.started, 1);
    const deadline = Date.now() + 10_000;
    while (cpu.running > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(cpu.running, 0, 'the idle worker exited');
    assert.equal(await cpu.run({ module: tasks, name: 'add', args: [1, 1] }, 5_000), 2);
    assert.equal(cpu.started, 2, 'the next task started the next worker');
  });

  test('a large text scanned in the pool gives exactly the inline result', async () => {
    const cpu = pool();
    const inPool = await createRedactor({ pool: cpu, cacheMaxChars: 0, timeoutMs });
    const inline = await createRedactor({ pool: false, cacheMaxChars: 0, timeoutMs });
    for (const { text, secrets } of largeTexts()) {
      const pooled = await inPool.redact(text, { path: 'notes/large.txt' });
      assert.deepEqual(pooled, await inline.redact(text, { path: 'notes/large.txt' }));
      // Most planted secrets are masked (the corpus measures the rest; what matters here is the same result).
      const masked = secrets.filter((secret) => !pooled.text.includes(secret)).length;
      assert.ok(masked > secrets.length * 0.9, `${masked} of ${secrets.length} masked`);
    }
    assert.equal(cpu.started, 1, 'one worker did it all');
  });

  test('a task that throws fails with its error name only; the worker serves the next task', async () => {
    const cpu = pool();
    await assert.rejects(cpu.run({ module: tasks, name: 'fail', args: [] }, 5_000), (error: unknown) => {
      assert.ok(error instanceof CpuTaskFailed);
      assert.equal(error.taskError, 'TypeError');
      assert.equal(String(error.message).includes('secret'), false);
      return true;
    });
    assert.equal(await cpu.run({ module: tasks, name: 'add', args: [20, 8] }, 5_000), 28);
    assert.equal(cpu.started, 1);
  });

  test('a task past its limit ends its worker; the task queued behind it is answered by a fresh one', async () => {
    // A worker's start (slow on a loaded machine, and under Deno type-checked) is not part of a task's limit.
    const cpu = pool({ startMarginMs: 60_000 });
    assert.equal(await cpu.run({ module: tasks, name: 'add', args: [0, 0] }, 5_000), 0);
    const stuck = cpu.run({ module: tasks, name: 'spin', args: [] }, 200);
    const behind = cpu.run({ module: tasks, name: 'add', args: [40, 2] }, 5_000);
    await assert.rejects(stuck, (error: unknown) => error instanceof CpuTaskFailed && error.timedOut);
    assert.equal(await behind, 42);
    assert.equal(cpu.started, 2);
  });

  test('a buffer sent by transfer moves (not copied); one whose worker ended under it fails, never runs emptied', async () => {
    const cpu = pool({ startMarginMs: 60_000 });
    const bytes = new Uint8Array([1, 2, 3, 4]);
    assert.equal(await cpu.run({ module: tasks, name: 'sum', args: [bytes], transfer: [bytes.buffer] }, 5_000), 10);
    assert.equal(bytes.byteLength, 0, "the sender's view is detached: nothing was copied");
    const stuck = cpu.run({ module: tasks, name: 'spin', args: [] }, 200);
    const moved = new Uint8Array([5, 6]);
    const behind = cpu.run({ module: tasks, name: 'sum', args: [moved], transfer: [moved.buffer] }, 5_000);
    const copied = cpu.run({ module: tasks, name: 'sum', args: [new Uint8Array([7, 8])] }, 5_000);
    await assert.rejects(stuck, (error: unknown) => error instanceof CpuTaskFailed && error.timedOut);
    await assert.rejects(behind, CpuTaskFailed);
    assert.equal(await copied, 15, 'a task that still has its arguments goes to a fresh worker');
  });

  test('redaction fails closed when the worker dies or hangs: the text is never returned unscanned', async () => {
    const text = `password = "hunter2-${'q'.repeat(20)}"\n${'lorem ipsum '.repeat(POOL_ABOVE_CHARS / 6)}`;
    const dying = await createRedactor({ pool: pool({ workerUrl: crashing }), timeoutMs });
    await assert.rejects(dying.redact(text), CpuTaskFailed);
    // No allowance for a first build, which the hanging worker never starts: the test waits 2.1 s, not 22.
    const stuck = await createRedactor({
      pool: pool({ workerUrl: hanging, startMarginMs: 0 }),
      timeoutMs: 100,
      poolBuildAllowanceMs: 0,
    });
    await assert.rejects(stuck.redact(text), RedactionTimeoutError);
  });

  test('a large body parsed in the pool is the value and the 400s an inline parse gives', async () => {
    const cpu = pool();
    // With its length declared (the bytes are gathered as they come) and without (chunked: joined at the end).
    const post = (body: string, declared: boolean) =>
      new Request('http://127.0.0.1/v1/chat/completions', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(declared ? { 'content-length': String(Buffer.byteLength(body)) } : {}),
        },
        body,
      });
    const outcome = async (body: string, where: CpuPool | undefined, declared = false) => {
      try {
        return { value: await readJsonBody(post(body, declared), 64 * 1024 * 1024, undefined, where) };
      } catch (error) {
        const { name, message, code, param, status } = error as Record<string, unknown>;
        return { error: { name, message, code, param, status } };
      }
    };
    const small = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    assert.deepEqual(await outcome(small, cpu), { value: JSON.parse(small) });
    assert.equal(cpu.started, 0, 'a small body is parsed inline');
    const pad = 'é😀 \u0000 "quoted" '.repeat(POOL_ABOVE_BYTES / 10);
    const bodies = [
      JSON.stringify({ model: 'm', messages: [{ role: 'user', content: pad }], n: -0, '2': 1 }),
      `{"__proto__":{"polluted":true},"model":"m","messages":[{"role":"user","content":${JSON.stringify(pad)}}]}`,
      `{"model":"m","messages":[{"role":"user","content":${JSON.stringify(pad)}}]`,
      `{"model":"m","content":${JSON.stringify(pad)},"x":${'['.repeat(100)}1${']'.repeat(100)}}`,
      ' '.repeat(POOL_ABOVE_BYTES + 1),
    ];
    for (const body of bodies) {
      assert.ok(Buffer.byteLength(body) > POOL_ABOVE_BYTES);
      const pooled = await outcome(body, cpu);
      assert.deepEqual(pooled, await outcome(body, undefined));
      assert.deepEqual(await outcome(body, cpu, true), pooled);
      if ('value' in pooled) assert.equal(Object.getPrototypeOf(pooled.value), Object.prototype);
    }
    assert.equal(cpu.started, 1);
  });

  test('a large body whose worker dies is parsed inline: the client gets its answer, not a 500', async () => {
    const body = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'x'.repeat(POOL_ABOVE_BYTES) }] });
    const dying = pool({ workerUrl: crashing });
    const request = new Request('http://127.0.0.1/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    assert.deepEqual(await readJsonBody(request, 64 * 1024 * 1024, undefined, dying), JSON.parse(body));
    assert.equal(dying.started, 1, 'the pool was tried first');
  });

  test('a long question analysed in the pool is the inline analysis', async () => {
    const cpu = pool();
    const long = `${'function _a(b,c){return b.x[c]};'.repeat(10_000)}\nwhy does src/app.ts throw in parseInvoice?`;
    const messages: ChatMessage[] = [
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'look at billing/rates.py and `compute_rate`' },
      { role: 'assistant', content: 'src/other.ts is unrelated' },
      ...Array.from(
        { length: 40 },
        (_, i): ChatMessage => ({ role: i % 2 ? 'assistant' : 'user', content: `turn ${i} about lib/m${i}.go` }),
      ),
      {
        role: 'user',
        content: [
          { type: 'text', text: 'and TypeError: x is undefined' },
          { type: 'text', text: long },
        ],
      },
    ];
    assert.deepEqual(await questionOffLoop(messages, cpu), analyseQuestion(messages));
    assert.equal(cpu.started, 1, 'analysed in the pool');
    const short: ChatMessage[] = [{ role: 'user', content: 'where is parseInvoice defined?' }];
    assert.deepEqual(await questionOffLoop(short, cpu), analyseQuestion(short));
  });

  test("a long request's token counts made in the pool are the inline counts", async () => {
    const cpu = pool();
    const code = Array.from({ length: 4000 }, (_, i) => `const value${i} = compute(${i}, "label ${i}");`).join('\n');
    const messages: ChatMessage[] = [
      { role: 'system', content: 'be brief' },
      // Exact, piece by piece (4K-256K characters of lines); a long run (estimated); sampled (over 256K).
      { role: 'user', content: code },
      { role: 'assistant', content: `a paste: ${'Q'.repeat(20_000)} and more` },
      { role: 'user', content: `${code}\n`.repeat(3) },
      ...Array.from({ length: 300 }, (_, i): ChatMessage => ({ role: 'user', content: `short turn ${i} naïve …` })),
    ];
    const tools = [{ type: 'function' as const, function: { name: 'read', parameters: { type: 'object' } } }];
    const texts = [...countedTexts(messages, tools), { text: code.slice(0, 9000), hash: 'item-hash' }];
    const counts = async (where: typeof cpu | false) => {
      const counter = await createTokenCounter({ pool: where }).prepare(texts);
      return {
        total: counter.countMessages(messages, tools),
        each: texts.map((text) => counter.count(typeof text === 'string' ? text : text.text)),
        estimated: counter.usedEstimate(),
      };
    };
    const inline = await counts(false);
    assert.equal(cpu.started, 0);
    assert.deepEqual(await counts(cpu), inline);
    assert.equal(inline.estimated, true, 'the long run and the long text are estimates');
    assert.equal(cpu.started, 1, 'counted in the pool');
    // A request with little new text is counted inline, and a counter's cache answers what the pool counted.
    const small = createTokenCounter({ pool: cpu });
    await small.prepare(['a short question', 'x'.repeat(COUNT_POOL_ABOVE_CHARS - 100)]);
    assert.equal(cpu.started, 1);
    const again = await small.prepare(texts);
    const hits = small.stats().hits;
    await small.prepare(texts);
    assert.ok(small.stats().hits > hits, 'the second time, the long texts are looked up');
    assert.equal(again.countMessages(messages, tools), inline.total);
    // One text too long to count whole (a pasted blob): however few its sampled characters, it is counted
    // in the pool, to the figure counted inline.
    const blob = `${'QmFzZTY0IGJsb2Igb2YgYSBwYXN0ZWQgZmlsZQ+/'.repeat(8_000)}`;
    const blobPool = pool();
    const inPool = await createTokenCounter({ pool: blobPool }).prepare([blob]);
    assert.equal(blobPool.started, 1, 'counted in the pool');
    assert.equal(inPool.count(blob), (await createTokenCounter({ pool: false }).prepare([blob])).count(blob));
  });

  test("a turn's new context is counted inline, no worker started; past the inline characters, in the pool", async () => {
    const lines = (n: number, tag: string) =>
      Array.from({ length: n }, (_, i) => `export const ${tag}${i} = load("${tag}/${i}.json");`).join('\n');
    // A context item of ~10K characters and two shorter ones: no worker for them.
    const items = [lines(240, 'item'), lines(60, 'other'), lines(40, 'more')];
    assert.ok((items[0] as string).length > 10_000);
    assert.ok(items.join('').length <= COUNT_POOL_ABOVE_CHARS);
    const cpu = pool();
    const inline = await createTokenCounter({ pool: cpu }).prepare(items);
    assert.equal(cpu.started, 0, 'no worker');
    const reference = await createTokenCounter({ pool: false }).prepare(items);
    assert.deepEqual(
      items.map((item) => inline.count(item)),
      items.map((item) => reference.count(item)),
    );
    // With room inline for the first text only: the others in the pool, to the same counts.
    const late = await createTokenCounter({ pool: cpu, inlineCountChars: (items[0] as string).length }).prepare(items);
    assert.equal(cpu.started, 1, 'counted in the pool');
    assert.deepEqual(
      items.map((item) => late.count(item)),
      items.map((item) => reference.count(item)),
    );
  });

  test('texts split between inline and the pool share one exact-count budget: the same counts as all inline', async () => {
    const lines = (chars: number, tag: string) => {
      let text = '';
      for (let i = 0; text.length < chars; i++) text += `let ${tag}${i} = read(${i});\n`;
      return text.slice(0, chars);
    };
    // 6K inline (budget spent), then in the pool 12K (past the inline characters), three of 255K, and one whose
    // length falls between what is left of the 1M budget with the inline part spent (sampled) and without
    // it (counted exactly): a pool that started from a full budget would count it exactly.
    const texts = [lines(6 * 1024, 'a'), lines(12 * 1024, 'b'), ...['c', 'd', 'e'].map((t) => lines(255 * 1024, t))];
    const spent = texts.reduce((sum, text) => sum + text.length, 0);
    const last = lines((1 << 20) - spent + 3 * 1024, 'f');
    texts.push(last);
    const cpu = pool();
    const split = await createTokenCounter({ pool: cpu }).prepare(texts);
    assert.equal(cpu.started, 1, 'the 12K text and those after it in the pool');
    const inline = await createTokenCounter({ pool: false }).prepare(texts);
    assert.equal(inline.usedEstimate(), true, 'all inline, the last text is sampled');
    assert.equal(split.usedEstimate(), true);
    assert.deepEqual(
      texts.map((text) => split.count(text)),
      texts.map((text) => inline.count(text)),
    );
  });
});
