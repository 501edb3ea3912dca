// Tools a local model cannot run (any type but `function`: OpenAI's hosted
// tools, Codex's `namespace` groups, types not yet invented) are left out of
// what the model gets, with a warning, on both OpenAI routes; the function
// tools and the rest of the request go through, as they would to Ollama.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { type RunningProxy, startProxy } from '../support/proxy.ts';

const MODEL = 'qwen2.5-coder:7b';
const TOKEN = 'ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';

/** One of each kind an agent sends: OpenAI's hosted tools, a Codex namespace, a made-up type, one holding a secret. */
const HOSTED = [
  { type: 'web_search', external_web_access: false },
  { type: 'web_search_preview' },
  { type: 'file_search', vector_store_ids: ['vs_1'] },
  { type: 'computer_use_preview', display_width: 1024, display_height: 768, environment: 'linux' },
  { type: 'code_interpreter', container: { type: 'auto' } },
  { type: 'image_generation' },
  { type: 'mcp', server_label: 'deepwiki', server_url: 'https://example.invalid/mcp' },
  { type: 'local_shell' },
  { type: 'custom', name: 'apply_patch', description: 'freeform' },
  {
    type: 'namespace',
    name: 'multi_agent_v1',
    description: 'agents',
    tools: [{ type: 'function', name: 'spawn_agent', parameters: { type: 'object', properties: {} } }],
  },
  { type: 'shiny_tool_2031' },
  { type: TOKEN },
];
const HOSTED_NAMES = HOSTED.map((tool) => tool.type).filter((type) => type !== TOKEN);

let fake: FakeOllama;
let proxy: RunningProxy;

before(async () => {
  fake = await startFakeOllama();
  proxy = await startProxy({ upstreamUrl: fake.url });
});
after(async () => {
  await proxy.close();
  await fake.close();
});

const lastTools = () => (fake.chats.at(-1)?.body.tools ?? []) as { type: string; function: { name: string } }[];

function assertWarned(warning: string | null): void {
  assert.ok(warning, 'X-Ctx-Warning says what was left out');
  assert.match(warning, new RegExp(`left out ${HOSTED.length} tools a local model cannot run`));
  for (const name of HOSTED_NAMES) assert.ok(warning.includes(name), `the warning names ${name}`);
  assert.match(warning, /1 of another type/, 'a type that holds a secret is counted, not named');
  assert.ok(!warning.includes('ghp_'), 'no secret in the header');
}

describe('hosted tools', () => {
  test('/v1/responses: left out with a warning; the function tool reaches the model', async () => {
    const response = await fetch(`${proxy.baseURL}/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: MODEL,
        input: 'hello',
        tools: [
          { type: 'function', name: 'exec_command', parameters: { type: 'object', properties: {} }, strict: false },
          ...HOSTED,
        ],
        tool_choice: 'auto',
        include: ['reasoning.encrypted_content'],
        store: false,
        prompt_cache_key: 'session-1',
        reasoning: { summary: 'auto' },
        text: { verbosity: 'low' },
        client_metadata: { turn_id: 't1' },
      }),
    });
    assert.equal(response.status, 200, await response.clone().text());
    assertWarned(response.headers.get('x-ctx-warning'));
    assert.deepEqual(
      lastTools().map((tool) => [tool.type, tool.function.name]),
      [['function', 'exec_command']],
    );
    const snapshot = await proxy.snapshotOf(response);
    assert.ok(snapshot.warnings.some((w) => w.startsWith(`left out ${HOSTED.length} tools`)));
    assert.ok(!JSON.stringify(snapshot).includes('ghp_'), 'the audit log holds no secret');
  });

  test('/v1/chat/completions: the same, with a tool_choice naming a hosted tool', async () => {
    const response = await fetch(`${proxy.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: MODEL,
        messages: [{ role: 'user', content: 'hello' }],
        tools: [{ type: 'function', function: { name: 'read', parameters: { type: 'object' } } }, ...HOSTED],
        tool_choice: { type: 'web_search' },
        parallel_tool_calls: true,
        stream_options: { include_usage: true },
        stream: true,
        max_tokens: 1000,
      }),
    });
    assert.equal(response.status, 200);
    await response.text();
    assertWarned(response.headers.get('x-ctx-warning'));
    assert.deepEqual(
      lastTools().map((tool) => tool.function.name),
      ['read'],
    );
  });

  test('only hosted tools: the request goes through with no tools at all', async () => {
    const response = await fetch(`${proxy.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: MODEL,
        messages: [{ role: 'user', content: 'hi' }],
        tools: [{ type: 'web_search' }],
      }),
    });
    assert.equal(response.status, 200);
    assert.equal(fake.chats.at(-1)?.body.tools, undefined);
    assert.match(
      response.headers.get('x-ctx-warning') ?? '',
      /left out 1 tool a local model cannot run \(web_search\)/,
    );
  });

  test('a function tool without its function is still a 400', async () => {
    const response = await fetch(`${proxy.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: MODEL,
        messages: [{ role: 'user', content: 'hi' }],
        tools: [{ type: 'function' }],
      }),
    });
    assert.equal(response.status, 400);
  });
});
