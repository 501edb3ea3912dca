// A stage replaced through deps.stages is the one runPipeline calls, and the
// stages after it still do their work on its result: a custom collect's items
// are redacted, budgeted and fenced like the real sources'.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { defaultStages } from '../../src/pipeline/defaultDeps.ts';
import type { Collected } from '../../src/pipeline/types.ts';
import { githubToken, seededRng } from '../redact/secretGen.ts';
import { makeRepo, type TempRepo } from '../support/gitRepo.ts';
import { pipelineHarness } from './stageHarness.ts';

const token = githubToken(seededRng(7), 'ghp');
let repo: TempRepo;
before(() => {
  repo = makeRepo({ files: { 'README.md': '# Demo\n' } });
});
after(() => repo.cleanup());

test('a custom collect replaces the sources; its items are still redacted and fenced in the block', async () => {
  const custom = async (): Promise<Collected> => ({
    items: [
      {
        key: 'git.status',
        source: 'git',
        title: 'ticket',
        text: `Ticket 42: the deploy key ${token} leaked`,
        priority: 5,
        kind: 'text',
      },
    ],
    reports: [{ source: 'git', status: 'ok', ms: 0, items: 1, chars: 10, skipped: [] }],
    ms: 0,
    window: { tokens: 32768, assumed: false },
  });
  const pipeline = await pipelineHarness({ workspace: repo.dir, stages: { collect: custom } });
  const { snapshot } = await pipeline.chat({ messages: [{ role: 'user', content: 'status?' }] }, { mode: 'git-aware' });
  const block = snapshot.contextBlock ?? '';
  assert.match(
    block,
    /<context source="git\.status" title="ticket">\nTicket 42: the deploy key \[REDACTED:[\w-]+\] leaked/,
  );
  assert.ok(!JSON.stringify(pipeline.upstream.sent).includes(token));
  assert.equal(snapshot.sources[0]?.source, 'git');
});

test('every stage is called through deps.stages, in order', async () => {
  const calls: string[] = [];
  const watched = Object.fromEntries(
    Object.entries(defaultStages).map(([name, stage]) => [
      name,
      (...args: unknown[]) => {
        calls.push(name);
        return (stage as (...a: unknown[]) => unknown)(...args);
      },
    ]),
  );
  const pipeline = await pipelineHarness({ workspace: repo.dir, stages: watched });
  await pipeline.chat({ messages: [{ role: 'user', content: 'hi' }] });
  assert.deepEqual(calls, ['select', 'collect', 'redact', 'budget', 'assemble', 'forward', 'record']);
});
