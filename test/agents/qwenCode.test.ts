// Qwen Code (`qwen -p`), pinned in test/agents/package.json, with
// docs/clients.md's settings.json: chat completions with `max_tokens: 32768` (the
// whole window of a 32k model), `stream_options`, a ~25k-character system
// prompt, the user turn as several text parts, and its function tools.

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

let scene: AgentScene;
before(async () => {
  scene = await startAgentScene();
});
after(() => scene.close());

function qwen(prompt: string, extra: string[] = []) {
  const home = scene.home();
  writeConfig(home, '.qwen/settings.json', scene.snippet('**Qwen Code**'));
  return scene.run('qwen', [...extra, '-p', prompt], { home, env: { OPENAI_API_KEY: 'local' } });
}

describe('Qwen Code through ctxproxy', () => {
  test('a plain turn: answered, with the context and the secret masked; max_tokens 32768 lowered to fit', async () => {
    const run = await qwen(`Which branch am I on? My token is ${SECRET}`);
    assertAnswered(run, PLAIN_ANSWER);
    assertContext(run);
    assertMasked(run);
    const turn = run.chats.find((chat) => Array.isArray(chat.body.tools));
    assert.ok(turn, 'Qwen Code offered its tools');
    const options = turn.body.options as { num_predict?: number; num_ctx: number };
    assert.ok((options.num_predict ?? 0) > 0 && (options.num_predict ?? 0) < 32768, 'the reply limit fits the window');
    assert.ok(options.num_ctx <= 32768);
  });

  test('a tool-call round trip: the model calls read_file, Qwen Code runs it, the result comes back', async () => {
    const run = await qwen(`${READ_REQUEST} and tell me what it says.`);
    assertAnswered(run, TOOL_DONE);
    assertToolRoundTrip(run);
    assertMasked(run);
  });

  test('a +off turn: answered, no context, the model name without its suffix', async () => {
    const run = await qwen(`Say hello. ${SECRET}`, ['-m', `${MODEL}+off`]);
    assertAnswered(run, PLAIN_ANSWER);
    assertNoContext(run);
    assertMasked(run);
  });
});
