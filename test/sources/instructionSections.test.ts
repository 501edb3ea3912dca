// A long instruction file (an AGENTS.md of commands, release steps, review tone and benchmark notes) reaches
// the model by the sections the question is about, with the other sections' headings named; a short one
// goes whole. Through the real instructions source on a real git repository.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { instructionSections, WHOLE_INSTRUCTION_CHARS } from '../../src/sources/instructionSections.ts';
import { createInstructionsSource } from '../../src/sources/instructions.ts';
import { Workspaces } from '../../src/sources/workspace.ts';
import { cpuMs } from '../support/cpuTime.ts';
import { makeRepo, type TempRepo } from '../support/gitRepo.ts';
import { input, signal, testDeps } from './input.ts';

const filler = (topic: string, n: number) =>
  Array.from({ length: n }, (_, i) => `- ${topic} note ${i}: keep the ${topic} steps in order and write them down.`);

const AGENTS = [
  '# AGENTS.md',
  '',
  'Guidance for coding agents working in this repository.',
  '',
  '## Development Commands',
  '',
  '- `pnpm vitest run` - run all tests',
  '- `pnpm vitest run <path> -t "<pattern>"` - run one test',
  '- `pnpm lint` - lint with biome',
  '',
  '## Cutting a release',
  '',
  'Only when the maintainer asks. Bump three files together:',
  '',
  '```bash',
  '# not a heading: a comment in a shell block',
  'git commit -m "<x.y.z>"',
  '```',
  ...filler('release', 25),
  '',
  '## Commenting on issues',
  '',
  ...filler('tone', 25),
  '',
  '### Declining a request',
  '',
  'Lead with the decision. RELEASE_TONE_MARKER',
  ...filler('decline', 10),
  '',
  '## Benchmarking traps',
  '',
  ...filler('benchmark', 25),
].join('\n');

describe('instructions: a long file by the sections the question is about', () => {
  let repo: TempRepo;
  const deps = testDeps();
  const source = createInstructionsSource({ ...deps, homeDir: '/nonexistent-home' }, new Workspaces(deps));
  const ask = async (text: string) => {
    const { items } = await source.collect(input(repo.dir, { text, wanted: ['instructions.'] }), signal);
    return items;
  };

  before(() => {
    repo = makeRepo({
      files: {
        'AGENTS.md': `${AGENTS}\n`,
        'pkg/AGENTS.md': `# pkg\n\n## Style\n\nShort file: PKG_STYLE_MARKER\n\n## Tests\n\nRun them often.\n`,
        'pkg/index.ts': 'export const x = 1;\n',
      },
    });
  });
  after(() => repo.cleanup());

  test('the file is long enough to be chosen from', () => {
    assert.ok(AGENTS.length > WHOLE_INSTRUCTION_CHARS);
  });

  test('how to run the tests: the commands section, not the release or the review tone; the rest named', async () => {
    const item = (await ask('How do I run the tests?')).find((i) => i.key === 'instructions.project.AGENTS.md');
    assert.ok(item);
    assert.match(item.text, /Guidance for coding agents/);
    assert.match(item.text, /pnpm vitest run <path> -t/);
    assert.doesNotMatch(item.text, /release note 3:/);
    assert.doesNotMatch(item.text, /tone note 3:/);
    // A heading-like comment inside a code block is no section.
    assert.match(
      item.text,
      /not about the question: Cutting a release; Commenting on issues; Declining a request; Benchmarking traps/,
    );
    assert.equal(item.truncated, true);
    assert.match(item.why ?? '', /1 of its 5 sections/);
  });

  test('a subsection chosen keeps its parent heading; a question about nothing in the file gets its head', async () => {
    const declining = (await ask('How should I go about declining a request?')).find((i) => i.path === 'AGENTS.md');
    assert.ok(declining);
    assert.match(declining.text, /## Commenting on issues\n\n### Declining a request/);
    assert.doesNotMatch(declining.text, /tone note 3:/);
    const unrelated = (await ask('What does parseInvoice return?')).find((i) => i.path === 'AGENTS.md');
    assert.ok(unrelated);
    assert.ok(unrelated.text.length < 700, unrelated.text);
    assert.match(unrelated.text, /5 more section\(s\)/);
  });

  test('a short file goes whole, whatever is asked', async () => {
    const item = (await ask('What does pkg/index.ts export?')).find((i) => i.path === 'pkg/AGENTS.md');
    assert.ok(item);
    assert.match(item.text, /PKG_STYLE_MARKER/);
    assert.match(item.text, /Run them often/);
    assert.equal(item.truncated, undefined);
  });
});

describe('a hostile instruction file', () => {
  // An instruction file is read up to 2 MB (syncRead.ts) before the sections are chosen: a file of hundreds of
  // thousands of headings, each a section the question's word is in, must neither throw (a spread of every
  // section's score into one call overflows the stack) nor go quadratic (each chosen section looking back over
  // all those before it for its parent).
  test('400,000 tiny sections, nested: an answer in linear time', async () => {
    const text = '# h\n## a\n'.repeat(200_000);
    const { ms, result } = await cpuMs(() => instructionSections(text, ['a'], 'AGENTS.md'));
    assert.ok(result);
    assert.ok(result.kept > 0 && result.kept < 1000, String(result.kept));
    assert.equal(result.of, 400_000);
    assert.match(result.text, /run `cat AGENTS.md` to see all/);
    // CPU time (cpuTime.ts): ~2 s on 1.8 MB of headings (splitting the lines dominates); a pass over all the
    // sections before each chosen one, or a map of every word per section, is what this bound is for.
    assert.ok(ms < 6000, `${ms} ms of CPU`);
  });

  test('one 2 MB line under a heading, and a 2 MB heading: cut, not sent whole', () => {
    const text = `# Tests\n${'x'.repeat(2_000_000)}\n# ${'y'.repeat(2_000_000)}\nrun tests\n`;
    const result = instructionSections(text, ['tests'], 'AGENTS.md');
    assert.ok(result);
    assert.ok(result.text.length < 10_000, String(result.text.length));
  });
});
