// The OpenAI Responses API request as we accept it (POST /v1/responses). Items
// and tools are checked loosely here and converted, with a 400 naming what is
// not supported, in pipeline/responsesInput.ts.

import { z } from 'zod';

const item = z.record(z.string(), z.unknown());

export const responsesRequestSchema = z
  .object({
    model: z.string().min(1),
    input: z.union([z.string(), z.array(item)]).optional(),
    instructions: z.string().nullable().optional(),
    tools: z.array(item).nullable().optional(),
    tool_choice: z.union([z.string(), item]).nullable().optional(),
    stream: z.boolean().nullable().optional(),
    previous_response_id: z.string().nullable().optional(),
    max_output_tokens: z.number().int().positive().nullable().optional(),
    temperature: z.number().nullable().optional(),
    top_p: z.number().nullable().optional(),
    text: z.object({ format: item.nullable().optional() }).passthrough().nullable().optional(),
    reasoning: z.object({ effort: z.string().nullable().optional() }).passthrough().nullable().optional(),
    store: z.boolean().nullable().optional(),
    parallel_tool_calls: z.boolean().nullable().optional(),
    metadata: z.record(z.string(), z.unknown()).nullable().optional(),
  })
  .passthrough();

export type ResponsesRequest = z.infer<typeof responsesRequestSchema>;
/** One item of `input` or `output`, as JSON. */
export type ResponseItem = Record<string, unknown>;
