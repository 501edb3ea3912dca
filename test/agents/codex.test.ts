// Codex CLI (`codex exec`), pinned in test/agents/package.json, with
// docs/clients.md's config.toml and nothing else: its Responses requests carry
// developer messages, `include`, `reasoning`, `store: false`,
// `prompt_cache_key`, client metadata, function tools and two tools a local
// model cannot run (`namespace`, `web_search`), which ctxproxy leaves out.

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

function codex(prompt: string, extra: string[] = []) {
  const home = scene.home();
  writeConfig(home, '.codex/config.toml', scene.snippet('**Codex CLI**'));
  return scene.run('codex', ['exec', ...extra, prompt], {
    home,
    env: { CODEX_HOME: `${home}/.codex` },
  });
}

describe('Codex CLI through ctxproxy', () => {
  test('a plain turn: answered, with the context, the secret masked, the hosted tools left out', async () => {
    const run = await codex(`Which branch am I on? My token is ${SECRET}`);
    assertAnswered(run, PLAIN_ANSWER);
    assertContext(run);
    assertMasked(run);
    const turn = run.chats.find((chat) => Array.isArray(chat.body.tools));
    assert.ok(turn, 'Codex offered its tools');
    const tools = turn.body.tools as { type: string; function: { name: string } }[];
    assert.ok(
      tools.length > 0 && tools.every((tool) => tool.type === 'function'),
      'only function tools reach the model',
    );
    assert.ok(tools.some((tool) => tool.function.name === 'exec_command'));
    const messages = JSON.stringify(turn.body.messages);
    assert.ok(!messages.includes('"developer"'), 'developer messages arrive as system');
  });

  test('a tool-call round trip: the model calls exec_command, Codex runs it, the result comes back', async () => {
    const run = await codex(`${READ_REQUEST} and tell me what it says.`);
    assertAnswered(run, TOOL_DONE);
    assertToolRoundTrip(run);
    assertMasked(run);
  });

  test('a +off turn: answered, no context, the model name without its suffix', async () => {
    const run = await codex(`Say hello. ${SECRET}`, ['-m', `${MODEL}+off`]);
    assertAnswered(run, PLAIN_ANSWER);
    assertNoContext(run);
    assertMasked(run);
  });
});
