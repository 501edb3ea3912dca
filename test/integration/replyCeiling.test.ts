// The client's max tokens is a ceiling for the reply, not a claim on the
// window: agents ask for far more than a local model has (Qwen Code sends
// max_tokens 32768 to a 32k model, opencode 32000 to any). The prompt is
// fitted first; the upstream's output limit becomes what is left, and the
// warning says so. Only a prompt that cannot fit at all is refused, with the
// status and code clients treat as final (400 context_length_exceeded).

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { makeRepo, type TempRepo } from '../support/gitRepo.ts';
import { type RunningProxy, startProxy } from '../support/proxy.ts';

const MODELS = [
  { name: 'small:8k', contextLength: 8192 },
  { name: 'mid:32k', contextLength: 32768 },
  { name: 'large:128k', contextLength: 131072 },
];
const WORDS = 'the parser fails on an empty file so check the input first and report a clear error'.split(' ');
/** About `tokens` tokens of plain English. */
const prose = (tokens: number) => Array.from({ length: tokens }, (_, i) => WORDS[i % WORDS.length]).join(' ');

let fake: FakeOllama;
let repo: TempRepo;
let proxy: RunningProxy;

before(async () => {
  fake = await startFakeOllama({ models: MODELS });
  repo = makeRepo({ files: { 'AGENTS.md': 'Run npm test before you commit.\n', 'src/a.ts': 'export const a = 1;\n' } });
  proxy = await startProxy({ upstreamUrl: fake.url, workspace: repo.dir, settings: { mode: 'git-aware' } });
});
after(async () => {
  await proxy.close();
  await fake.close();
  repo.cleanup();
});

type Options = { num_ctx: number; num_predict?: number };
const lastOptions = () => fake.chats.at(-1)?.body.options as Options;

describe('the reply reserve is a ceiling', () => {
  test('every large ask on every window is answered, with num_predict lowered to what the window leaves', async () => {
    for (const model of MODELS) {
      const window = model.contextLength;
      // A prompt of about 40% of the window: it fits, but not next to a reply of the size asked.
      for (const ask of [window, window + 1000, 4 * window]) {
        const { data, response } = await proxy
          .client()
          .chat.completions.create({
            model: model.name,
            max_tokens: ask,
            messages: [
              { role: 'system', content: prose(Math.floor(window * 0.3)) },
              { role: 'user', content: prose(Math.floor(window * 0.1)) },
            ],
          })
          .withResponse();
        assert.equal(data.choices[0]?.finish_reason, 'stop');
        const options = lastOptions();
        assert.ok(options.num_ctx <= window, `num_ctx ${options.num_ctx} within the ${window}-token window`);
        const limit = options.num_predict ?? 0;
        assert.ok(limit > 0 && limit < ask, `num_predict ${limit} lowered from ${ask}`);
        const snapshot = await proxy.snapshotOf(response);
        const prompt = (snapshot.budget?.conversationTokens ?? 0) + (snapshot.budget?.contextTokens ?? 0);
        assert.ok(
          prompt + limit <= options.num_ctx,
          `prompt ~${prompt} + reply ${limit} fit num_ctx ${options.num_ctx}`,
        );
        assert.equal(snapshot.budget?.outputLimit, limit);
        const warning = response.headers.get('x-ctx-warning') ?? '';
        assert.match(
          warning,
          new RegExp(`max_tokens ${ask} lowered to ${limit}\\b`),
          'the warning names the new limit',
        );
        assert.ok(JSON.stringify(fake.chats.at(-1)?.body).includes('Run npm test before you commit.'), 'context sent');
      }
    }
  });

  test('Qwen Code on a 32k model: max_tokens 32768 with a ~15k-token prompt is answered', async () => {
    const response = await fetch(`${proxy.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'mid:32k',
        max_tokens: 32768,
        stream: true,
        stream_options: { include_usage: true },
        messages: [
          { role: 'system', content: prose(9000) },
          { role: 'user', content: [{ type: 'text', text: prose(6000) }] },
        ],
      }),
    });
    assert.equal(response.status, 200);
    await response.text();
    assert.ok((lastOptions().num_predict ?? 0) < 32768);
  });

  test('the Responses API max_output_tokens is lowered the same way', async () => {
    const { response } = await proxy
      .client()
      .responses.create({ model: 'small:8k', max_output_tokens: 32000, input: prose(2000) })
      .withResponse();
    const limit = lastOptions().num_predict ?? 0;
    assert.ok(limit > 0 && limit < 8192 - 2000);
    assert.match(response.headers.get('x-ctx-warning') ?? '', new RegExp(`max_tokens 32000 lowered to ${limit}\\b`));
  });

  test('an ask the window has room for is forwarded as it is, without a warning about it', async () => {
    const { response } = await proxy
      .client()
      .chat.completions.create({ model: 'mid:32k', max_tokens: 2000, messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    assert.equal(lastOptions().num_predict, 2000);
    assert.doesNotMatch(response.headers.get('x-ctx-warning') ?? '', /lowered/);
  });

  test('a prompt that cannot fit is a final 400 context_length_exceeded: the SDK does not retry it', async () => {
    await proxy.store.flush();
    const before = [...proxy.store.export()].length;
    const chats = fake.chats.length;
    const error = await proxy
      .client({ maxRetries: 3 })
      .chat.completions.create({
        model: 'small:8k',
        max_tokens: 32000,
        messages: [{ role: 'user', content: prose(9000) }],
      })
      .catch((e: unknown) => e);
    assert.ok(error instanceof OpenAI.BadRequestError);
    assert.equal(error.status, 400);
    assert.equal(error.code, 'context_length_exceeded');
    assert.match(error.message, /needs ~\d+ tokens/);
    await proxy.store.flush();
    assert.equal([...proxy.store.export()].length, before + 1, 'one request, one snapshot: no retry');
    assert.equal(fake.chats.length, chats, 'nothing reached the model');
  });
});
