// The OpenAI chat-completions request as we accept it. Fields we do not map are
// kept (passthrough) so an OpenAI-compatible upstream still receives them.

import { z } from 'zod';

const textPart = z.object({ type: z.literal('text'), text: z.string() });
const imagePart = z.object({
  type: z.literal('image_url'),
  /** OpenAI sends an object; some clients send the bare URL string. */
  image_url: z.union([
    z.string(),
    z.object({
      url: z.string(),
      detail: z.string().optional(),
      // The audit log keeps an image as its type and size, with `url` = `sha256:<hex>` of the bytes.
      // A client's own values never reach the model: pipeline/images.ts rebuilds every image part.
      media_type: z.string().optional(),
      bytes: z.number().optional(),
    }),
  ]),
});
export const contentPartSchema = z.discriminatedUnion('type', [textPart, imagePart]);

export const toolCallSchema = z.object({
  id: z.string(),
  type: z.literal('function').default('function'),
  function: z.object({ name: z.string(), arguments: z.string() }),
});

export const chatMessageSchema = z.object({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']),
  content: z.union([z.string(), z.array(contentPartSchema), z.null()]).default(null),
  name: z.string().optional(),
  tool_calls: z.array(toolCallSchema).optional(),
  tool_call_id: z.string().optional(),
});

export const toolDefinitionSchema = z.object({
  type: z.literal('function'),
  function: z.object({
    name: z.string().min(1),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().nullable().optional(),
  }),
});

/**
 * A tool the client's provider would run itself (OpenAI's web_search, file_search, computer_use,
 * code_interpreter, mcp, a Codex `namespace` …): any `type` but `function`. A local model cannot run
 * one, so the pipeline leaves it out of the forwarded request (pipeline/hostedTools.ts) instead of
 * refusing the request, as Ollama's own OpenAI layer accepts them.
 */
export const hostedToolSchema = z.object({ type: z.string().refine((type) => type !== 'function') }).passthrough();
export type HostedTool = z.infer<typeof hostedToolSchema>;

type FunctionTool = z.infer<typeof toolDefinitionSchema>;

export function isFunctionTool(tool: FunctionTool | HostedTool): tool is FunctionTool {
  return tool.type === 'function';
}

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
    messages: z.array(chatMessageSchema).min(1),
    stream: z.boolean().nullable().optional(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).passthrough().nullable().optional(),
    tools: z.array(z.union([toolDefinitionSchema, hostedToolSchema])).optional(),
    tool_choice: z.unknown().optional(),
    ...samplingFields,
    max_completion_tokens: z.number().int().positive().nullable().optional(),
    response_format: responseFormat.nullable().optional(),
    reasoning_effort: z.string().nullable().optional(),
  })
  .passthrough();

export type ChatRequest = z.infer<typeof chatRequestSchema>;
