// POST /v1/embeddings → the pipeline's runEmbeddings (redacted, no context, audited).
// The `openai` Node client asks for base64 unless told otherwise, so both
// encodings are answered: base64 is the float32 little-endian bytes.

import { Buffer } from 'node:buffer';
import { Hono } from 'hono';
import { z } from 'zod';
import { runEmbeddings } from '../pipeline/embeddings.ts';
import { BadRequestError } from '../shared/errors.ts';
import { callFacts, ctxHeaders, type RouteDeps, type RouteEnv, readBody } from './routeKit.ts';

/** Exported for the every-field leak test (test/integration/everyField.test.ts). */
export const embeddingsSchema = z
  .object({
    model: z.string().min(1),
    input: z.union([z.string(), z.array(z.unknown()).min(1)]),
    encoding_format: z.enum(['float', 'base64']).nullable().optional(),
    dimensions: z.number().int().positive().nullable().optional(),
    user: z.string().optional(),
  })
  .passthrough();

export function embeddingsRoutes(deps: RouteDeps): Hono<RouteEnv> {
  const app = new Hono<RouteEnv>();
  app.post('/v1/embeddings', async (c) => {
    const body = await readBody(c, deps.maxBodyBytes, embeddingsSchema);
    const result = await runEmbeddings(
      {
        model: body.model,
        input: inputTexts(body.input),
        dimensions: body.dimensions ?? undefined,
        ...callFacts(c, deps.inFlight),
      },
      deps.pipeline,
    );
    const base64 = body.encoding_format === 'base64';
    return c.json(
      {
        object: 'list',
        data: result.embeddings.map((vector, index) => ({
          object: 'embedding',
          index,
          embedding: base64 ? float32Base64(vector) : vector,
        })),
        model: result.model,
        usage: { prompt_tokens: result.promptTokens, total_tokens: result.promptTokens },
      },
      200,
      ctxHeaders(result.snapshotId, 'off', result.warnings),
    );
  });
  return app;
}

/** Strings only: token arrays would need the model's tokenizer, which only the upstream has. */
function inputTexts(input: string | unknown[]): string[] {
  const texts = typeof input === 'string' ? [input] : input;
  if (!texts.every((text): text is string => typeof text === 'string')) {
    throw new BadRequestError(
      'input must be a string or an array of strings; token arrays are not supported.',
      'unsupported_input',
      'input',
    );
  }
  return texts;
}

function float32Base64(vector: number[]): string {
  const floats = Float32Array.from(vector);
  return Buffer.from(floats.buffer, floats.byteOffset, floats.byteLength).toString('base64');
}
