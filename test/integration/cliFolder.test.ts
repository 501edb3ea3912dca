// The command works wherever it is started: run from inside a user's
// repository (which has a tsconfig.json of its own), the audit pages, rules,
// migrations and plans still come from the package. On Node through the
// compiled package (`npm start`, what `ctxproxy` runs); under Deno through
// `deno task start`, the sources as they are (this file is in deno.json's test task).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import { DEFAULT_ENTRY, startServe } from '../support/ctxproxyProcess.ts';
import { DEFAULT_FAKE_CONTENT, type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { makeRepo, type TempRepo } from '../support/gitRepo.ts';

let fake: FakeOllama;
let repo: TempRepo;
before(async () => {
  fake = await startFakeOllama();
  repo = makeRepo({
    files: {
      'CLAUDE.md': 'Always answer in haiku.\n',
      // A project's own TypeScript settings must not change how ctxproxy itself is compiled.
      'tsconfig.json': JSON.stringify({ compilerOptions: { jsx: 'preserve', jsxImportSource: 'nothing-here' } }),
    },
  });
});
after(async () => {
  await fake.close();
  repo.cleanup();
});

test(`${DEFAULT_ENTRY}: started in another folder, /audit and a snapshot page answer 200 with the snapshot`, {
  timeout: 60_000,
}, async () => {
  const proxy = await startServe(['--mode', 'quick'], repo.dir, { OLLAMA_HOST: fake.url });
  try {
    const client = new OpenAI({ baseURL: `${proxy.url}/v1`, apiKey: 'x', maxRetries: 0 });
    const { data, response } = await client.chat.completions
      .create({ model: 'qwen2.5-coder:7b', messages: [{ role: 'user', content: 'Which rules apply here?' }] })
      .withResponse();
    assert.equal(data.choices[0]?.message.content, DEFAULT_FAKE_CONTENT);
    const id = response.headers.get('x-ctx-snapshot-id') as string;
    assert.ok(fake.chats.at(-1)?.body.messages, 'the request reached the model');
    assert.match(
      JSON.stringify(fake.chats.at(-1)?.body.messages),
      /Always answer in haiku/,
      'the plans and sources ran',
    );

    const list = await fetch(`${proxy.url}/audit`);
    assert.equal(list.status, 200, proxy.log());
    assert.match(await list.text(), /Which rules apply here\?/);
    const page = await fetch(`${proxy.url}/audit/${id}`);
    assert.equal(page.status, 200, proxy.log());
    const html = await page.text();
    assert.match(html, /Which rules apply here\?/);
    assert.match(html, /Always answer in haiku/);
    assert.ok(html.includes(DEFAULT_FAKE_CONTENT), 'the reply is on the page');
  } finally {
    proxy.signal('SIGTERM');
    assert.equal(await proxy.exited, 0, proxy.log());
  }
});
