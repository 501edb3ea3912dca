// opencode (`opencode run`), pinned in test/agents/package.json, with
// docs/clients.md's opencode.json: chat completions through the AI SDK's
// openai-compatible provider, `max_tokens: 32000` whatever the model,
// `stream_options`, a title request without tools, then the turn with its
// function tools (bash, read …).

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  type AgentScene,
  assertAnswered,
  assertContext,
  assertMasked,
  assertNoContext,
  assertToolRoundTrip,
  MODEL,
  PLAIN_ANSWER,
  READ_REQUEST,
  SECRET,
  startAgentScene,
  TOOL_DONE,
  writeConfig,
} from './agentScene.ts';

/** The fake's 8,192-token model. */
const SMALL = 'llama3.2:3b';

let scene: AgentScene;
before(async () => {
  scene = await startAgentScene();
});
after(() => scene.close());

function opencode(prompt: string, extra: string[] = []) {
  const home = scene.home();
  writeConfig(home, '.config/opencode/opencode.json', scene.snippet('**opencode**'));
  // Offline: no download of the models.dev catalogue, no update check (opencode's own switches).
  return scene.run('opencode', ['run', ...extra, prompt], {
    home,
    env: { OPENCODE_DISABLE_MODELS_FETCH: '1', OPENCODE_DISABLE_AUTOUPDATE: '1' },
  });
}

describe('opencode through ctxproxy', () => {
  test('a plain turn: answered, with the context and the secret masked; max_tokens 32000 lowered to fit', async () => {
    const run = await opencode(`Which branch am I on? My token is ${SECRET}`);
    assertAnswered(run, PLAIN_ANSWER);
    assertContext(run);
    assertMasked(run);
    const turn = run.chats.find((chat) => Array.isArray(chat.body.tools));
    assert.ok(turn, 'opencode offered its tools');
    const predict = (turn.body.options as { num_predict?: number; num_ctx: number }).num_predict ?? 0;
    assert.ok(predict > 0 && predict < 32000, `num_predict ${predict} is what the 32k window leaves`);
  });

  test('a tool-call round trip: the model calls read, opencode runs it, the result comes back', async () => {
    const run = await opencode(`${READ_REQUEST} and tell me what it says.`);
    assertAnswered(run, TOOL_DONE);
    assertToolRoundTrip(run);
    assertMasked(run);
  });

  test('a +off turn: answered, no context, the model name without its suffix', async () => {
    const run = await opencode(`Say hello. ${SECRET}`, ['-m', `ctxproxy/${MODEL}+off`]);
    assertAnswered(run, PLAIN_ANSWER);
    assertNoContext(run);
    assertMasked(run);
  });

  test('a prompt no window can hold is final: opencode stops at once instead of retrying', async () => {
    const home = scene.home();
    const config = JSON.parse(scene.snippet('**opencode**'));
    config.provider.ctxproxy.models[SMALL] = {};
    writeConfig(home, '.config/opencode/opencode.json', JSON.stringify(config));
    await scene.proxy.store.flush();
    const before = new Set([...scene.proxy.store.export()].map((snapshot) => snapshot.id));
    const huge = Array.from({ length: 12_000 }, (_, i) => `word${i % 50}`).join(' ');
    const run = await scene.run('opencode', ['run', '-m', `ctxproxy/${SMALL}`, `Summarize: ${huge}`], {
      home,
      env: { OPENCODE_DISABLE_MODELS_FETCH: '1', OPENCODE_DISABLE_AUTOUPDATE: '1' },
    });
    assert.notEqual(run.code, 0, 'opencode reports the failure');
    assert.match(run.stdout + run.stderr, /Your latest message \(~\d+ tokens\) does not fit this model/);
    await scene.proxy.store.flush();
    const refused = [...scene.proxy.store.export()].filter((snapshot) => !before.has(snapshot.id));
    // Its title request, the turn, and one attempt to compact the conversation: each refused, then it stops.
    assert.ok(refused.length <= 3, `${refused.length} requests`);
    assert.ok(refused.every((snapshot) => snapshot.error?.code === 'context_length_exceeded'));
    assert.equal(run.chats.length, 0, 'nothing reached the model');
  });
});
