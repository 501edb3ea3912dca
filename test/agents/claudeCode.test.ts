// Claude Code (`claude -p`), pinned in test/agents/package.json, with
// docs/clients.md's environment variables and nothing else: Anthropic's Messages API on /v1/messages
// (`?beta=true`), system prompt as text blocks with cache_control, the user
// turn as several text blocks (its system reminders), its own function tools
// (Read with `file_path`, Bash …) and tool_use / tool_result blocks.

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
} from './agentScene.ts';

let scene: AgentScene;
before(async () => {
  scene = await startAgentScene();
});
after(() => scene.close());

/** The docs/clients.md's `export NAME=value` lines, as an environment (comments and quotes dropped). */
function snippetEnv(snippet: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of snippet.split('\n')) {
    const match = /^export\s+([A-Z_]+)=("[^"]*"|\S*)/.exec(line.trim());
    if (match) env[match[1]!] = match[2]!.replace(/^"(.*)"$/, '$1');
  }
  return env;
}

function claude(prompt: string, extra: string[] = []) {
  const env = snippetEnv(scene.snippet('**Claude Code**'));
  assert.match(env.ANTHROPIC_BASE_URL ?? '', /^http:\/\/127\.0\.0\.1:\d+$/, 'docs/clients.md sets ANTHROPIC_BASE_URL');
  return scene.run('claude', ['-p', prompt, ...extra], {
    home: scene.home(),
    env,
  });
}

describe('Claude Code through ctxproxy', () => {
  test('a plain turn: answered, with the context and the secret masked', async () => {
    const run = await claude(`Which branch am I on? My token is ${SECRET}`);
    assertAnswered(run, PLAIN_ANSWER);
    assertContext(run);
    assertMasked(run);
    const turn = run.chats.find((chat) => Array.isArray(chat.body.tools));
    assert.ok(turn, 'Claude Code offered its tools');
    const tools = turn.body.tools as { type: string; function: { name: string } }[];
    assert.ok(tools.some((tool) => tool.function.name === 'Read'));
  });

  test('a tool-call round trip: the model calls Read, Claude Code runs it, the result comes back', async () => {
    const run = await claude(`${READ_REQUEST} and tell me what it says.`);
    assertAnswered(run, TOOL_DONE);
    assertToolRoundTrip(run);
    assertMasked(run);
  });

  test('a +off turn: answered, no context, the model name without its suffix', async () => {
    const run = await claude(`Say hello. ${SECRET}`, ['--model', `${MODEL}+off`]);
    assertAnswered(run, PLAIN_ANSWER);
    assertNoContext(run);
    assertMasked(run);
  });
});
