// POST /v1/completions (legacy text completions, editor autocomplete with
// `suffix` for fill-in-the-middle) → the pipeline's runCompletions. Answers a
// `text_completion` object, or its SSE chunks ending with `[DONE]`.

import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import { z } from 'zod';
import { runCompletions } from '../pipeline/completions.ts';
import { samplingFields } from '../shared/chatRequest.ts';
import { BadRequestError, toProxyError } from '../shared/errors.ts';
import type { FinishReason, UpstreamEvent, Usage } from '../shared/types.ts';
import { callFacts, ctxHeaders, type RouteDeps, type RouteEnv, readBody, replySse } from './routeKit.ts';

/** Exported for the every-field leak test (test/integration/everyField.test.ts). */
export const completionsSchema = z
  .object({
    model: z.string().min(1),
    prompt: z.union([z.string(), z.array(z.unknown())]),
    suffix: z.string().nullable().optional(),
    stream: z.boolean().nullable().optional(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).passthrough().nullable().optional(),
    ...samplingFields,
    echo: z.boolean().nullable().optional(),
    logprobs: z.number().int().nullable().optional(),
    best_of: z.number().int().nullable().optional(),
  })
  .passthrough();

type CompletionsBody = z.infer<typeof completionsSchema>;

interface Identity {
  id: string;
  created: number;
  model: string;
}

export function completionsRoutes(deps: RouteDeps): Hono<RouteEnv> {
  const app = new Hono<RouteEnv>();
  app.post('/v1/completions', async (c) => {
    const body = await readBody(c, deps.maxBodyBytes, completionsSchema);
    rejectUnsupported(body);
    const stream = body.stream === true;
    const result = await runCompletions(
      {
        model: body.model,
        prompt: promptText(body.prompt),
        suffix: body.suffix ?? undefined,
        params: sampling(body),
        stream,
        ...callFacts(c, deps.inFlight),
      },
      deps.pipeline,
    );
    const headers = ctxHeaders(result.snapshotId, 'off', result.warnings);
    const identity: Identity = {
      id: `cmpl-${randomUUID().replaceAll('-', '')}`,
      created: Math.floor(deps.pipeline.now() / 1000),
      model: body.model,
    };
    if (!stream) return c.json(await aggregate(result.events, identity), 200, headers);
    const includeUsage = body.stream_options?.include_usage === true;
    return replySse(c, headers, completionChunks(result.events, identity, includeUsage));
  });
  return app;
}

/** A string, or an array of exactly one string (what most clients send for one prompt). */
function promptText(prompt: string | unknown[]): string {
  if (typeof prompt === 'string') return prompt;
  if (prompt.length === 1 && typeof prompt[0] === 'string') return prompt[0];
  throw new BadRequestError(
    'prompt must be a string (or an array of one string); several prompts and token arrays are not supported.',
    'unsupported_prompt',
    'prompt',
  );
}

function rejectUnsupported(body: CompletionsBody): void {
  const unsupported = (param: string, why: string) => {
    throw new BadRequestError(`${param} is not supported: ${why}.`, 'unsupported_parameter', param);
  };
  if (body.echo === true) unsupported('echo', 'the upstream returns only the completion');
  if (typeof body.logprobs === 'number' && body.logprobs > 0)
    unsupported('logprobs', 'the upstream does not report them');
  if (typeof body.best_of === 'number' && body.best_of > 1)
    unsupported('best_of', 'the upstream returns one completion');
}

function sampling(body: CompletionsBody): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const key of [
    'max_tokens',
    'temperature',
    'top_p',
    'stop',
    'seed',
    'presence_penalty',
    'frequency_penalty',
    'n',
  ]) {
    const value = body[key];
    if (value !== undefined && value !== null) params[key] = value;
  }
  return params;
}

function usageBody(usage: Usage | undefined) {
  const prompt = usage?.promptTokens ?? 0;
  const completion = usage?.completionTokens ?? 0;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

async function aggregate(events: AsyncIterable<UpstreamEvent>, identity: Identity) {
  let text = '';
  let finishReason: FinishReason = 'stop';
  let usage: Usage | undefined;
  for await (const event of events) {
    if (event.type === 'delta') text += event.content ?? '';
    else {
      finishReason = event.finishReason;
      usage = event.usage;
    }
  }
  return {
    ...identity,
    object: 'text_completion',
    choices: [{ text, index: 0, logprobs: null, finish_reason: finishReason }],
    usage: usageBody(usage),
  };
}

/** One chunk per text delta, the finish reason on a last empty chunk, usage when asked, `[DONE]`. */
async function* completionChunks(
  events: AsyncIterable<UpstreamEvent>,
  identity: Identity,
  includeUsage: boolean,
): AsyncGenerator<string, void, undefined> {
  const frame = (choices: unknown[], more: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ ...identity, object: 'text_completion', choices, ...more })}\n\n`;
  const choice = (text: string, finishReason: FinishReason | null) => ({
    text,
    index: 0,
    logprobs: null,
    finish_reason: finishReason,
  });
  try {
    for await (const event of events) {
      if (event.type === 'delta') {
        if (event.content) yield frame([choice(event.content, null)]);
        continue;
      }
      let out = frame([choice('', event.finishReason)]);
      if (includeUsage) out += frame([], { usage: usageBody(event.usage) });
      yield `${out}data: [DONE]\n\n`;
      return;
    }
  } catch (error) {
    // After the head is out, an error can only be told in the stream (no [DONE] follows).
    yield `data: ${JSON.stringify(toProxyError(error).toBody())}\n\n`;
  }
}
