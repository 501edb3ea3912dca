// False positives on real third-party text: redacts every source, JSON,
// Markdown, YAML and text file under node_modules (or the folders named on
// the command line; under 200 KB) and counts the files whose text changes.
// Not a test (the tree differs per machine): a measurement to run before and
// after a rule change.
//
//   node --import tsx test/redact/nodeModulesFp.ts [--verbose] [--rules=DIR] [folder ...]
//   node --import tsx test/redact/nodeModulesFp.ts /usr/lib/python3.11 /usr/share/doc

import { type Dirent, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createRedactor } from '../../src/redact/createRedactor.ts';

const ROOT = join(import.meta.dirname, '../..');
const EXTENSIONS = /\.(?:[cm]?js|ts|json|md|ya?ml|py|txt|conf|cfg|ini|toml|xml|sh)$/;
const MAX_BYTES = 200_000;

function* walk(dir: string): Generator<string> {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return; // unreadable folder
  }
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else if (entry.isFile() && EXTENSIONS.test(entry.name) && statSync(path).size < MAX_BYTES) yield path;
  }
}

const verbose = process.argv.includes('--verbose');
const folders = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
const roots = folders.length > 0 ? folders : [join(ROOT, 'node_modules')];
const rulesDir = process.argv.find((arg) => arg.startsWith('--rules='))?.slice('--rules='.length);
const redactor = await createRedactor({ timeoutMs: 60_000, ...(rulesDir ? { rulesDir } : {}) });
let files = 0;
let changed = 0;
const byRule = new Map<string, number>();
for (const path of roots.flatMap((root) => [...walk(root)])) {
  const text = readFileSync(path, 'utf8');
  if (text.includes('\u0000')) continue; // binary
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
console.log(`${folders.length > 0 ? folders.join(' ') : 'node_modules'}: ${changed} of ${files} files changed`);
console.log([...byRule].map(([rule, n]) => `${rule} ${n}`).join(', '));
