// Every field of every route goes through the redactor. One row per route: its
// zod schema (and, for chat, the field table) says which fields exist, and a
// sample body must use each of them, so a field added to a schema or the table
// without a sample here fails the coverage test. From the sample, every place a
// value can be (each leaf, string or not, and each object key) becomes one
// request with a fresh secret planted there; the secret must reach neither the
// fake upstream (any route, /api/show included), nor the audit database and its
// write-ahead log, nor the server log, whatever the proxy answers.
//
// A new route adds one row (see `routes`): its schema and a sample using every field.

import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { existsSync, readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { z } from 'zod';
import { completionsSchema } from '../../src/http/completionsRoute.ts';
import { embeddingsSchema } from '../../src/http/embeddingsRoute.ts';
import { REQUEST_FIELDS } from '../../src/pipeline/fieldPolicy.ts';
import { chatRequestSchema } from '../../src/shared/chatRequest.ts';
import { messagesRequestSchema } from '../../src/shared/messagesRequest.ts';
import type { LogFields, Logger } from '../../src/shared/ports.ts';
import { responsesRequestSchema } from '../../src/shared/responsesRequest.ts';
import { createOpenAIUpstream } from '../../src/upstream/openaiUpstream.ts';
import { githubToken, seededRng } from '../redact/secretGen.ts';
import { type FakeOllama, startFakeOllama } from '../support/fakeOllama.ts';
import { type FakeOpenAI, startFakeOpenAI } from '../support/fakeOpenAI.ts';
import { type RunningProxy, startProxy } from '../support/proxy.ts';

const PNG = 'data:image/png;base64,iVBORw0KGgo=';

const schema = {
  type: 'object',
  title: 'Lookup',
  description: 'what to look up',
  properties: {
    id: {
      type: 'string',
      description: 'the ticket id',
      default: 'T-1',
      enum: ['T-1', 'T-2'],
      examples: ['T-7'],
      pattern: '^T-\\d+$',
      const: 'T-1',
    },
    tags: { type: 'array', items: { type: 'string', format: 'slug' }, minItems: 0 },
  },
  required: ['id'],
  additionalProperties: false,
};

const chatSample = {
  model: 'qwen2.5-coder:7b',
  messages: [
    { role: 'system', content: 'be brief', name: 'sys' },
    {
      role: 'user',
      name: 'dev',
      content: [
        { type: 'text', text: 'what is in this picture?' },
        { type: 'image_url', image_url: { url: PNG, detail: 'low' } },
      ],
    },
    {
      role: 'assistant',
      content: 'let me look',
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"id":"T-1"}' } }],
    },
    { role: 'tool', tool_call_id: 'call_1', name: 'lookup', content: 'ticket T-1 is open' },
  ],
  stream: false,
  stream_options: { include_usage: true },
  tools: [
    { type: 'function', function: { name: 'lookup', description: 'finds a ticket', parameters: schema, strict: true } },
  ],
  tool_choice: { type: 'function', function: { name: 'lookup' } },
  temperature: 0.2,
  top_p: 0.9,
  max_tokens: 64,
  max_completion_tokens: 64,
  seed: 7,
  presence_penalty: 0,
  frequency_penalty: 0,
  n: 1,
  stop: ['END', 'STOP'],
  response_format: { type: 'json_schema', json_schema: { name: 'ticket', schema, strict: true } },
  reasoning_effort: 'low',
  user: 'user-17',
  metadata: { ticket: 'T-1' },
  parallel_tool_calls: false,
  logprobs: false,
  top_logprobs: 0,
  logit_bias: { '50256': -100 },
  top_k: 40,
  min_p: 0.05,
  repeat_penalty: 1.1,
  store: false,
  service_tier: 'auto',
  modalities: ['text'],
  audio: { voice: 'alloy', format: 'wav' },
  prediction: { type: 'content', content: 'draft' },
  web_search_options: { search_context_size: 'low' },
  a_field_nothing_lists: { note: 'dropped' },
};

const responsesSample = {
  model: 'qwen2.5-coder:7b',
  instructions: 'be brief',
  input: [
    {
      type: 'message',
      role: 'user',
      content: [
        { type: 'input_text', text: 'look up T-1' },
        { type: 'input_image', image_url: PNG },
      ],
    },
    { type: 'function_call', call_id: 'call_1', name: 'lookup', arguments: '{"id":"T-1"}' },
    { type: 'function_call_output', call_id: 'call_1', output: 'ticket T-1 is open' },
    { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'it is open' }] },
  ],
  tools: [{ type: 'function', name: 'lookup', description: 'finds a ticket', parameters: schema, strict: true }],
  tool_choice: { type: 'function', name: 'lookup' },
  stream: false,
  previous_response_id: null,
  max_output_tokens: 64,
  temperature: 0.2,
  top_p: 0.9,
  text: { format: { type: 'json_schema', name: 'ticket', schema, strict: true }, verbosity: 'low' },
  reasoning: { effort: 'low', summary: 'auto' },
  store: false,
  parallel_tool_calls: false,
  metadata: { ticket: 'T-1' },
  user: 'user-17',
};

const completionsSample = {
  model: 'qwen2.5-coder:7b',
  prompt: 'def add(a, b):',
  suffix: '\n\nprint(add(1, 2))',
  stream: false,
  stream_options: { include_usage: true },
  temperature: 0.2,
  top_p: 0.9,
  max_tokens: 32,
  stop: ['\n\n', 'def '],
  seed: 7,
  presence_penalty: 0,
  frequency_penalty: 0,
  n: 1,
  echo: false,
  logprobs: 0,
  best_of: 1,
  user: 'user-17',
  metadata: { ticket: 'T-1' },
};

const embeddingsSample = {
  model: 'qwen2.5-coder:7b',
  input: ['first text', 'second text'],
  encoding_format: 'float',
  dimensions: 8,
  user: 'user-17',
};

// Anthropic's Messages API (Claude Code): system blocks, a tool round trip, an image.
const messagesSample = {
  model: 'qwen2.5-coder:7b',
  max_tokens: 256,
  system: [{ type: 'text', text: 'be brief', cache_control: { type: 'ephemeral' } }],
  messages: [
    { role: 'user', content: 'read the ticket' },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'reading it' },
        { type: 'tool_use', id: 'toolu_1', name: 'read_ticket', input: { id: 'T-1' } },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'ticket body' }] },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
        { type: 'text', text: 'what does it say?' },
      ],
    },
  ],
  tools: [
    {
      name: 'read_ticket',
      description: 'reads a ticket',
      input_schema: { type: 'object', properties: { id: { type: 'string', default: 'T-0' } } },
    },
  ],
  tool_choice: { type: 'auto', disable_parallel_tool_use: false },
  thinking: { type: 'disabled' },
  output_config: { effort: 'low', format: null },
  stream: false,
  stop_sequences: ['END'],
  temperature: 0.2,
  top_p: 0.9,
  top_k: 40,
  metadata: { user_id: 'user-17' },
};

interface RouteRow {
  route: string;
  /** The route's zod schema: every field it names must appear in the sample. */
  schema: z.ZodObject;
  /** Dotted paths the route's own field table names (chat: fieldPolicy.ts); the sample must reach each. */
  tablePaths?: string[];
  sample: Record<string, unknown>;
}

const routes: RouteRow[] = [
  {
    route: '/v1/chat/completions',
    schema: chatRequestSchema,
    tablePaths: Object.keys(REQUEST_FIELDS),
    sample: chatSample,
  },
  { route: '/v1/responses', schema: responsesRequestSchema, sample: responsesSample },
  { route: '/v1/completions', schema: completionsSchema, sample: completionsSample },
  { route: '/v1/embeddings', schema: embeddingsSchema, sample: embeddingsSample },
  { route: '/v1/messages', schema: messagesRequestSchema, sample: messagesSample },
];

/** Field-table paths (`a.b`, `a[]`) the value reaches. */
function pathsOf(value: unknown, path = '', into = new Set<string>()): Set<string> {
  if (path !== '') into.add(path);
  if (Array.isArray(value)) for (const item of value) pathsOf(item, `${path}[]`, into);
  else if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) pathsOf(child, path === '' ? key : `${path}.${key}`, into);
  }
  return into;
}

interface Plant {
  /** Where, for the failure message: `tools.0.function.parameters.properties.id.default`, or `key of …`. */
  where: string;
  body: Record<string, unknown>;
}

/** One body per place in `sample`: each leaf replaced by `secret()`, each object key renamed to one. */
function plants(sample: Record<string, unknown>, secret: () => string): Plant[] {
  const out: Plant[] = [];
  const visit = (value: unknown, at: (string | number)[]) => {
    if (Array.isArray(value)) {
      for (const [i, item] of value.entries()) visit(item, [...at, i]);
    } else if (value !== null && typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) {
        out.push({ where: `key of ${[...at, key].join('.')}`, body: renamedKey(sample, at, key, secret()) });
        visit(child, [...at, key]);
      }
    } else out.push({ where: at.join('.'), body: replaced(sample, at, secret()) });
  };
  visit(sample, []);
  return out;
}

function replaced(sample: Record<string, unknown>, at: (string | number)[], value: unknown): Record<string, unknown> {
  const copy = structuredClone(sample);
  let node: Record<string | number, unknown> = copy;
  for (const step of at.slice(0, -1)) node = node[step] as Record<string | number, unknown>;
  node[at.at(-1) as string | number] = value;
  return copy;
}

function renamedKey(
  sample: Record<string, unknown>,
  at: (string | number)[],
  key: string,
  name: string,
): Record<string, unknown> {
  const copy = structuredClone(sample);
  let node: Record<string | number, unknown> = copy;
  for (const step of at) node = node[step] as Record<string | number, unknown>;
  const renamed = Object.fromEntries(Object.entries(node).map(([k, v]) => [k === key ? name : k, v]));
  for (const k of Object.keys(node)) delete node[k];
  Object.assign(node, renamed);
  return copy;
}

describe('the table covers every field', () => {
  for (const row of routes) {
    test(`${row.route}: the sample uses every field of the schema${row.tablePaths ? ' and of the field table' : ''}`, () => {
      const used = Object.keys(row.sample);
      for (const field of Object.keys(row.schema.shape)) {
        assert.ok(used.includes(field), `${row.route}: the sample has no "${field}"; add it so its strings are tested`);
      }
      const reached = pathsOf(row.sample);
      for (const path of row.tablePaths ?? []) {
        assert.ok(reached.has(path), `${row.route}: the sample does not reach "${path}" of the field table`);
      }
    });
  }
});

const rng = seededRng(20261202);
const secret = () => githubToken(rng, 'ghp');

interface Kind {
  name: string;
  start(logger: Logger): Promise<{ proxy: RunningProxy; received: () => string[]; close(): Promise<void> }>;
}

const kinds: Kind[] = [
  {
    name: 'ollama',
    async start(logger) {
      // A model that thinks, so reasoning_effort is answered rather than refused.
      const fake: FakeOllama = await startFakeOllama({
        models: [{ name: 'qwen2.5-coder:7b', contextLength: 32768, capabilities: ['completion', 'tools', 'thinking'] }],
      });
      const proxy = await startProxy({ upstreamUrl: fake.url, logger });
      return {
        proxy,
        received: () => fake.received.map((r) => `${r.path} ${r.text}`),
        close: async () => {
          await proxy.close();
          await fake.close();
        },
      };
    },
  },
  {
    name: 'openai',
    async start(logger) {
      const fake: FakeOpenAI = await startFakeOpenAI({ models: ['qwen2.5-coder:7b'] });
      const proxy = await startProxy({
        upstreamUrl: fake.url,
        upstream: createOpenAIUpstream({ baseUrl: fake.url }),
        settings: { models: { 'qwen2.5-coder:7b': { window: 8192 } } },
        logger,
      });
      return {
        proxy,
        received: () => fake.requests.map((r) => `${r.path} ${JSON.stringify(r.body)}`),
        close: async () => {
          await proxy.close();
          await fake.close();
        },
      };
    },
  },
];

async function databaseText(proxy: RunningProxy): Promise<string> {
  await proxy.store.flush();
  const wal = `${proxy.dbPath}-wal`;
  const parts = [readFileSync(proxy.dbPath)];
  if (existsSync(wal)) parts.push(readFileSync(wal));
  return Buffer.concat(parts).toString('latin1');
}

for (const kind of kinds) {
  describe(`a secret in any place of any route (upstream kind ${kind.name})`, () => {
    const lines: string[] = [];
    const log =
      (level: string) =>
      (event: string, fields: LogFields = {}) =>
        lines.push(JSON.stringify({ level, event, ...fields }));
    const logger: Logger = { info: log('info'), warn: log('warn'), error: log('error') };
    let running: Awaited<ReturnType<Kind['start']>>;
    before(async () => {
      running = await kind.start(logger);
    });
    after(async () => {
      await running.close();
    });

    for (const row of routes) {
      test(`${row.route}: reaches neither the upstream, nor the audit database, nor the log`, async () => {
        const sent = await fetch(`${running.proxy.url}${row.route}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(row.sample),
        });
        // The sample itself is a good request where the upstream kind serves the route.
        assert.ok(
          sent.status === 200 || sent.status === 501,
          `${row.route}: the sample got ${sent.status}: ${await sent.text()}`,
        );
        const statuses = new Map<number, number>();
        const planted: { token: string; where: string }[] = [];
        const upstreamBefore = running.received().length;
        const logBefore = lines.length;
        for (const plant of plants(row.sample, secret)) {
          for (const token of JSON.stringify(plant.body).match(/ghp_\w+/g) ?? [])
            planted.push({ token, where: plant.where });
          const response = await fetch(`${running.proxy.url}${row.route}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(plant.body),
          });
          await response.arrayBuffer();
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        }
        // Each secret is planted once, so what holds one names the place it was planted in.
        const upstream = running.received().slice(upstreamBefore).join('\n');
        const logged = lines.slice(logBefore).join('\n');
        const stored = await databaseText(running.proxy);
        const leaks = planted.flatMap(({ token, where }) =>
          [
            upstream.includes(token) ? 'the upstream' : '',
            stored.includes(token) ? 'the audit database' : '',
            logged.includes(token) ? 'the server log' : '',
          ]
            .filter(Boolean)
            .map((into) => `${where} → ${into}`),
        );
        assert.deepEqual(leaks, [], `${row.route}: planted secrets leaked`);
        // Not vacuous: most planted requests were answered, so their fields went upstream.
        const answered = statuses.get(200) ?? 0;
        const total = [...statuses.values()].reduce((a, b) => a + b, 0);
        if (sent.status === 200) {
          assert.ok(
            answered > total / 2,
            `${row.route}: only ${answered} of ${total} planted requests were answered (${JSON.stringify([...statuses])})`,
          );
        }
      });
    }
  });
}
