// Issue 17's endpoints through the real server with the real `openai` client:
// GET /v1/models/{id}, POST /v1/embeddings, POST /v1/completions, GET /.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { DEFAULT_FAKE_CONTENT, type FakeOllama, fakeEmbedding, startFakeOllama } from '../support/fakeOllama.ts';
import { type RunningProxy, startProxy } from '../support/proxy.ts';

const MODEL = 'qwen2.5-coder:7b';
const TOKEN = 'ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
let fake: FakeOllama;
let proxy: RunningProxy;
let client: OpenAI;

before(async () => {
  fake = await startFakeOllama();
  proxy = await startProxy({ upstreamUrl: fake.url });
  client = proxy.client();
});
after(async () => {
  await proxy.close();
  await fake.close();
});

async function snapshotOf(id: string | null) {
  assert.ok(id, 'the response names its snapshot');
  await proxy.store.flush();
  const snapshot = proxy.store.get(id);
  assert.ok(snapshot, `snapshot ${id} was written`);
  return snapshot;
}

test('an idle connection stays open a minute, longer than the clients keep one (Keep-Alive: timeout=65)', async () => {
  // Node's own 5 s raced clients that keep idle connections 5 s (httpx) or for ever (urllib3).
  const response = await fetch(`${proxy.url}/v1/models`);
  await response.arrayBuffer();
  assert.equal(response.headers.get('keep-alive'), 'timeout=65');
});

describe('GET /v1/models/{id}', () => {
  test('client.models.retrieve finds a model and its +mode names', async () => {
    const model = await client.models.retrieve(MODEL);
    assert.deepEqual(
      { id: model.id, object: model.object, owned_by: model.owned_by },
      {
        id: MODEL,
        object: 'model',
        owned_by: 'ollama',
      },
    );
    const deep = await client.models.retrieve(`${MODEL}+deep`);
    assert.equal(deep.id, `${MODEL}+deep`);
  });

  test('an unknown model is a 404 in OpenAI’s shape', async () => {
    await assert.rejects(client.models.retrieve('nope:1b'), (error: unknown) => {
      assert.ok(error instanceof OpenAI.NotFoundError);
      assert.match(error.message, /nope:1b.*ollama pull nope:1b/);
      assert.equal((error.error as { type?: string }).type, 'invalid_request_error');
      return true;
    });
    await assert.rejects(client.models.retrieve(`${MODEL}+turbo`), (error: unknown) => {
      assert.ok(error instanceof OpenAI.NotFoundError);
      assert.match(error.message, /"turbo" is not a mode; use one of \+off, \+quick/);
      assert.doesNotMatch(error.message, /ollama pull/, 'the model itself exists');
      return true;
    });
  });
});

describe('POST /v1/embeddings', () => {
  test('client.embeddings.create (base64 by default) gets the vectors Ollama made, for a string and an array', async () => {
    const one = await client.embeddings.create({ model: MODEL, input: 'hello world' });
    assert.equal(one.object, 'list');
    assert.equal(one.data.length, 1);
    const expected = fakeEmbedding('hello world', 8);
    one.data[0]?.embedding.forEach((value, i) => {
      assert.ok(Math.abs(value - (expected[i] as number)) < 1e-6);
    });
    assert.equal(fake.embeds.at(-1)?.body.input?.toString(), 'hello world');

    const many = await client.embeddings.create({ model: MODEL, input: ['a', 'b', 'c'], encoding_format: 'float' });
    assert.deepEqual(
      many.data.map((d) => d.index),
      [0, 1, 2],
    );
    assert.deepEqual(many.data[2]?.embedding, fakeEmbedding('c', 8));
    assert.ok(many.usage.prompt_tokens > 0);
  });

  test('inputs are redacted before Ollama sees them, no context is added, and the audit keeps sizes and hashes only', async () => {
    const { response } = await client.embeddings
      .create({ model: `${MODEL}+deep`, input: [`export GITHUB_TOKEN=${TOKEN}`, 'plain'] })
      .withResponse();
    const sent = fake.embeds.at(-1)?.body as { model: string; input: string[] };
    assert.equal(sent.model, MODEL, 'the +mode suffix is stripped');
    assert.doesNotMatch(JSON.stringify(sent), new RegExp(TOKEN));
    assert.match(sent.input[0] ?? '', /^export GITHUB_TOKEN=\[REDACTED:[\w-]+\]$/);
    assert.equal(sent.input[1], 'plain', 'nothing else is added');
    assert.equal(response.headers.get('x-ctx-mode'), 'off');

    const snapshot = await snapshotOf(response.headers.get('x-ctx-snapshot-id'));
    assert.equal(snapshot.outcome, 'ok');
    assert.equal(snapshot.modeUsed, 'off');
    const stored = JSON.stringify(snapshot);
    assert.doesNotMatch(stored, new RegExp(TOKEN));
    assert.doesNotMatch(stored, /GITHUB_TOKEN/, 'the text is not kept');
    assert.match(stored, /#0 \d+ chars sha256:[0-9a-f]{16}/);
    assert.ok(Object.values(snapshot.redactions).reduce((a, b) => a + b, 0) >= 1);
  });

  test('an unknown model is a 404 with the pull hint, and audited', async () => {
    const error = await client.embeddings.create({ model: 'nope:1b', input: 'x' }).catch((e: unknown) => e);
    assert.ok(error instanceof OpenAI.NotFoundError);
    assert.match(error.message, /ollama pull nope:1b/);
  });

  test('token arrays are a 400', async () => {
    await assert.rejects(client.embeddings.create({ model: MODEL, input: [[1, 2, 3]] }), OpenAI.BadRequestError);
  });
});

describe('POST /v1/completions', () => {
  test('client.completions.create with suffix: the prompt and suffix reach /api/generate redacted, with the sampling options', async () => {
    const { data, response } = await client.completions
      .create({
        model: MODEL,
        prompt: `const token = "${TOKEN}";\nfunction add(a, b) {\n`,
        suffix: '\n}\n',
        max_tokens: 32,
        temperature: 0.2,
        stop: ['\n\n'],
      })
      .withResponse();
    assert.equal(data.object, 'text_completion');
    assert.match(data.id, /^cmpl-/);
    assert.equal(data.choices[0]?.text, DEFAULT_FAKE_CONTENT);
    assert.equal(data.choices[0]?.finish_reason, 'stop');
    assert.ok(data.usage && data.usage.prompt_tokens > 0 && data.usage.completion_tokens > 0);

    const sent = fake.generates.at(-1)?.body as Record<string, unknown>;
    assert.equal(sent.model, MODEL);
    assert.equal(sent.suffix, '\n}\n');
    assert.doesNotMatch(String(sent.prompt), new RegExp(TOKEN));
    assert.match(String(sent.prompt), /function add\(a, b\) \{\n$/);
    assert.doesNotMatch(String(sent.prompt), /<context/, 'no context is added');
    assert.deepEqual(sent.options, { temperature: 0.2, num_predict: 32, stop: ['\n\n'] });

    const snapshot = await snapshotOf(response.headers.get('x-ctx-snapshot-id'));
    assert.equal(snapshot.outcome, 'ok');
    assert.equal(snapshot.reply.content, DEFAULT_FAKE_CONTENT);
    assert.doesNotMatch(JSON.stringify(snapshot), new RegExp(TOKEN));
    assert.deepEqual(
      snapshot.forwarded.map((m) => m.name),
      ['suffix', 'prompt'],
    );
  });

  test('streaming: text chunks, a finish chunk, usage when asked, then the stream ends', async () => {
    fake.reply(MODEL, { content: 'return a + b;' });
    try {
      const stream = await client.completions.create({
        model: MODEL,
        prompt: 'function add(a, b) {\n',
        suffix: '}\n',
        stream: true,
        stream_options: { include_usage: true },
      });
      let text = '';
      const finishes: (string | null | undefined)[] = [];
      let usage: OpenAI.CompletionUsage | undefined;
      for await (const chunk of stream) {
        assert.equal(chunk.object, 'text_completion');
        text += chunk.choices[0]?.text ?? '';
        if (chunk.choices[0]) finishes.push(chunk.choices[0].finish_reason);
        if (chunk.usage) usage = chunk.usage;
      }
      assert.equal(text, 'return a + b;');
      assert.equal(finishes.at(-1), 'stop');
      assert.ok(usage && usage.completion_tokens > 0);
    } finally {
      fake.reply(MODEL, {});
    }
  });

  test('unsupported parameters are a 400 naming them', async () => {
    const error = await client.completions.create({ model: MODEL, prompt: 'x', echo: true }).catch((e: unknown) => e);
    assert.ok(error instanceof OpenAI.BadRequestError);
    assert.match(error.message, /echo/);
  });
});

describe('GET /', () => {
  test('a browser gets a small HTML page with the base URL, the upstream, the models and a link to /audit', async () => {
    const response = await fetch(`${proxy.url}/`, { headers: { accept: 'text/html,application/xhtml+xml' } });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /text\/html/);
    const page = await response.text();
    assert.ok(page.includes(`${proxy.url}/v1`), 'the base URL to paste');
    assert.match(page, /answers/);
    assert.ok(page.includes(MODEL));
    assert.match(page, /href="\/audit"/);
  });

  test('an API client gets the same facts as JSON; a dead upstream says so', async () => {
    const json = (await (await fetch(`${proxy.url}/`)).json()) as Record<string, unknown>;
    assert.equal(json.base_url, `${proxy.url}/v1`);
    assert.deepEqual(json.upstream, { url: fake.url, kind: 'ollama', reachable: true });

    const dead = await startProxy({ upstreamUrl: 'http://127.0.0.1:9' });
    try {
      const page = await (await fetch(`${dead.url}/`, { headers: { accept: 'text/html' } })).text();
      assert.match(page, /does not answer/);
      assert.match(page, /ollama serve/);
    } finally {
      await dead.close();
    }
  });
});

describe('rejected requests', () => {
  test('a malformed body on the new endpoints is a 400 and still leaves an audit snapshot', async () => {
    for (const route of ['/v1/embeddings', '/v1/completions', '/v1/responses']) {
      const response = await fetch(`${proxy.baseURL}${route.slice(3)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"model": 1',
      });
      assert.equal(response.status, 400, route);
      const body = (await response.json()) as { error: { code: string } };
      assert.equal(body.error.code, 'invalid_json');
      const snapshot = await snapshotOf(response.headers.get('x-ctx-snapshot-id'));
      assert.equal(snapshot.outcome, 'error');
    }
  });
});

describe('a base URL without /v1', () => {
  test('the 404 says to add /v1 to the base URL; other unknown paths get no such hint', async () => {
    const origin = new URL(proxy.url).origin;
    const noPrefix = new OpenAI({ baseURL: origin, apiKey: 'local', maxRetries: 0 });
    await assert.rejects(
      noPrefix.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }),
      (error: unknown) => {
        assert.ok(error instanceof OpenAI.NotFoundError);
        assert.match(
          error.message,
          new RegExp(
            `No route POST /chat/completions\\. The API is under /v1: set the client's base URL to ${origin}/v1`,
          ),
        );
        return true;
      },
    );
    const other = await fetch(`${origin}/v2/chat`);
    assert.equal(other.status, 404);
    assert.doesNotMatch(JSON.stringify(await other.json()), /under \/v1/);
  });
});
