// pi (`pi -p`, @mariozechner/pi-coding-agent), pinned in test/agents/package.json,
// with docs/clients.md's models.json: chat completions with `stream: true`,
// `stream_options`, its own system prompt and function tools (read, bash,
// edit, write).

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

function pi(prompt: string, model = MODEL) {
  const home = scene.home();
  writeConfig(home, '.pi/agent/models.json', scene.snippet('**pi**'));
  return scene.run('pi', ['--provider', 'ctxproxy', '--model', model, '-p', prompt], { home });
}

describe('pi through ctxproxy', () => {
  test('a plain turn: answered, with the context and the secret masked', async () => {
    const run = await pi(`Which branch am I on? My token is ${SECRET}`);
    assertAnswered(run, PLAIN_ANSWER);
    assertContext(run);
    assertMasked(run);
  });

  test('a tool-call round trip: the model calls read, pi runs it, the result comes back', async () => {
    const run = await pi(`${READ_REQUEST} and tell me what it says.`);
    assertAnswered(run, TOOL_DONE);
    assertToolRoundTrip(run);
    assertMasked(run);
  });

  test('a +off turn: answered, no context', async () => {
    const run = await pi(`Say hello. ${SECRET}`, `${MODEL}+off`);
    assertAnswered(run, PLAIN_ANSWER);
    assertNoContext(run);
    assertMasked(run);
  });
});
