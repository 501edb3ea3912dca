// Bad input (issue 26): a 50 MB single-line file, a file of one repeated
// character, a 100,000-key JSON object and nested base64. Each must be
// redacted in linear time or dropped with a reason (RedactionTimeoutError:
// the caller drops the item, fail closed); nothing is forwarded unscanned.
// Linearity: each input is also timed at a quarter of its size; a ratio near
// 4 (full / quarter) is linear, far above it is not.
//
//   node --import tsx bench/redact/badInput.ts [--mb 50] [--timeout-ms 2000]

import { createRedactor, RedactionTimeoutError } from '../../src/redact/createRedactor.ts';
import { ALNUM, pick, seededRng } from '../../test/redact/secretGen.ts';

const argv = process.argv.slice(2);
const option = (name: string, fallback: number) =>
  argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : fallback;
const megabytes = option('--mb', 50);
const timeoutMs = option('--timeout-ms', 2000);
const rng = seededRng(26);

/** A long line of code-like text with a planted secret every ~64 kB, so the scan has work to do. */
function singleLine(chars: number): string {
  const secret = `api_key="${pick(rng, ALNUM, 32)}"; `;
  const filler = 'const value = compute(input, options) + other.field; ';
  const unit = filler.repeat(1200) + secret;
  return unit.repeat(Math.ceil(chars / unit.length)).slice(0, chars);
}

function jsonObject(keys: number): string {
  const parts: string[] = [];
  for (let i = 0; i < keys; i++) {
    parts.push(i % 10 === 0 ? `"password_${i}": "${pick(rng, ALNUM, 20)}"` : `"field_${i}": "value ${i}"`);
  }
  return `{${parts.join(', ')}}`;
}

/** A Kubernetes-style secret whose value is base64 of base64 … of a token, `depth` times. */
function nestedBase64(depth: number, copies: number): string {
  let value = `ghp_${pick(rng, ALNUM, 36)}`;
  for (let i = 0; i < depth; i++) value = Buffer.from(value).toString('base64');
  return `apiVersion: v1\nkind: Secret\ndata:\n${Array.from({ length: copies }, (_, i) => `  token${i}: ${value}\n`).join('')}`;
}

const inputs: { name: string; make: (scale: number) => string }[] = [
  { name: `single line, ${megabytes} MB`, make: (s) => singleLine(Math.round(megabytes * 1e6 * s)) },
  { name: `one repeated character, ${megabytes} MB`, make: (s) => 'a'.repeat(Math.round(megabytes * 1e6 * s)) },
  { name: 'JSON object, 100,000 keys', make: (s) => jsonObject(Math.round(100_000 * s)) },
  { name: 'nested base64, 8 levels, 2,000 values', make: (s) => nestedBase64(8, Math.round(2000 * s)) },
];

const redactor = await createRedactor({ timeoutMs });
await redactor.redact('warm-up api_key="x"');

async function run(text: string): Promise<{ ms: number; outcome: string }> {
  const started = performance.now();
  try {
    const out = await redactor.redact(text);
    const ms = performance.now() - started;
    return { ms, outcome: `redacted, ${out.findings.length} findings` };
  } catch (error) {
    const ms = performance.now() - started;
    if (error instanceof RedactionTimeoutError) return { ms, outcome: `dropped: ${error.message}` };
    throw error;
  }
}

console.log(`timeout ${timeoutMs} ms\n`);
console.log('| input | size | time | outcome | quarter size: time | full / quarter |');
console.log('| --- | ---: | ---: | --- | ---: | ---: |');
for (const input of inputs) {
  const quarter = input.make(0.25);
  const full = input.make(1);
  const q = await run(quarter);
  const f = await run(full);
  const size = `${(full.length / 1e6).toFixed(1)} MB`;
  console.log(
    `| ${input.name} | ${size} | ${f.ms.toFixed(0)} ms | ${f.outcome} | ${q.ms.toFixed(0)} ms | ${(f.ms / q.ms).toFixed(1)} |`,
  );
}
