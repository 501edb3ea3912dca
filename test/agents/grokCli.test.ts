// Grok CLI (`grok -p`, @vibe-kit/grok-cli), pinned in test/agents/package.json,
// with docs/clients.md's user-settings.json: chat completions through the openai
// SDK, streamed, with its system prompt and function tools (bash, view_file,
// create_file, …); it reads a file with its bash tool's `cat`.

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

function grok(prompt: string, model = MODEL) {
  const home = scene.home();
  writeConfig(home, '.grok/user-settings.json', scene.snippet('**Grok CLI**'));
  return scene.run('grok', ['--model', model, '-p', prompt], { home });
}

describe('Grok CLI through ctxproxy', () => {
  test('a plain turn: answered, with the context and the secret masked', async () => {
    const run = await grok(`Which branch am I on? My token is ${SECRET}`);
    assertAnswered(run, PLAIN_ANSWER);
    assertContext(run);
    assertMasked(run);
  });

  test('a tool-call round trip: the model calls bash, Grok CLI runs it, the result comes back', async () => {
    const run = await grok(`${READ_REQUEST} and tell me what it says.`);
    assertAnswered(run, TOOL_DONE);
    assertToolRoundTrip(run);
    assertMasked(run);
  });

  test('a +off turn: answered, no context', async () => {
    const run = await grok(`Say hello. ${SECRET}`, `${MODEL}+off`);
    assertAnswered(run, PLAIN_ANSWER);
    assertNoContext(run);
    assertMasked(run);
  });
});
