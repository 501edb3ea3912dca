// RSS a CPU pool worker adds once it has scanned and counted (the redactor and the tokenizer loaded in it),
// and what is left when it exits. Run: npm run build && node --max-semi-space-size=2 --v8-pool-size=1 --expose-gc bench/overhead/workerMemory.mjs
import { readFileSync } from 'node:fs';

const dist = process.argv[2] ?? new URL('../../dist', import.meta.url).pathname;
const { CpuPool, defaultCpuWorkerUrl } = await import(`${dist}/shared/cpuPool.js`);
const { createRedactor } = await import(`${dist}/redact/createRedactor.js`);
const { createTokenCounter } = await import(`${dist}/budget/index.js`);
const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]) / 1024;
const settle = async () => {
  for (let i = 0; i < 3; i++) {
    globalThis.gc?.();
    await new Promise((r) => setTimeout(r, 300));
  }
};
const pool = new CpuPool({ workerUrl: defaultCpuWorkerUrl, idleMs: 3000, size: 1 });
const redactor = await createRedactor({ pool });
const counter = createTokenCounter({ pool });
await settle();
const before = rss();
const text = Array.from(
  { length: 3000 },
  (_, i) => `const value${i} = compute(${i}, "label ${i}"); // password here`,
).join('\n');
for (let i = 0; i < 20; i++) {
  await redactor.redact(`${text}\n${i}`);
  await counter.prepare([`${text}\n${i} more`]);
}
await settle();
const working = rss();
await new Promise((r) => setTimeout(r, 3500));
await settle();
const after = rss();
console.log(
  `RSS before ${before.toFixed(0)} MB, with a worker ${working.toFixed(0)} (+${(working - before).toFixed(0)}), after it exits ${after.toFixed(0)} (+${(after - before).toFixed(0)}); workers running ${pool.running}`,
);
pool.close();
