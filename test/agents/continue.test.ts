// Continue's CLI (`cn -p`), pinned in test/agents/package.json, with
// docs/clients.md's config.yaml (the current CLI requires its `name`, `version` and
// `schema`): chat completions with `stream_options` and its function tools
// (Read, List, Bash …).

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

/** The docs/clients.md's config; `model` swapped for a `+mode` variant, as docs/clients.md says to add one. */
function cn(prompt: string, model = MODEL) {
  const home = scene.home();
  const config = scene.snippet('**Continue**').replace(`model: ${MODEL}\n`, `model: ${model}\n`);
  const file = writeConfig(home, '.continue/config.yaml', config);
  return scene.run('cn', ['-p', prompt, '--config', file], { home });
}

describe('Continue CLI through ctxproxy', () => {
  test('a plain turn: answered, with the context and the secret masked', async () => {
    const run = await cn(`Which branch am I on? My token is ${SECRET}`);
    assertAnswered(run, PLAIN_ANSWER);
    assertContext(run);
    assertMasked(run);
  });

  test('a tool-call round trip: the model calls Read, cn runs it, the result comes back', async () => {
    const run = await cn(`${READ_REQUEST} and tell me what it says.`);
    assertAnswered(run, TOOL_DONE);
    assertToolRoundTrip(run);
    assertMasked(run);
  });

  test('a +off turn: answered, no context, the model name without its suffix', async () => {
    const run = await cn(`Say hello. ${SECRET}`, `${MODEL}+off`);
    assertAnswered(run, PLAIN_ANSWER);
    assertNoContext(run);
    assertMasked(run);
  });
});
