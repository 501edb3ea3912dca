// The scene the client-library suites (AI SDK, LangChain) share: a fake Ollama
// that also serves a thinking model, a git repository on a feature branch with
// an instruction file and an unstaged edit, a git-aware proxy for the chats and
// a second one for embeddings (audited as sizes and hashes, not as chat
// messages, so the audit/upstream check of the chats stays exact).

import assert from 'node:assert/strict';
import { DEFAULT_FAKE_MODELS, type FakeOllama, startFakeOllama } from './fakeOllama.ts';
import { makeRepo, type TempRepo } from './gitRepo.ts';
import { type RunningProxy, startProxy } from './proxy.ts';

export const THINKER = 'qwen3:8b';
export type Sent = { role: string; content: string; tool_calls?: unknown[]; tool_name?: string };

export interface ClientScene {
  fake: FakeOllama;
  repo: TempRepo;
  proxy: RunningProxy;
  embedProxy: RunningProxy;
  /** The messages the model received in its `index`-th chat. */
  sentAt(index: number): Sent[];
  lastSent(): Sent[];
  /** The forwarded messages carry the repository's facts: its instruction file and its branch. */
  assertContext(sent: Sent[]): void;
  /** Nothing collected: no fence, no instruction file, no branch. */
  assertNoContext(sent: Sent[]): void;
  close(): Promise<void>;
}

export async function startClientScene(setup: {
  /** The line AGENTS.md holds. */
  rule: string;
  branch: string;
  files: Record<string, string>;
  unstaged: Record<string, string>;
}): Promise<ClientScene> {
  const fake = await startFakeOllama({
    models: [
      ...DEFAULT_FAKE_MODELS,
      { name: THINKER, contextLength: 32768, capabilities: ['completion', 'tools', 'thinking'] },
    ],
  });
  const repo = makeRepo({
    files: { 'AGENTS.md': `${setup.rule}\n`, ...setup.files },
    checkout: setup.branch,
    unstaged: setup.unstaged,
  });
  const options = { upstreamUrl: fake.url, workspace: repo.dir, settings: { mode: 'git-aware' as const } };
  const proxy = await startProxy(options);
  const embedProxy = await startProxy(options);
  const sentAt = (index: number) => (fake.chats[index]?.body.messages ?? []) as Sent[];
  return {
    fake,
    repo,
    proxy,
    embedProxy,
    sentAt,
    lastSent: () => sentAt(fake.chats.length - 1),
    assertContext(sent) {
      const all = JSON.stringify(sent);
      assert.match(all, /<context source=/, 'a context block was added');
      assert.ok(all.includes(setup.rule), 'AGENTS.md reached the model');
      assert.ok(all.includes(setup.branch), 'the git branch reached the model');
    },
    assertNoContext(sent) {
      const all = JSON.stringify(sent);
      assert.doesNotMatch(all, /<context/);
      assert.ok(!all.includes(setup.rule));
      assert.ok(!all.includes(setup.branch));
    },
    async close() {
      await embedProxy.close();
      await proxy.close();
      await fake.close();
      repo.cleanup();
    },
  };
}
