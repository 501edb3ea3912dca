// Large texts cross to a CPU pool worker once (src/shared/poolTexts.ts): one
// request's message goes to the pool for several tasks, and each copy held the
// event loop. What the tasks compute must not change: the same answers as with
// every text sent in full, wherever the text sits in the arguments.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { CpuPool, defaultCpuWorkerUrl } from '../../src/shared/cpuPool.ts';
import { HeldTexts, LARGE_TEXT_CHARS } from '../../src/shared/poolTexts.ts';

const tasks = new URL('../fixtures/cpu/tasks.mjs', import.meta.url);
const recording = new URL('../fixtures/cpu/recordingWorker.mjs', import.meta.url);
const pools: CpuPool[] = [];
function pool(workerUrl = defaultCpuWorkerUrl): CpuPool {
  const made = new CpuPool({ workerUrl, idleMs: 60_000, size: 1 });
  pools.push(made);
  return made;
}
after(() => {
  for (const made of pools) made.close();
});

const timeoutMs = 30_000;
const digest = (...args: unknown[]) => createHash('sha256').update(JSON.stringify(args)).digest('hex');
const large = (seed: string, chars = LARGE_TEXT_CHARS + 10) => `${seed} `.repeat(chars / (seed.length + 1) + 1);

interface Crossed {
  sentChars: number;
  byId: number;
  argsChars: number;
  dropped: number[];
}

describe('large texts and the CPU pool', () => {
  test('a task sees the same arguments whether a text was sent in full or by its id, wherever it sits', async () => {
    const cpu = pool();
    const message = large('the message');
    const other = large('another text', LARGE_TEXT_CHARS * 2);
    const nestedDeep = { a: { b: { c: { d: { e: { f: { g: message } } } } } } };
    const shapes: unknown[][] = [
      [message],
      [
        'workspace',
        [
          { role: 'user', content: message },
          { role: 'assistant', content: 'short' },
        ],
      ],
      [
        [
          {
            role: 'user',
            content: [
              { type: 'text', text: other },
              { type: 'text', text: message },
            ],
          },
        ],
      ],
      [{ options: true }, message, 'path/x.txt', message],
      [nestedDeep],
      [JSON.parse(`{"__proto__": ${JSON.stringify(message)}, "text": ${JSON.stringify(other)}}`)],
    ];
    for (const round of [1, 2])
      for (const args of shapes)
        assert.equal(
          await cpu.run({ module: tasks, name: 'digest', args }, timeoutMs),
          digest(...args),
          `round ${round}: ${JSON.stringify(args).slice(0, 60)}`,
        );
  });

  test("a text the worker answered with goes back by its id, and the caller's arguments are left untouched", async () => {
    const cpu = pool();
    const text = large('answered');
    const answered = await cpu.run<{ value: string }>(
      { module: tasks, name: 'echo', args: [{ value: text }] },
      timeoutMs,
    );
    assert.equal(answered.value, text);
    const args = [{ messages: [{ content: answered.value }] }];
    assert.equal(await cpu.run({ module: tasks, name: 'digest', args }, timeoutMs), digest(...args));
    assert.equal((args[0] as { messages: { content: string }[] }).messages[0]?.content, text);
  });

  test('each large text crosses once; small ones, and texts past the walk, travel as before', async () => {
    const cpu = pool(recording);
    const text = large('once');
    const run = (args: unknown[]) => cpu.run<Crossed>({ module: tasks, name: 'any', args }, timeoutMs);
    const first = await run(['w', [{ content: text }]]);
    assert.equal(first.sentChars, text.length);
    assert.ok(first.argsChars < 100, 'the text is not also in the arguments');
    const second = await run([text, { question: text }]);
    assert.deepEqual([second.sentChars, second.byId], [0, 2]);
    const small = await run(['x'.repeat(LARGE_TEXT_CHARS - 1)]);
    assert.deepEqual([small.sentChars, small.byId], [0, 0]);
    assert.ok(small.argsChars >= LARGE_TEXT_CHARS - 1);
  });

  test('a worker left idle drops its texts, and the next task sends them again', async () => {
    const cpu = pool(recording);
    const text = large('idle');
    const run = () => cpu.run<Crossed>({ module: tasks, name: 'any', args: [text] }, timeoutMs);
    assert.equal((await run()).sentChars, text.length);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const again = await run();
    assert.equal(again.sentChars, text.length);
    assert.equal(again.dropped.length, 1, 'the worker was told to drop the text it held');
  });
});

test('HeldTexts keeps the most recently used texts within its bound and names the ones to drop', () => {
  const held = new HeldTexts(25);
  const [a, b, c] = ['a'.repeat(10), 'b'.repeat(10), 'c'.repeat(10)];
  held.add(a, 1);
  held.add(b, 2);
  assert.equal(held.idOf(a), 1);
  held.add(c, 3);
  assert.deepEqual(held.takeForgotten(), [2], 'b was used least recently');
  assert.equal(held.idOf(b), undefined);
  held.add(`${'a'.repeat(5)}${'a'.repeat(5)}`, 4);
  assert.deepEqual(held.takeForgotten(), [4], 'an equal text already held keeps its id');
  assert.deepEqual(held.clear().sort(), [1, 3]);
  assert.equal(held.size, 0);
});
