// The OpenAI chat-completions request as we accept it. Fields we do not map are
// kept (passthrough) so an OpenAI-compatible upstream still receives them.

import { z } from 'zod';

const textPart = z.object({ type: z.literal('text'), text: z.string() });
const imagePart = z.object({
  type: z.literal('image_url'),
  image_url: z.union([z.string(), z.object({ url: z.string(), detail: z.string().optional() })]),
});
const contentPart = z.discriminatedUnion('type', [textPart, imagePart]);

const toolCall = z.object({
  id: z.string(),
  type: z.literal('function').default('function'),
  function: z.object({ name: z.string(), arguments: z.string() }),
});

const message = z.object({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']),
  content: z.union([z.string(), z.array(contentPart), z.null()]).default(null),
  name: z.string().optional(),
  tool_calls: z.array(toolCall).optional(),
  tool_call_id: z.string().optional(),
});

const tool = z.object({
  type: z.literal('function'),
  function: z.object({
    name: z.string().min(1),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().nullable().optional(),
  }),
});

const responseFormat = z.object({ type: z.string() }).passthrough();

/** Sampling fields that chat and legacy completions share, with the same meaning. */
export const samplingFields = {
  temperature: z.number().nullable().optional(),
  top_p: z.number().nullable().optional(),
  max_tokens: z.number().int().positive().nullable().optional(),
  stop: z
    .union([z.string(), z.array(z.string())])
    .nullable()
    .optional(),
  seed: z.number().int().nullable().optional(),
  presence_penalty: z.number().nullable().optional(),
  frequency_penalty: z.number().nullable().optional(),
  n: z.number().int().positive().nullable().optional(),
};

export const chatRequestSchema = z
  .object({
    model: z.string().min(1),
    messages: z.array(message).min(1),
    stream: z.boolean().nullable().optional(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).passthrough().nullable().optional(),
    tools: z.array(tool).optional(),
    tool_choice: z.unknown().optional(),
    ...samplingFields,
    max_completion_tokens: z.number().int().positive().nullable().optional(),
    response_format: responseFormat.nullable().optional(),
    reasoning_effort: z.string().nullable().optional(),
  })
  .passthrough();

export type ChatRequest = z.infer<typeof chatRequestSchema>;

/** Turns zod issues into one readable line: `[messages.0.role] Invalid option …`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => `[${issue.path.join('.') || 'body'}] ${issue.message}`).join('; ');
}
