// Stage 1, select, through runPipeline with the real stages: the mode a user
// asks for wins in the documented order (header, `+mode` suffix, `/mode` line,
// server setting), what picked it is stripped before forwarding, and the
// workspace header is checked against the allowed roots through deps.fs.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BadRequestError } from '../../src/shared/errors.ts';
import { makeDir, makeRepo, type TempDir, type TempRepo } from '../support/gitRepo.ts';
import { type Harness, onlySnapshot, pipelineHarness, text } from './stageHarness.ts';

let repo: TempRepo;
let pipeline: Harness;

before(async () => {
  repo = makeRepo({ files: { 'README.md': '# Demo\n' } });
  pipeline = await pipelineHarness({ workspace: repo.dir, settings: { mode: 'quick' } });
});
after(() => repo.cleanup());

const ask = (content: string) => ({ messages: [{ role: 'user' as const, content }] });

describe('select: the mode', () => {
  test('the X-Ctx-Mode header beats a +mode suffix, which beats a /mode line, which beats the server setting', async () => {
    const all = await pipeline.chat({ model: 'qwen2.5-coder:7b+debug', ...ask('/mode deep\nhi') }, { mode: 'off' });
    assert.equal(all.snapshot.modeAsked, 'off');
    const suffix = await pipeline.chat({ model: 'qwen2.5-coder:7b+off', ...ask('/mode deep\nhi') });
    assert.equal(suffix.snapshot.modeAsked, 'off');
    const line = await pipeline.chat(ask('/mode off\nhi'));
    assert.equal(line.snapshot.modeAsked, 'off');
    const server = await pipeline.chat(ask('hi'));
    assert.equal(server.snapshot.modeAsked, 'quick');
    assert.equal(server.result.modeUsed, 'quick');
  });

  test('the model is asked for without its +mode suffix, and the /mode line is not forwarded', async () => {
    await pipeline.chat({ model: 'qwen2.5-coder:7b+off', ...ask('/mode off\nwhat changed?') });
    const sent = pipeline.upstream.sent.at(-1)?.request;
    assert.equal(sent?.model, 'qwen2.5-coder:7b');
    assert.deepEqual(
      sent?.messages.map((m) => text(m)),
      ['what changed?'],
    );
  });

  test('an unknown mode is a 400 naming where it was given, and the failed request is still in the log', async () => {
    const harness = await pipelineHarness({ workspace: repo.dir });
    await assert.rejects(
      () => harness.chat(ask('/mode turbo\nhi')),
      (error: unknown) =>
        error instanceof BadRequestError && error.code === 'invalid_mode' && /\/mode turbo/.test(error.message),
    );
    const snapshot = onlySnapshot(harness.store);
    assert.equal(snapshot.outcome, 'error');
    assert.equal(snapshot.error?.code, 'invalid_mode');
    assert.equal(harness.upstream.sent.length, 0, 'nothing went to the model');
  });
});

describe('select: the workspace', () => {
  let other: TempDir;
  before(() => {
    other = makeDir({ 'notes.md': 'x\n' });
  });
  after(() => other.cleanup());

  test('X-Ctx-Workspace outside the allowed roots is refused; inside, it is where the context comes from', async () => {
    const refused = await pipelineHarness({ workspace: repo.dir });
    await assert.rejects(
      () => refused.chat(ask('hi'), { workspace: other.dir }),
      (error: unknown) => error instanceof BadRequestError && error.code === 'workspace_not_allowed',
    );
    const allowed = await pipelineHarness({ workspace: repo.dir, settings: { allowedRoots: [other.dir] } });
    const { snapshot } = await allowed.chat(ask('hi'), { workspace: other.dir });
    assert.equal(snapshot.workspace, other.dir);
  });

  test('the check reads the file system through deps.fs', async () => {
    // A file system where /virtual/ws exists only as the fake says: no real folder is touched.
    const seen: string[] = [];
    const harness = await pipelineHarness({
      workspace: repo.dir,
      settings: { allowedRoots: ['/virtual'] },
      overrides: {
        fs: {
          realpath: (path) => {
            seen.push(path);
            return path;
          },
          isDirectory: (path) => path === '/virtual/ws',
        },
      },
    });
    const { snapshot } = await harness.chat(ask('hi'), { mode: 'off', workspace: '/virtual/ws' });
    assert.equal(snapshot.workspace, '/virtual/ws');
    assert.ok(seen.includes('/virtual/ws'));
    await assert.rejects(
      () => harness.chat(ask('hi'), { mode: 'off', workspace: '/virtual/file.txt' }),
      (error: unknown) => error instanceof BadRequestError && error.code === 'invalid_workspace',
    );
  });
});
