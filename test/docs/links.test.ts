// The README and docs/ lead only to files that exist in this repository (and
// to headings that exist on the page named), never to a file outside it; the
// README's first screen holds the steps a newcomer needs, in order.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { documentationFiles, headingAnchors, prose, ROOT, readDoc } from './markdown.ts';

describe('the documentation links', () => {
  it('every relative link names a file in the repository, and every #anchor a heading of it', () => {
    const problems: string[] = [];
    let checked = 0;
    for (const file of documentationFiles()) {
      for (const m of prose(readDoc(file)).matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1] ?? '';
        if (/^[a-z]+:/i.test(target)) continue;
        checked++;
        const [relative = '', anchor] = target.split('#');
        const resolved = relative === '' ? path.join(ROOT, file) : path.resolve(ROOT, path.dirname(file), relative);
        if (path.relative(ROOT, resolved).startsWith('..')) {
          problems.push(`${file}: ${target} leads outside the repository`);
          continue;
        }
        if (!existsSync(resolved)) {
          problems.push(`${file}: ${target} does not exist`);
          continue;
        }
        if (anchor && resolved.endsWith('.md') && !headingAnchors(readDoc(path.relative(ROOT, resolved))).has(anchor)) {
          problems.push(`${file}: ${target} names no heading of ${path.relative(ROOT, resolved)}`);
        }
      }
    }
    assert.ok(checked > 20, `links were found (${checked})`);
    assert.deepEqual(problems, []);
  });

  it('every page of docs/ is linked from the README', () => {
    const readme = readDoc('README.md');
    const unlinked = documentationFiles()
      .filter((file) => file !== 'README.md')
      .filter((file) => !readme.includes(`](${file})`));
    assert.deepEqual(unlinked, []);
  });

  it("the README's first screen goes from a model to an answer and the audit, in order", () => {
    const readme = readDoc('README.md');
    const firstScreen = readme.slice(0, readme.indexOf('## A short tour'));
    const steps = [
      'ollama pull qwen2.5-coder:7b',
      'npm ci',
      'npm start -- --workspace ~/code/yourrepo',
      'curl -s http://127.0.0.1:4141/v1/chat/completions',
      "import OpenAI from 'openai'",
      'http://127.0.0.1:4141/audit',
      'npm test',
      'npx ctxproxy',
    ];
    let from = 0;
    for (const step of steps) {
      const at = firstScreen.indexOf(step, from);
      assert.ok(at >= 0, `the first screen has "${step}" after the step before it`);
      from = at;
    }
    assert.ok(firstScreen.split('\n').length <= 60, 'the first screen fits a screen (60 lines)');
  });
});
