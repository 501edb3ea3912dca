// False positives on real third-party text: redacts every source, JSON,
// Markdown and YAML file under node_modules (under 200 KB) and counts the
// files whose text changes. Not a test (the tree differs per install): a
// measurement to run before and after a rule change.
//
//   node --import tsx test/redact/nodeModulesFp.ts [--verbose]

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createRedactor } from '../../src/redact/createRedactor.ts';

const ROOT = join(import.meta.dirname, '../..');
const EXTENSIONS = /\.(?:[cm]?js|ts|json|md|ya?ml)$/;
const MAX_BYTES = 200_000;

function* walk(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else if (entry.isFile() && EXTENSIONS.test(entry.name) && statSync(path).size < MAX_BYTES) yield path;
  }
}

const verbose = process.argv.includes('--verbose');
const redactor = await createRedactor({ timeoutMs: 60_000 });
let files = 0;
let changed = 0;
const byRule = new Map<string, number>();
for (const path of walk(join(ROOT, 'node_modules'))) {
  const text = readFileSync(path, 'utf8');
  const name = relative(ROOT, path);
  files++;
  const result = await redactor.redact(text, { path: name });
  if (result.text === text) continue;
  changed++;
  for (const finding of result.findings) byRule.set(finding.ruleId, (byRule.get(finding.ruleId) ?? 0) + 1);
  if (verbose) {
    for (const finding of result.findings) {
      const line = text.slice(text.lastIndexOf('\n', finding.start) + 1, text.indexOf('\n', finding.end) >>> 0);
      console.log(`${name}  ${finding.ruleId}  ${line.trim().slice(0, 160)}`);
    }
  }
}
console.log(`node_modules: ${changed} of ${files} files changed`);
console.log([...byRule].map(([rule, n]) => `${rule} ${n}`).join(', '));
