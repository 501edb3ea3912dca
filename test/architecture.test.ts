// Imports run one way (DESIGN.md, "Layout"): cli → http → pipeline → the stage
// folders → shared. No stage folder imports another; nothing imports main.ts.
// Inside sources/, the parts the sources are built on run one way too:
// workspace/ (the work tree as files) → git/ (running git) → the sources.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));
const STAGES = ['sources', 'redact', 'budget', 'upstream', 'audit', 'ui', 'config'];
const ALLOWED: Record<string, string[]> = {
  shared: ['shared'],
  ...Object.fromEntries(STAGES.map((stage) => [stage, [stage, 'shared']])),
  pipeline: ['pipeline', ...STAGES, 'shared'],
  http: ['http', 'pipeline', ...STAGES, 'shared'],
  // `serve` is a command that starts the HTTP server (cli/serveCommand.ts); http never imports cli.
  cli: ['cli', 'http', 'pipeline', ...STAGES, 'shared'],
};

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(full) : /\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

/** Relative import specifiers, static and dynamic. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found = [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)['"](\.{1,2}\/[^'"]+)['"]/g)];
  return found.map((match) => match[1] as string);
}

test('every folder of src/ imports only the folders below it', () => {
  const violations: string[] = [];
  for (const file of filesUnder(SRC)) {
    const relative = path.relative(SRC, file);
    const folder = relative.includes(path.sep) ? (relative.split(path.sep)[0] as string) : 'root';
    for (const specifier of importsOf(file)) {
      const target = path.relative(SRC, path.resolve(path.dirname(file), specifier));
      const targetFolder = target.includes(path.sep) ? (target.split(path.sep)[0] as string) : target;
      if (targetFolder === 'main.ts') violations.push(`${relative} imports main.ts`);
      if (folder === 'root') continue;
      const allowed = ALLOWED[folder];
      assert.ok(allowed, `src/${folder} is not in the layout; add it to DESIGN.md and this test`);
      if (!allowed.includes(targetFolder)) violations.push(`${relative} imports ${target}`);
    }
  }
  assert.deepEqual(violations, []);
});

test('the check sees imports at all (it would pass vacuously otherwise)', () => {
  const pipeline = importsOf(path.join(SRC, 'pipeline', 'budgetStage.ts'));
  assert.ok(pipeline.some((specifier) => specifier.startsWith('../budget/')));
});

/** What each lower part of src/sources/ may import from sources/ (anything outside it is the test above's). */
const SOURCE_PARTS: Record<string, string[]> = {
  workspace: ['workspace'],
  git: ['git', 'workspace'],
};

function sourcePartImports(part: string): { file: string; target: string; targetPart: string }[] {
  const sources = path.join(SRC, 'sources');
  return filesUnder(path.join(sources, part)).flatMap((file) =>
    importsOf(file)
      .map((specifier) => path.resolve(path.dirname(file), specifier))
      .filter((target) => target.startsWith(sources + path.sep))
      .map((target) => {
        const inSources = path.relative(sources, target);
        const targetPart = inSources.includes(path.sep) ? (inSources.split(path.sep)[0] as string) : inSources;
        return { file: path.relative(SRC, file), target: path.relative(SRC, target), targetPart };
      }),
  );
}

test('inside sources/, workspace/ imports no other part and git/ only workspace/', () => {
  const violations: string[] = [];
  for (const [part, allowed] of Object.entries(SOURCE_PARTS)) {
    for (const { file, target, targetPart } of sourcePartImports(part)) {
      if (!allowed.includes(targetPart)) violations.push(`${file} imports ${target}`);
    }
  }
  assert.deepEqual(violations, []);
});

test('the sources/ check sees imports between parts', () => {
  assert.ok(sourcePartImports('git').some(({ targetPart }) => targetPart === 'workspace'));
});
